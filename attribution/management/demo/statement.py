"""A paid statement of last month at the demo brand, with commissions in three currencies (USD, EUR, GBP), so
the Statements pages show a closed month and its conversions. Made once: a later run finds a paid statement
and leaves billing history alone."""

import json
from datetime import timedelta

from attribution.billing.writers import lock_due_commissions, month_of, pay_statement
from attribution.contract import examples
from attribution.models import Order, Statement
from attribution.orders.confirmation import confirm_order

# order id -> (amount, currency, day of last month it was placed)
ORDERS = {
    "DEMO-STMT-USD-1": ("60.00", "USD", 2),
    "DEMO-STMT-EUR-1": ("150.00", "EUR", 3),
    "DEMO-STMT-GBP-1": ("90.00", "GBP", 4),
}
LOCKED_ON_DAY = 10  # after the orders' return windows (a day each) closed


def keep_paid_statement(brand, *, now) -> dict:
    """The brand's paid statement of last month, made if the brand has no paid statement yet."""
    paid = Statement.objects.filter(brand=brand, state=Statement.State.PAID).order_by("-month").first()
    if paid is None:
        paid = _make(brand, now=now)
    return {"id": paid.pk if paid else None, "month": paid.month.isoformat() if paid else None}


def _make(brand, *, now) -> Statement | None:
    last_month = month_of(now.replace(day=1) - timedelta(days=1))
    start = now.replace(year=last_month.year, month=last_month.month, day=1, hour=12, minute=0, second=0)
    for order_id, (amount, currency, day) in ORDERS.items():
        if Order.objects.filter(brand=brand, order_id=order_id, is_test=False).exists():
            continue
        placed = start + timedelta(days=day - 1)
        body = {
            "orderId": order_id,
            "orderAmount": amount,
            "currency": currency,
            "page_url": examples.PAGE,
            "code": examples.CODE,
            "returnWindowClosesAt": (placed + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        confirm_order(payload=json.loads(json.dumps(body)), received_at=placed)
    lock_due_commissions(now=start + timedelta(days=LOCKED_ON_DAY - 1))
    statement = Statement.objects.filter(brand=brand, month=last_month).first()
    if statement is None:
        return None
    pay_statement(statement_id=statement.pk, at=now)
    statement.refresh_from_db()
    return statement
