"""click_reuse: more orders from one click than a shopper makes: beyond the brand's number within the hour
before this order, the extra orders are held. The click's orders of that hour are read with the click itself
(ORDERS_IN_HOUR, a column of attribution.orders.lookups' click lookup); only a decision whose lookups do not read it
(a reconciliation's batch) probes for them, on the order's click index, counted up to the limit."""

from datetime import timedelta

from django.db import connections
from django.utils import timezone

from ...models import Attribution, Order, Rule

RULE = Rule.CLICK_REUSE

# Served by the index of the order's click foreign key (a click has few orders); LIMIT stops at the limit.
_RECENT = (
    f"SELECT COUNT(*) FROM (SELECT 1 FROM {Order._meta.db_table} "
    "WHERE click_id = %s AND received_at > %s AND received_at <= %s LIMIT %s) recent"
)


WINDOW = timedelta(hours=1)
# The click's orders received since a moment (its parameter): a column of the click lookup (`click` is the
# lookup's alias). Counted up to 1000: the limit a brand may set stays below it.
ORDERS_IN_HOUR = (
    f"(SELECT COUNT(*) FROM (SELECT 1 FROM {Order._meta.db_table} o "
    "WHERE o.click_id = click.id AND o.received_at > %s LIMIT 1000) recent)"
)


def hour_before_now():
    return timezone.now() - WINDOW


def orders_of_click_in_hour(click_pk: int, at, limit: int) -> int:
    """The click's orders received in the hour up to `at`, counted up to `limit`."""
    with connections["default"].cursor() as cursor:
        cursor.execute(_RECENT, [click_pk, at - timedelta(hours=1), at, limit])
        return cursor.fetchone()[0]


def judge(case, review) -> str | None:
    if case.attribution != Attribution.CLICK or case.click_pk is None:
        return None
    limit = review.click_reuse_per_hour
    count = case.click_orders_in_hour
    if count is None:  # read without the click's own column (a reconciliation): probe
        count = orders_of_click_in_hour(case.click_pk, case.at, limit)
    if count < limit:
        return None
    return (
        f"click {case.click_id}: {count} orders from it in the hour before this one already; "
        f"a shopper makes at most {limit}"
    )
