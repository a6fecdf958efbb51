"""POST /api/Affiliates/update's fields (docs/api.md)."""

from attribution.outcomes import Outcome

from .fields import AmountField, CurrencyField, FlagField, HostField, OrderIdField
from .requests import DOMAIN_OF_CHANGE, ORDER_ID_OF_CHANGE, TEST_OF_CHANGE, RequestSerializer


class AmountUpdateSerializer(RequestSerializer):
    """An amount update, its fields in the order they are judged: the first that fails decides."""

    order_id = OrderIdField(**ORDER_ID_OF_CHANGE)
    new_order_amount = AmountField(
        allow_zero=True,
        outcome=Outcome.INVALID_ORDER_AMOUNT,
        example=49.9,
        help_text="The order's new total, 0 or more, in the format of orderAmount. Otherwise `invalid_order_amount`.",
    )
    currency = CurrencyField(
        fix="change.currency", example="USD", help_text="The currency of the original order, in any case."
    )
    test = FlagField(**TEST_OF_CHANGE)
    domain = HostField(**DOMAIN_OF_CHANGE)
