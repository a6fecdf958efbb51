"""The demo brand's orders in other currencies than its reporting one (docs/currencies.md): an EUR and a GBP
order attributed by the demo code, so the Creators page, a statement and the read API show conversions at
the ECB rate of each order's date. Made once; a later run keeps them (their rates stay locked)."""

import json
from datetime import timedelta

from attribution.contract import examples
from attribution.models import Order
from attribution.orders.confirmation import confirm_order

# order id -> (amount, currency, days before the run it was placed)
ORDERS = {
    "DEMO-FX-EUR-1": ("120.00", "EUR", 3),
    "DEMO-FX-GBP-1": ("80.00", "GBP", 2),
}


def keep_fx_orders(brand, *, now) -> dict:
    """Make the demo's foreign-currency orders that are missing; what the demo document says of them."""
    for order_id, (amount, currency, days) in ORDERS.items():
        if Order.objects.filter(brand=brand, order_id=order_id, is_test=False).exists():
            continue
        body = {
            "orderId": order_id,
            "orderAmount": amount,
            "currency": currency,
            "page_url": examples.PAGE,
            "code": examples.CODE,
        }
        confirm_order(payload=json.loads(json.dumps(body)), received_at=now - timedelta(days=days))
    return {"reporting_currency": brand.reporting_currency_now(), "orders": list(ORDERS)}
