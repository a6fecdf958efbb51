"""The platforms' calls, sent through the one outbound client: https only, plain http only at a listed host:port,
no way into this machine or its network, and a clean refusal (never a 500) for an odd form of an address."""

import pytest

from attribution.platforms.apis.errors import PlatformAPIError
from attribution.platforms.apis.http import check_url, plain_http_pairs, send, shopify_origin


def test_https_passes_and_plain_http_only_at_a_listed_host_and_port(settings):
    settings.PLATFORM_PLAIN_HTTP_HOSTS = ["127.0.0.1:9100"]

    assert check_url("https://acme.myshopify.com/admin") == "https://acme.myshopify.com/admin"
    assert check_url("http://127.0.0.1:9100/x") == "http://127.0.0.1:9100/x"
    for refused in (
        "http://acme.myshopify.com/admin",
        "ftp://acme.example/",
        "https:///nohost",
        "http://127.0.0.1:5432/",  # the listed host, another port: finding 6
        "https://127.0.0.1:6379/",
    ):
        with pytest.raises(PlatformAPIError):
            check_url(refused)


def test_plain_http_hosts_are_host_and_port_pairs_a_bare_host_being_port_80():
    assert plain_http_pairs(["127.0.0.1:9100", "standin.test", "[::1]:9100", " Stand.Example:8080 "]) == {
        ("127.0.0.1", 9100),
        ("standin.test", 80),
        ("::1", 9100),
        ("stand.example", 8080),
    }


def test_the_shop_origin_comes_from_settings(settings):
    assert shopify_origin("acme.myshopify.com") == "https://acme.myshopify.com"
    settings.SHOPIFY_API_ORIGIN = "http://127.0.0.1:9100/{shop}/"
    assert shopify_origin("acme.myshopify.com") == "http://127.0.0.1:9100/acme.myshopify.com"


@pytest.mark.parametrize(
    "url",
    [
        "https://0177.0.0.1/wp-json/",
        "https://2130706433/",
        "https://127.0.0.1:9/",
        "https://10.0.0.1:9/",
        "https://[::1]:9/",
        "https://[2002:a9fe:a9fe::]/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[::a9fe:a9fe]/",
    ],
)
def test_an_address_not_called_is_a_platform_error_not_a_crash(settings, url):
    settings.PLATFORM_PLAIN_HTTP_HOSTS = ["127.0.0.1"]

    with pytest.raises(PlatformAPIError):
        check_url(url)
    with pytest.raises(PlatformAPIError):
        send("GET", url)


def test_an_odd_form_of_a_sites_address_is_a_form_error_not_a_crash(settings):
    from attribution.platforms.connect.woocommerce_keys import site_problem

    assert site_problem("https://0177.0.0.1/") != ""
    assert site_problem("https://[2002:a9fe:a9fe::]/") != ""
