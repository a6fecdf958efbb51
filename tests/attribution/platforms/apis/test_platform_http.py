"""The one client of the platforms' APIs: https only, and no way into this machine or its network."""

import httpx
import pytest

from attribution.platforms.apis.errors import PlatformAPIError
from attribution.platforms.apis.http import check_url, platform_client, shopify_origin


def test_https_passes_and_plain_http_only_for_listed_hosts(settings):
    settings.PLATFORM_PLAIN_HTTP_HOSTS = ["127.0.0.1"]

    assert check_url("https://acme.myshopify.com/admin") == "https://acme.myshopify.com/admin"
    assert check_url("http://127.0.0.1:9100/x") == "http://127.0.0.1:9100/x"
    for refused in ("http://acme.myshopify.com/admin", "ftp://acme.example/", "https:///nohost"):
        with pytest.raises(PlatformAPIError):
            check_url(refused)


def test_the_shop_origin_comes_from_settings(settings):
    assert shopify_origin("acme.myshopify.com") == "https://acme.myshopify.com"
    settings.SHOPIFY_API_ORIGIN = "http://127.0.0.1:9100/{shop}/"
    assert shopify_origin("acme.myshopify.com") == "http://127.0.0.1:9100/acme.myshopify.com"


@pytest.mark.parametrize("url", ["https://127.0.0.1:9/", "https://10.0.0.1:9/", "https://[::1]:9/"])
def test_the_real_network_refuses_addresses_that_are_not_public(settings, url):
    settings.PLATFORM_PLAIN_HTTP_HOSTS = []

    with platform_client() as client, pytest.raises(httpx.ConnectError, match="does not call"):
        client.get(url)
