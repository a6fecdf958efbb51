import json

import pytest
from django.core.cache import cache
from django.db import connection

from tests import factories
from tests.browser import Browser, BrowserError, find_chromium


@pytest.fixture(autouse=True)
def _spool_in_tmp(settings, tmp_path):
    """Events a test makes the database refuse are spooled under the test's own tmp dir."""
    settings.SPOOL_DIR = tmp_path / "spool"
    return settings.SPOOL_DIR


@pytest.fixture(autouse=True)
def _fast_and_clean(settings):
    """Fast password hashing; an empty cache so brand resolution is read from each test's data."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Login lockout has its own tests (tests/brands/test_login_lockout.py); elsewhere it stays out of the way.
    settings.AXES_ENABLED = False
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("race behaviour is proven on PostgreSQL; SQLite serialises writers")


@pytest.fixture
def api(client):
    """POST JSON to an API path: api.post(path, body, key=None, content_type=...)."""

    class Api:
        def post(self, path, body, *, key=None, content_type="application/json", **extra):
            raw = body if isinstance(body, str | bytes) else json.dumps(body)
            if key is not None:
                extra["HTTP_AUTHORIZATION"] = f"Bearer {key}"
            return client.post(path, raw, content_type=content_type, **extra)

        def get(self, path, *, key=None, **extra):
            if key is not None:
                extra["HTTP_AUTHORIZATION"] = f"Bearer {key}"
            return client.get(path, **extra)

    return Api()


@pytest.fixture
def brand(db):
    return factories.BrandFactory(name="Acme", commission_rate_percent="10")


@pytest.fixture
def prop(brand):
    return factories.PropertyFactory(brand=brand, host="shop.acme.example")


@pytest.fixture
def creator(brand):
    return factories.CreatorFactory(brand=brand, name="Ana")


@pytest.fixture
def other_brand(db):
    return factories.BrandFactory(name="Globex")


@pytest.fixture
def other_prop(other_brand):
    return factories.PropertyFactory(brand=other_brand, host="globex.example")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (tests/browser.py); skipped without one. Closed with the
    module, so no kept-alive connection reaches the live server from a later test."""
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set CHROMIUM=/path/to/chrome)")
    try:
        started = Browser(executable)
    except (OSError, BrowserError) as exc:
        pytest.skip(f"Chromium at {executable} could not be started: {exc}")
    yield started
    started.close()


@pytest.fixture
def signed_in(browser, live_server, client):
    """sign_in(user) -> a Chromium page whose session is that user's on the live server."""

    pages = []

    def sign_in(user):
        client.force_login(user)
        host = live_server.url.split("//", 1)[1].split(":", 1)[0]
        browser.set_cookie(name="sessionid", value=client.cookies["sessionid"].value, domain=host, path="/")
        pages.append(browser.page())
        return pages[-1]

    yield sign_in
    for page in pages:  # no request of the page may still reach the live server after the test
        page.goto("about:blank")
    browser.send("Storage.clearCookies")
