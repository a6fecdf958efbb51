"""The newest event of a brand with one property, probed on the log's own index for it.

The outcome log has indexes on (brand, endpoint, -received_at), (brand, outcome, -received_at) and
(brand, is_test, -received_at), and one on received_at alone. Asked for `endpoint = 'update' ORDER BY
received_at DESC LIMIT 1`, PostgreSQL drops the fixed column from the order and may choose to walk
received_at alone, filtering by brand: cheap while the brand is most of a month, ruinous for every other
brand (26 minutes for the alert facts of 1,000 brands beside one of 30M events; 7 ms instead of a fraction
of one for the big brand itself, as every month's partition is entered). Written as a one-value range and
ordered by (that column, -received_at), the order is one that only the brand's composite index gives, so
each partition is entered at the brand's newest matching entry (docs/performance.md, "A plan for every
brand").
"""

from django.db.models import QuerySet


def newest_first(events: QuerySet, **equals) -> QuerySet:
    """`events` (already narrowed to one brand) with `column=value` for the one column of a composite
    index, newest first."""
    [(column, value)] = equals.items()
    return events.filter(**{f"{column}__gte": value, f"{column}__lte": value}).order_by(
        column, "-received_at"
    )
