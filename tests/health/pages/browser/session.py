"""Signing a browser in: the session cookie of a Django test client (the sign-in page has its own tests)."""

from django.conf import settings
from django.test import Client


def sign_in(context, user, base_url: str) -> None:
    """Give a browser context `user`'s session (None: stay anonymous)."""
    if user is None:
        return
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base_url}])
