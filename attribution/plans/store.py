"""What the order path asks of a plan: price an order under the version in effect, reading the creator's
month only when the plan has a monthly cap or tiers, and the plan currency's rate only when a flat amount or
threshold needs it (docs/plans.md)."""

from datetime import UTC, datetime
from decimal import Decimal

from django.db.models import Count, Sum

from brands.models import PlanVersion

from ..fx import conversion
from ..models import Commission
from .cache import plan_of
from .document import Plan
from .engine import Month, Priced, price

ONE = Decimal(1)


def price_order(
    *, brand, fields, creator_id, at: datetime, exclude_commission: int | None = None, version=None
) -> Priced:
    """The commission `brand`'s plan gives the order `fields` (attribution.orders.decision.Fields) of
    `creator_id` placed at `at`. `version`: a (number, Plan) to price with instead of the one in effect
    (an amount update re-prices with the commission's own)."""
    number, plan = version or plan_of(brand, at, load=stored_document)
    month = None
    if plan.needs_month and creator_id is not None:
        month = month_so_far(
            brand_id=brand.id,
            creator_id=creator_id,
            is_test=fields.is_test,
            currency=fields.currency,
            at=at,
            exclude=exclude_commission,
        )
    return price(
        plan,
        version=number,
        amount=fields.amount,
        currency=fields.currency,
        is_returning_customer=fields.is_returning_customer,
        lines=fields.lines,
        creator_id=creator_id,
        month=month,
        fx=plan_rate(plan, fields.currency, at),
    )


def stored_document(brand_id: int, version: int) -> dict | None:
    """A stored version's document (plan_version_brand_version_unique); read once per process and version."""
    return (
        PlanVersion.objects.filter(brand_id=brand_id, version=version)
        .values_list("document", flat=True)
        .first()
    )


def plan_rate(plan: Plan, currency: str, at: datetime) -> Decimal | None:
    """One unit of the plan's currency in the order's, at the rates of the order's date (those its
    commission locks, attribution.fx); 1 when they are the same, or when no amount of the plan needs it."""
    if plan.currency == currency or not plan.has_amounts:
        return ONE
    return conversion.convert(ONE, plan.currency, to=currency, ordered_at=at).rate


def month_start(at: datetime) -> datetime:
    """The first instant of `at`'s calendar month (UTC, the month statements bill by)."""
    at = at.astimezone(UTC)
    return datetime(at.year, at.month, 1, tzinfo=UTC)


def month_so_far(*, brand_id, creator_id, is_test, currency, at, exclude=None) -> Month:
    """A creator's live commissions of `at`'s month before `at`, in `currency` (commissions in another
    currency do not count towards its caps and tiers)."""
    # commission_brand_time_idx (brand, is_test, created_at).
    rows = Commission.objects.filter(
        brand_id=brand_id,
        is_test=is_test,
        created_at__gte=month_start(at),
        created_at__lt=at,
        creator_id=creator_id,
        currency=currency,
    ).exclude(state=Commission.State.CANCELLED)
    if exclude is not None:
        rows = rows.exclude(pk=exclude)
    found = rows.aggregate(n=Count("id"), revenue=Sum("order_amount"), commission=Sum("amount"))
    return Month(found["n"], found["revenue"] or Decimal(0), found["commission"] or Decimal(0))
