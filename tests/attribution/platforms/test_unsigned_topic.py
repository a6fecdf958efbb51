"""The topic header is not signed (docs/threat-model.md, "The platforms' webhooks"): a signed body sent again
under another topic must not do what that topic asks. A Shopify order is cancelled only when its body is
cancelled, refunded or voided; WooCommerce's order.deleted, whose body is only an id, cancels only an order
the same connection delivered."""

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, woocommerce_order
from attribution.models import Commission
from health.log.models import OutcomeEvent
from tests.attribution.keyed import commission_for
from tests.attribution.platforms.conftest import WOO_SECRET, connect
from tests.factories import ClickFactory, PropertyFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def tracked(shopify, shop, prop, creator):
    """Acme's Shopify order, attributed: its signed orders/create body is what an attacker replays."""
    click = ClickFactory(property=prop, creator=creator)
    raw = body_of(shopify_order(note_attributes=[("sms_click_id", click.click_id)]))
    assert shopify("orders/create", body=raw).json()["outcome"] == "tracked"
    return raw


def test_a_signed_orders_create_replayed_as_orders_cancelled_cancels_nothing(shopify, tracked):
    answer = shopify("orders/cancelled", body=tracked)  # a new webhook id: no redelivery

    assert (answer.status_code, answer.json()["outcome"]) == (200, "ignored")
    assert "its body is not cancelled, refunded or voided: nothing was cancelled" in answer.json()["message"]
    assert Commission.objects.get().state == "pending"
    assert OutcomeEvent.objects.order_by("-id").first().outcome == "ignored"


@pytest.mark.parametrize(
    "body",
    [
        {"cancelled_at": "2026-11-25T09:00:00Z"},
        {"financial_status": "refunded"},
        {"financial_status": "voided"},
    ],
    ids=["cancelled", "refunded", "voided"],
)
def test_orders_cancelled_cancels_when_its_body_says_so(shopify, tracked, body):
    answer = shopify("orders/cancelled", shopify_order(updated_at="2026-11-25T09:00:00Z", **body))

    assert answer.json()["outcome"] == "tracked"
    assert Commission.objects.get().state == "cancelled"


def test_order_deleted_of_an_order_this_site_never_delivered_cancels_nothing(woocommerce, site, brand):
    commission_for(brand, order_id="727")  # the order came another way

    answer = woocommerce("order.deleted", {"id": 727})

    assert (answer.status_code, answer.json()["outcome"]) == (200, "ignored")
    assert "this site's webhook never delivered it" in answer.json()["message"]
    assert Commission.objects.get().state == "pending"


def test_order_deleted_from_another_site_of_the_brand_cancels_nothing(
    woocommerce, site, brand, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))
    outlet = PropertyFactory(brand=brand, host="outlet.acme.example")
    connect(outlet, platform="woocommerce", shop_domain="outlet.acme.example", secret=WOO_SECRET)

    answer = woocommerce("order.deleted", {"id": 727}, x_wc_webhook_source="https://outlet.acme.example/")

    assert answer.json()["outcome"] == "ignored"
    assert "this site's webhook never delivered it" in answer.json()["message"]
    assert Commission.objects.get().state == "pending"


def test_order_deleted_of_an_order_this_site_delivered_cancels_it(woocommerce, site, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    woocommerce("order.created", woocommerce_order(meta=[("sms_click_id", click.click_id)]))

    answer = woocommerce("order.deleted", {"id": 727})

    assert answer.json()["outcome"] == "tracked"
    assert Commission.objects.get().state == "cancelled"
