"""click_reuse: more orders from one click than a shopper makes: beyond the brand's number within the hour
before this order, the extra orders are held. The one rule with a probe of its own: the click's orders of
that hour, counted up to the limit on the order's click index."""

from datetime import timedelta

from django.db import connections

from ...models import Attribution, Order, Rule

RULE = Rule.CLICK_REUSE

# Served by the index of the order's click foreign key (a click has few orders); LIMIT stops at the limit.
_RECENT = (
    f"SELECT COUNT(*) FROM (SELECT 1 FROM {Order._meta.db_table} "
    "WHERE click_id = %s AND received_at > %s AND received_at <= %s LIMIT %s) recent"
)


def orders_of_click_in_hour(click_pk: int, at, limit: int) -> int:
    """The click's orders received in the hour up to `at`, counted up to `limit`."""
    with connections["default"].cursor() as cursor:
        cursor.execute(_RECENT, [click_pk, at - timedelta(hours=1), at, limit])
        return cursor.fetchone()[0]


def judge(case, review) -> str | None:
    if case.attribution != Attribution.CLICK or case.click_pk is None:
        return None
    limit = review.click_reuse_per_hour
    count = orders_of_click_in_hour(case.click_pk, case.at, limit)
    if count < limit:
        return None
    return (
        f"click {case.click_id}: {count} orders from it in the hour before this one already; "
        f"a shopper makes at most {limit}"
    )
