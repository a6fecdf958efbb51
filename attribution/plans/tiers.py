"""Retroactive tiers (docs/plans.md, "Tiers"): when a creator's month reached a tier marked `retroactive`, her
earlier orders of that month are owed the difference between the tier's rate and the rate that priced them.
It is paid as one adjustment line on that month's statement when the statement is paid (attribution.billing);
the commissions themselves, paid or not, are never edited for it."""

from collections import defaultdict
from datetime import UTC, datetime
from decimal import Decimal

from ..models import Adjustment, Commission, Statement
from ..money import in_minor_units

HUNDRED = Decimal(100)


def settle(statement: Statement, *, at: datetime) -> list[Adjustment]:
    """The adjustments a statement's month owes for retroactive tiers, written on `statement` (once: a
    statement paid twice finds them there). Called inside the payment's transaction."""
    start = datetime(statement.month.year, statement.month.month, 1, tzinfo=UTC)
    end = datetime(start.year + (start.month == 12), start.month % 12 + 1, 1, tzinfo=UTC)
    # commission_brand_time_idx (brand, is_test, created_at).
    rows = (
        Commission.objects.filter(
            brand_id=statement.brand_id, is_test=False, created_at__gte=start, created_at__lt=end
        )
        .exclude(state=Commission.State.CANCELLED)
        .exclude(calculation=None)
        .order_by("created_at", "pk")
        .only("pk", "creator_id", "currency", "calculation", "created_at", "brand_id")
    )
    by_creator: dict[tuple[int, str], list[Commission]] = defaultdict(list)
    for commission in rows:
        by_creator[(commission.creator_id, commission.currency)].append(commission)
    settled = set(
        Adjustment.objects.filter(statement=statement, reason=Adjustment.Reason.TIER).values_list(
            "commission_id", flat=True
        )
    )
    made = []
    for (_, currency), commissions in by_creator.items():
        reached = next((c for c in commissions if (c.calculation.get("tier") or {}).get("retroactive")), None)
        if reached is None or reached.pk in settled:
            continue
        percent = Decimal(reached.calculation["tier"]["percent"])
        owed = sum(
            (
                Decimal(line["base"]) * (percent - Decimal(line["percent"])) / HUNDRED
                for earlier in commissions
                if earlier.created_at < reached.created_at and not earlier.calculation.get("tier")
                for line in earlier.calculation["lines"]
                if line.get("percent") is not None
            ),
            Decimal(0),
        )
        owed = in_minor_units(owed, currency)
        if owed:
            made.append(
                Adjustment.objects.create(
                    brand_id=statement.brand_id,
                    commission=reached,
                    statement=statement,
                    amount=owed,
                    currency=currency,
                    reason=Adjustment.Reason.TIER,
                    created_at=at,
                )
            )
    return made
