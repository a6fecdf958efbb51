"""POST /api/order_confirmation's fields (docs/api.md)."""

from attribution.contract import examples
from attribution.outcomes import Outcome

from .fields import (
    AmountField,
    ClickIdField,
    CurrencyField,
    EmailHashField,
    FlagField,
    HostField,
    OptionalTextField,
    OrderIdField,
    TimestampField,
)
from .items import ItemsField
from .requests import RequestSerializer
from .requests import optional as _optional


class OrderConfirmationSerializer(RequestSerializer):
    """An order confirmation, its fields in the order they are judged: the first that fails decides."""

    orderId = OrderIdField(
        outcome=Outcome.INVALID_ORDER_ID,
        example=int(examples.FIELD_ORDER),
        help_text='Your id of the order: a whole number, or a string (trimmed, 1-255 characters). 123 and "123" '
        "are the same order. Otherwise `invalid_order_id`.",
    )
    orderAmount = AmountField(
        allow_zero=False,
        outcome=Outcome.INVALID_ORDER_AMOUNT,
        example=59.9,
        help_text='The order total: a number, or a string holding only a plain decimal number ("59.90"). '
        "Kept to 6 decimal places (rounded half-up), then greater than 0 and below 10^12. "
        "Otherwise `invalid_order_amount`.",
    )
    currency = CurrencyField(
        example="USD",
        help_text="An ISO 4217 code with minor units, in any case. Otherwise `invalid_params`.",
    )
    page_url = HostField(
        example=examples.PAGE,
        help_text="The URL of the page sending the event; its host must be one of your registered properties "
        "(else `unresolved_domain`). `domain`, when sent, is used instead.",
    )
    test = FlagField(
        **_optional(example=False),
        help_text='A test event: counted apart, never billed. true or false (or "true"/"false").',
    )
    is_returning_customer = FlagField(
        **_optional(example=False),
        help_text='The shopper has ordered before: your returning-customer rate applies. true or false (or "true"/"false").',
    )
    code = OptionalTextField(
        max_length=100,
        **_optional(example=examples.CODE),
        help_text='The discount code used, at most 100 characters; null or "" for none.',
    )
    customer_email = EmailHashField(
        **_optional(example="shopper@example.com"),
        help_text="The shopper's address, for known-shopper attribution: hashed on arrival, never stored.",
    )
    clickId = ClickIdField(
        outcome=Outcome.MALFORMED_CLICK_ID,
        **_optional(example=examples.CLICK),
        help_text='The sms_click_id cookie exactly as stored; null or "" for none. Otherwise `malformed_click_id`.',
    )
    returnWindowClosesAt = TimestampField(
        **_optional(example="2026-12-24T00:00:00Z"),
        help_text="When the return window closes: ISO 8601 (UTC without an offset; also 20261224) or Unix "
        "epoch seconds or milliseconds, as a number or a string. A value that cannot be read is left out "
        "and the event kept, with a warning on your health pages.",
    )
    domain = HostField(
        **_optional(example=examples.HOST),
        help_text="Your storefront's host, for when page_url cannot carry it; when not blank it is used "
        "instead of page_url's host.",
    )
    items = ItemsField(
        **_optional(
            example=[
                {
                    "sku": "SHIRT-L",
                    "product_id": "8123",
                    "quantity": 2,
                    "amount": "39.90",
                    "collections": ["summer"],
                },
                {"sku": "BELT-01", "quantity": 1, "amount": 20},
            ]
        ),
        help_text="The order's lines, for a commission plan that pays per product (optional): each "
        '{"sku", "product_id", "quantity", "amount", "collections"}, `amount` the line\'s total after '
        "discounts, before tax. Items that cannot be read never refuse the order: they are ignored, the order "
        "is judged on orderAmount alone, and the answer and your health pages say why.",
    )
