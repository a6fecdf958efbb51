"""What the floors answer: the HTTP status of each outcome and the project's sentences, so that the
answers and the outcome rows weigh what the project's do."""

from typing import NamedTuple

STATUS = {
    "tracked": 200,
    "no_attribution": 200,
    "already_cancelled": 200,
    "order_not_found": 200,
    "duplicate_order": 400,
    "invalid_order_amount": 400,
    "invalid_order_id": 400,
    "invalid_params": 400,
    "unresolved_domain": 400,
    "unauthorized": 401,
}

# The sentences the project answers for the same outcomes, so the outcome rows weigh the same.
TRACKED_ORDER = "Order attributed; a commission was created."
NO_ATTRIBUTION = "Order recorded; it matched no click, discount code or known shopper."
DUPLICATE = "Order {} was already received; this repeat was ignored. Fix: send each order once."
CANCELLED = "The commission of order {} was cancelled."
ALREADY_CANCELLED = "The commission of order {} was already cancelled."
CANCELLED_NOT_UPDATED = "The commission of order {} is cancelled; its amount was not changed."
UPDATED = "The commission of order {} now follows the new total {} {}."
NOT_FOUND = "No commission for {} order {} (usually the order was not attributed)."
WRONG_CURRENCY = "currency {} differs from the order's. Fix: send the new total in the order's currency."


class Answer(NamedTuple):
    status: int
    body: dict


def envelope(outcome: str, text: str) -> dict:
    ok = STATUS[outcome] < 400
    return {"success": ok, "outcome": outcome, "message" if ok else "error": text}
