"""Counting helpers shared by the health tests: the expected figures come from the raw log."""

from collections import Counter

from health.log.models import OutcomeEvent


def raw_counts(brand, *, start, end, is_test: bool) -> Counter:
    """(endpoint, outcome) -> events of `brand` received in [start, end), counted from the log itself."""
    rows = OutcomeEvent.objects.filter(
        brand=brand, is_test=is_test, received_at__gte=start, received_at__lt=end
    ).values_list("endpoint", "outcome")
    return Counter(rows)


def shown_counts(summary) -> Counter:
    """(endpoint, outcome) -> count as the overview shows it."""
    shown = Counter()
    for line in summary.outcome_lines:
        for endpoint, count in line.by_endpoint.items():
            if count:
                shown[(endpoint, line.code)] += count
    return shown
