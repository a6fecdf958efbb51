"""The review rules meet a storefront platform's order in the same decision as an order confirmation
(docs/review.md): the code_leak rule reads the Shopify order's referring site and the referrer WooCommerce's
order attribution recorded, the disposable_email rule the verdict taken on the platform's address before it
was hashed."""

import json

import pytest

from attribution.durability import spool
from attribution.management.demo.standin.webhook_bodies import shopify_order, woocommerce_order
from attribution.models import Commission, CommissionHold, Order, ReviewSettings
from attribution.replay import replay_all
from tests.factories import ClickFactory, DiscountCodeFactory
from tests.faults import failing_writes_to

pytestmark = pytest.mark.django_db


def leaked(referring_site: str, **fields) -> dict:
    document = shopify_order(codes=[("ANA10", "5.99")], **fields)
    document["referring_site"] = referring_site
    return document


def test_a_code_only_order_referred_by_a_coupon_site_is_held(shopify, shop, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    response = shopify("orders/create", leaked("https://www.retailmenot.com/view/acme.example"))

    assert response.json()["outcome"] == "tracked"
    commission = Commission.objects.get()
    assert commission.state == Commission.State.HELD
    detail = (
        f"code ANA10: the order came without a click from {creator.name}, referred by retailmenot.com, "
        "a coupon or deal site on the brand's list"
    )
    assert list(CommissionHold.objects.values_list("rule", "detail")) == [("code_leak", detail)]
    assert Order.objects.get().trace[-1] == {"signal": "review", "result": "code_leak", "detail": detail}


def test_a_code_only_order_referred_by_the_creators_own_channel_is_not_held(shopify, shop, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    shopify("orders/create", leaked("https://www.instagram.com/ana"))

    assert Commission.objects.get().state == Commission.State.PENDING
    assert not CommissionHold.objects.exists()


def test_a_woocommerce_code_only_order_referred_by_a_coupon_site_is_held(woocommerce, site, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    referred = woocommerce_order(
        coupons=[("ana10", "5.99")],
        meta=[
            ("_wc_order_attribution_source_type", "referral"),
            ("_wc_order_attribution_referrer", "https://www.retailmenot.com/view/acme.example"),
        ],
    )

    response = woocommerce("order.created", referred)

    assert response.json()["outcome"] == "tracked"
    assert Commission.objects.get().state == Commission.State.HELD
    hold = CommissionHold.objects.get()
    assert (hold.rule, "referred by retailmenot.com" in hold.detail) == ("code_leak", True)


def test_a_woocommerce_order_without_a_recorded_referrer_is_not_held(woocommerce, site, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    woocommerce("order.created", woocommerce_order(coupons=[("ana10", "5.99")]))

    assert Commission.objects.get().state == Commission.State.PENDING
    assert not CommissionHold.objects.exists()


def test_a_brand_may_add_its_own_coupon_sites(shopify, shop, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    ReviewSettings.objects.create(brand=prop.brand, coupon_domains="vouchers.example\n")

    shopify("orders/create", leaked("https://deals.vouchers.example/acme"))

    assert CommissionHold.objects.get().rule == "code_leak"


def test_a_platform_order_from_a_throwaway_address_is_held(shopify, shop, prop, creator):
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)

    shopify("orders/create", leaked("", email="someone@mailinator.com"))

    assert CommissionHold.objects.get().rule == "disposable_email"


def test_a_spooled_platform_order_from_a_throwaway_address_is_held_when_replayed(
    shopify, shop, prop, creator
):
    click = ClickFactory(property=prop, creator=creator)
    with failing_writes_to("attribution_order"):
        shopify(
            "orders/create",
            shopify_order(note_attributes=[("sms_click_id", click.click_id)], email="someone@mailinator.com"),
        )
    [entry] = spool.pending()
    assert "mailinator" not in json.dumps(entry.document)

    replay_all()

    assert CommissionHold.objects.get().rule == "disposable_email"
