"""Walking a platform's consent as a browser would: the service's page that moves on to the platform, that
page's answer (the stand-in auto-approves), and the way back to the service in the same signed-in session."""

import re
from html import unescape
from urllib.parse import urlsplit

from attribution.platforms.apis.http import platform_client


def onward(response) -> str:
    """The platform's address the connect view's page moves on to (its refresh and its link)."""
    assert response.status_code == 200, response
    html = response.content.decode()
    target = re.search(r'content="0; url=([^"]+)"', html)[1]
    assert f'href="{target}"' in html
    return unescape(target)


def visit_platform(location: str):
    """The stand-in's answer to the browser's visit of `location` (its redirect is not followed)."""
    with platform_client() as client:
        return client.get(location)


def back_to_service(client, location: str):
    """The service's answer when the browser follows the platform's redirect to `location`."""
    parts = urlsplit(location)
    assert parts.netloc == "testserver", location
    return client.get(f"{parts.path}?{parts.query}", secure=True)


def consent(client, response):
    """Follow the connect view's page through the platform and back: the service's final answer."""
    at_platform = visit_platform(onward(response))
    assert at_platform.status_code == 302, at_platform.text
    return back_to_service(client, at_platform.headers["Location"])
