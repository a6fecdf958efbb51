"""A storefront platform's order converts at the rates of the day the shop says it was placed (its
`created_at`), not of the day its webhook arrived (docs/currencies.md)."""

from decimal import Decimal

from attribution.management.demo.standin.webhook_bodies import body_of
from attribution.management.demo.standin.webhook_bodies.shopify import shopify_order
from attribution.models import Commission
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify
from tests.factories import ClickFactory

from .conftest import THURSDAY


def test_a_shopify_order_converts_at_the_rate_of_its_created_at(rates, client, prop, creator):
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    click = ClickFactory(property=prop, creator=creator)
    raw = body_of(
        shopify_order(
            currency="EUR",
            note_attributes=[("sms_click_id", click.click_id)],
            created_at="2026-10-29T15:00:00+02:00",  # Thursday in Frankfurt; the webhook comes weeks later
        )
    )

    response = post_shopify(client, raw, webhook_id="fx-1")

    assert response.json()["outcome"] == "tracked"
    commission = Commission.objects.get()
    assert (commission.currency, commission.fx_rate_date, commission.fx_rate) == ("EUR", THURSDAY, "1.12")
    assert commission.reporting_amount == (commission.amount * Decimal("1.12")).quantize(Decimal("0.01"))
