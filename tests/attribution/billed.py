"""Shared setup of the billing tests: commissions made pending with a known return window, so a test
locks them with `lock_due_commissions(now=...)` at the time it chooses, and cancels and updates sent
through the services at a chosen time."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from attribution.models import Commission
from attribution.orders import changes
from tests import factories

OCT_10 = datetime(2026, 10, 10, 9, 0, tzinfo=UTC)
OCT_20 = datetime(2026, 10, 20, 9, 0, tzinfo=UTC)
NOV_03 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
NOV_12 = datetime(2026, 11, 12, 15, 30, tzinfo=UTC)
DEC_02 = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)
# The statements' months of those days.
OCTOBER, NOVEMBER = date(2026, 10, 1), date(2026, 11, 1)


def pending(
    brand, order_id, *, creator, amount, currency="USD", closes_at=OCT_10, is_test=False
) -> Commission:
    """A pending commission of `amount` whose order's return window closes at `closes_at`."""
    order = factories.OrderFactory(
        brand=brand,
        order_id=order_id,
        amount=Decimal(amount) * 10,
        currency=currency,
        is_test=is_test,
        received_at=closes_at - timedelta(days=30),
        return_window_closes_at=closes_at,
    )
    return factories.CommissionFactory(
        order=order,
        creator=creator,
        amount=Decimal(amount),
        order_amount=Decimal(amount) * 10,
        rate_percent=Decimal("10"),
        created_at=order.received_at,
        updated_at=order.received_at,
    )


def cancel(key, order_id, *, at, request_id="req-cancel"):
    return changes.cancel_commission(
        key=key, payload={"order_id": order_id}, received_at=at, request_id=request_id
    )


def update(key, order_id, total, *, at, currency="USD", request_id="req-update"):
    body = {"order_id": order_id, "new_order_amount": total, "currency": currency}
    return changes.update_commission(key=key, payload=body, received_at=at, request_id=request_id)


def fresh(commission: Commission) -> Commission:
    return Commission.objects.get(pk=commission.pk)
