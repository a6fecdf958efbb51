"""The one client every outbound call goes through (docs/architecture.md, "Calls out"): a platform's API, an
alert webhook, the ECB's rates. Private addresses refused, no redirects, a total deadline, a capped body, bounded
retries; tests route it with `route` (tests/outbound_double.py)."""

from .addresses import address_allowed, host_problem
from .client import Policy, budget, budget_left, check_url, request, route
from .errors import AnswerTooLarge, BadAnswer, DeadlineExceeded, OutboundError, Refused, Unreachable

__all__ = [
    "AnswerTooLarge",
    "BadAnswer",
    "DeadlineExceeded",
    "OutboundError",
    "Policy",
    "Refused",
    "Unreachable",
    "address_allowed",
    "budget",
    "budget_left",
    "check_url",
    "host_problem",
    "request",
    "route",
]
