"""What a platform's notice is answered, whatever it asked: the result in the notice's brand, 200 for an order
the service cannot read (its retry would bring the same payload), and the field rules' refusals worded in the
platform's own names for the fields.
"""

from attribution.outcomes import Outcome, Result
from attribution.parsing import FieldError, parse_amount, parse_currency, parse_order_id

from .notices import OrderNotice


def result_of(notice: OrderNotice, outcome: Outcome, text: str, *, order_id: str | None = None) -> Result:
    return Result(
        outcome,
        text,
        brand_id=notice.brand_id,
        order_id=notice.order_id_shown() if order_id is None else order_id,
        is_test=bool(notice.order and notice.order.is_test),
        warnings=list(notice.warnings),
    )


def answered_200(result: Result) -> Result:
    """An order the service cannot read is answered 200 on a platform's receiver: its retry would bring the
    same payload (docs/decisions.md, "Storefront platforms: the deliveries' answers")."""
    if result.http_status >= 400:
        result.status = 200
    return result


def unreadable(notice: OrderNotice, *, zero_amount: bool) -> Result | None:
    """The order id, amount and currency by the order confirmation's field rules, in its order, worded with
    the platform's names for them; None when all three can be read."""
    order = notice.order
    for name, outcome, rule in (
        ("order_id", Outcome.INVALID_ORDER_ID, parse_order_id),
        ("amount", Outcome.INVALID_ORDER_AMOUNT, lambda value: parse_amount(value, allow_zero=zero_amount)),
        ("currency", Outcome.INVALID_PARAMS, parse_currency),
    ):
        value = getattr(order, name)
        try:
            rule(value)
        except FieldError as exc:
            problem = "is missing" if value is None else str(exc)
            return refused(notice, outcome, f"The order's {order.names.get(name, name)}", problem)
    return None


def refused(notice: OrderNotice, outcome: Outcome, name: str, problem: str) -> Result:
    return answered_200(result_of(notice, outcome, f"{name} {problem}."))
