"""Each outcome code as the pages group and label it: the overview's stacked groups, an outcome's label and
fix as the endpoint that answered it says them (the events list, an event, an order, the setup page)."""

from attribution import outcomes
from attribution.outcomes import Outcome, OutcomeInfo
from attribution.outcomes.endpoints import ORDER_ENDPOINTS, Endpoint, counts_as_order

# Outcome groups, in the order they are stacked in the chart (bottom first). "Tracked" is tracked orders
# (order confirmations and platforms' orders), as on the Tracked card; a cancel or update that took effect,
# by the API or a platform's webhook, is "changed".
TRACKED, CHANGED, INFO, ACTION, SERVICE = "tracked", "changed", "info", "action", "service"
GROUPS = [
    (TRACKED, "Tracked orders"),
    (CHANGED, "Cancels and updates applied"),
    (INFO, "Informational"),
    (ACTION, "Needs your action"),
    (SERVICE, "Service side"),
]
GROUP_LABELS = dict(GROUPS)


def info_of(code: str, endpoint: str) -> OutcomeInfo | None:
    """The outcome's status, label and fix as `endpoint` answered it (attribution.outcomes.info). The
    endpoint is required: the same code means something else on each (a tracked cancel attributed nothing)."""
    return outcomes.info(code, endpoint)


def group_of(code: str, endpoint: str = Endpoint.ORDER_CONFIRMATION) -> str:
    if code == Outcome.TRACKED:
        return TRACKED if endpoint in ORDER_ENDPOINTS else CHANGED
    info = info_of(code, endpoint)
    if info is None:
        return INFO
    if info.service_side:
        return SERVICE
    return ACTION if info.needs_action else INFO


def is_accepted_order(code: str, endpoint: str) -> bool:
    """An order the service took and judged, by the order confirmation or a platform's order webhook: a 2xx
    answer that is not a service-side fault (a fault's event is counted when it is replayed). Duplicates and
    unreadable orders are not; nor an order confirmation handed to the platform's webhook, whose order counts
    once, as the platform's (attribution.outcomes.endpoints.counts_as_order)."""
    info = info_of(code, endpoint)
    if not counts_as_order(endpoint, code) or info is None:
        return False
    # The outcome's own status: a platform's unreadable order, answered 200 (a retry would bring the same
    # payload), is rejected all the same.
    return info.success and not info.service_side
