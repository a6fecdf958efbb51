"""Walking a platform's consent as a browser would: the service's 302 to the platform's page, that page's
answer (the stand-in auto-approves), and the way back to the service in the same signed-in session."""

from urllib.parse import urlsplit

from attribution.platforms.apis.http import platform_client


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
    """Follow the connect view's redirect through the platform and back: the service's final answer."""
    assert response.status_code == 302, response
    at_platform = visit_platform(response["Location"])
    assert at_platform.status_code == 302, at_platform.text
    return back_to_service(client, at_platform.headers["Location"])
