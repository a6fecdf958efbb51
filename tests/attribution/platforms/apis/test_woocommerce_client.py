"""The WooCommerce REST client against the stand-in: the site's index, webhooks, retries and a revoked key."""

import pytest

from attribution.platforms.apis.errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable
from attribution.platforms.apis.woocommerce import RETRIES, WooCommerceREST

SLUG = "globex"


@pytest.fixture
def site(standin):
    return standin.add_site(SLUG, name="Globex", timezone="Europe/Berlin")


@pytest.fixture
def waits():
    return []


def client_for(standin, waits, permissions="read_write"):
    key, secret, _ = standin.issue_keys(SLUG, permissions)
    return WooCommerceREST(standin.site_url(SLUG), key, secret, sleep=waits.append)


def test_site_info_gives_the_sites_home(standin, site, waits):
    info = client_for(standin, waits).site_info()

    assert info["home"] == "http://standin.test/woo/globex"
    assert info["timezone_string"] == "Europe/Berlin"


def test_it_makes_a_webhook_lists_it_and_enables_it_again(standin, site, waits):
    woo = client_for(standin, waits)

    made = woo.create_webhook("order.updated", "https://service.example/api/platforms/woocommerce", "s3cret")
    standin.disable_webhook(SLUG, "order.updated")
    assert [w["id"] for w in woo.webhooks(status="disabled")] == [made["id"]]

    assert woo.enable_webhook(made["id"])["status"] == "active"
    assert woo.webhooks(status="disabled") == []
    assert site.webhook_secrets[made["id"]] == "s3cret"


def test_a_read_key_cannot_make_webhooks(standin, site, waits):
    woo = client_for(standin, waits, permissions="read")

    with pytest.raises(CredentialRevoked, match="write permissions"):
        woo.create_webhook("order.updated", "https://service.example/hook", "s3cret")
    assert site.webhooks == []


def test_5xx_then_success(standin, site, waits):
    woo = client_for(standin, waits)
    standin.fail_next(SLUG, 2, status=500)

    assert woo.webhooks() == []
    assert waits == [1.0, 2.0]


def test_a_429_is_retried_with_backoff(standin, site, waits):
    woo = client_for(standin, waits)
    standin.fail_next(SLUG, 1, status=429)

    assert woo.webhooks() == []
    assert waits == [1.0]


def test_5xx_after_every_retry_is_unavailable(standin, site, waits):
    woo = client_for(standin, waits)
    standin.fail_next(SLUG, RETRIES + 5)

    with pytest.raises(PlatformUnavailable):
        woo.webhooks()
    assert len(waits) == RETRIES


def test_a_post_answered_5xx_is_not_retried_for_it_may_have_been_done(standin, site, waits):
    woo = client_for(standin, waits)
    standin.fail_next(SLUG, 1, status=503)

    with pytest.raises(PlatformUnavailable, match="answered 503$"):
        woo.create_webhook("order.updated", "https://service.example/api/platforms/woocommerce", "s3cret")
    assert waits == []


def test_a_revoked_key_is_credential_revoked_after_trying_the_query_parameters(standin, site, waits):
    woo = client_for(standin, waits)
    standin.revoke(SLUG)

    with pytest.raises(CredentialRevoked, match="401"):
        woo.webhooks()
    listed = [call for call in standin.calls if call[1].endswith("/webhooks")]
    assert len(listed) == 2  # Basic, then the keys as query parameters
    assert waits == []


def test_keys_in_the_query_work_when_a_server_drops_the_authorization_header(standin, site, waits):
    woo = client_for(standin, waits)
    real_send = woo._send

    def dropping_authorization(method, url, **kwargs):
        kwargs.pop("auth", None)
        return real_send(method, url, auth=None, **kwargs)

    woo._send = dropping_authorization

    assert woo.webhooks() == []


def test_plain_http_is_refused_unless_the_host_is_listed(standin, waits):
    with pytest.raises(PlatformAPIError, match="https only"):
        WooCommerceREST("http://shop.example", "ck_x", "cs_x")
    assert WooCommerceREST("https://shop.example", "ck_x", "cs_x").site_url == "https://shop.example"
