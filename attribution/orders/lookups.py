"""What the decision reads besides the brand: the click, the discount code and the known shopper an order
confirmation names, one query each."""

from brands.models import Creator, DiscountCode, KnownShopper
from config.lib.sql import SelectStatement

from ..models import Click
from ..review.rules import click_reuse

# The click and code lookups of every attributed order, written out (config.lib.sql): a queryset
# with select_related costs ~0.5 ms of Python to compile per call.
_click = SelectStatement(
    Click,
    "click",
    f"FROM {Click._meta.db_table} click JOIN {Creator._meta.db_table} creator ON creator.id = click.creator_id "
    "WHERE click.click_id = %s",
    extra={
        "creator_is_active": "creator.is_active",
        "creator_name": "creator.name",
        "creator_email_hash": "creator.email_hash",
        # issue 38, the click_reuse rule: the click's orders of the last hour, read with the click (no round
        # trip of its own), on the order's click index; its one parameter comes before the click id.
        "orders_in_hour": click_reuse.ORDERS_IN_HOUR,
    },
)
# LOWER(code) as in the unique constraint code_unique_ci_per_brand, whose index it uses; both sides are
# lowered by the database, so a code matches exactly when the constraint would call it the same code.
_discount_code = SelectStatement(
    DiscountCode,
    "code",
    f"FROM {DiscountCode._meta.db_table} code "
    f"LEFT JOIN {Creator._meta.db_table} creator ON creator.id = code.creator_id "
    "WHERE code.brand_id = %s AND LOWER(code.code) = LOWER(%s)",
    extra={
        "creator_is_active": "creator.is_active",
        "creator_name": "creator.name",
        "creator_email_hash": "creator.email_hash",
    },
)


class Lookups:
    """What the decision reads besides the brand: a click, a discount code and a known shopper, one query
    each. A reconciliation hands a subclass that read them for many book orders at once."""

    def click(self, click_id: str) -> Click | None:
        """The click, with creator_is_active, creator_name, creator_email_hash and orders_in_hour."""
        return _click([click_reuse.hour_before_now(), click_id])

    def code(self, brand_id: int, code: str) -> DiscountCode | None:
        """The brand's code, case-insensitively, with creator_is_active and creator_name."""
        return _discount_code([brand_id, code])

    def shopper(self, brand_id: int, email_hash: str) -> KnownShopper | None:
        return (
            KnownShopper.objects.select_related("creator")
            .filter(brand_id=brand_id, email_hash=email_hash, creator__is_active=True)
            .first()
        )
