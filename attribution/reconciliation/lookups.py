"""The decision's reads for a batch of book orders, and a book order as the typed order
(attribution.orders.incoming): what the matching's estimate and the apply both judge."""

from django.db.models import F
from django.db.models.functions import Lower

from attribution.contract.serializers import OrderConfirmationSerializer
from attribution.models import Click
from attribution.orders.incoming import IncomingOrder
from attribution.orders.lines import OrderLines, lines_from_text
from attribution.orders.lookups import Lookups
from attribution.outcomes import Outcome, field_error
from attribution.parsing import FieldError, parse_amount, parse_optional_text
from brands.models import Brand, DiscountCode
from brands.resolution import resolve_known

MAX_CODE_LENGTH = OrderConfirmationSerializer.rules["code"].max_length


class BookLookups(Lookups):
    """The decision's reads for a batch of book orders, made once for the batch. A book names no shopper."""

    def __init__(self, brand_id: int, book_orders: list):
        self.brand_id = brand_id
        click_ids = {o.click_id for o in book_orders if o.click_id}
        codes = {o.code.lower() for o in book_orders if o.code}
        self.clicks = (
            {
                click.click_id: click
                for click in Click.objects.filter(click_id__in=click_ids).annotate(
                    creator_is_active=F("creator__is_active"),
                    creator_name=F("creator__name"),
                    creator_email_hash=F("creator__email_hash"),  # issue 38: the self_referral rule
                    property_host=F("property__host"),
                )
            }
            if click_ids
            else {}
        )
        self.codes = (
            {
                code.code.lower(): code
                for code in DiscountCode.objects.annotate(
                    lowered=Lower("code"),
                    creator_is_active=F("creator__is_active"),
                    creator_name=F("creator__name"),
                    creator_email_hash=F("creator__email_hash"),  # issue 38: the self_referral rule
                ).filter(brand_id=brand_id, lowered__in=codes)
            }
            if codes
            else {}
        )

    def click(self, click_id):
        return self.clicks.get(click_id)

    def code(self, brand_id, code):
        return self.codes.get(code.lower())

    def shopper(self, brand_id, email_hash):
        return None

    def host_for(self, row, primary: str) -> str:
        """The host a book order is judged on: its click's property when the click is the brand's (a book
        does not say which storefront took the order; the click's is where the shopper went), else the
        brand's primary property."""
        click = self.clicks.get(row.click_id) if row.click_id else None
        if click is not None and click.brand_id == self.brand_id and click.property_host:
            return click.property_host
        return primary


def book_order(row, *, host: str, brand_id: int) -> tuple[IncomingOrder | None, tuple | None]:
    """A book order as the typed order the decision judges, built once (`row` is a BookOrder or a stored
    BookRow, its cells read by the book reader; `host` from BookLookups.host_for): the order, or None with the
    outcome and sentence of the value the order confirmation's rules refuse."""
    for name, value, outcome, rule in (
        (
            "orderAmount",
            row.amount,
            Outcome.INVALID_ORDER_AMOUNT,
            lambda value: parse_amount(value, allow_zero=False),
        ),
        (
            "code",
            row.code or None,
            Outcome.INVALID_PARAMS,
            lambda value: parse_optional_text(value, max_length=MAX_CODE_LENGTH),
        ),
    ):
        try:
            rule(value)
        except FieldError as exc:
            return None, (outcome, field_error(name, "is missing" if value is None else str(exc)))
    return (
        IncomingOrder(
            order_id=row.order_id,
            amount=row.amount,
            currency=row.currency,
            is_test=row.is_test,
            is_returning_customer=False,
            click_id=row.click_id or None,
            code=row.code or None,
            email_hash=None,
            return_window_closes_at=None,
            lines=row.lines if isinstance(row.lines, OrderLines) else lines_from_text(row.lines),
            resolution=resolve_known(host, brand_id),
        ),
        None,
    )


def host_of(brand: Brand) -> str:
    """The brand's primary property's host, or "" without one: the host a book order is judged on by default."""
    prop = brand.primary_property()
    return prop.host if prop is not None else ""
