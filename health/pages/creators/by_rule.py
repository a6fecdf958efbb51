"""The Creators CSV by rule (`/health/creators/export.csv?by=rule`, docs/health.md "Creators"): one line per
creator, currency and plan rule, from the calculation each commission keeps (docs/plans.md), so that a
marketing lead sees what each rule paid each creator. Same period, namespace and commissions as the page's
`commission` figure: those created in the period, not cancelled, at their amount now."""

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from attribution.models import Commission
from attribution.money import in_minor_units
from attribution.plans.shown import calculation
from attribution.review import figures
from brands.models import Brand, Creator
from config.lib.csvfiles import safe_cell, stream
from health.pages.creators.forms import LocalPeriod

ZERO = Decimal(0)
# What the rules' lines do not add up to: a minimum or a cap that cut the total, and the total's one rounding.
REST = "(minimum, caps and rounding)"
HEADER = [
    "creator_id",
    "creator",
    "first_day",
    "last_day",
    "time_zone",
    "namespace",
    "currency",
    "rule",
    "orders",
    "base",
    "commission",
]
# What a calculation needs to be worked out on read when none is stored (attribution.plans.shown).
FIELDS = (
    "creator_id",
    "currency",
    "amount",
    "calculation",
    "brand_id",
    "plan_version",
    "rate_percent",
    "order_amount",
    "is_returning_customer",
)


@dataclass
class RuleFigures:
    """What one rule took of one creator's commissions in one currency."""

    orders: int = 0  # commissions in which the rule took a line (or paid its flat amount per order)
    base: Decimal = ZERO  # the bases of the lines it took
    commission: Decimal = ZERO  # what it paid on them, as each calculation shows it


@dataclass
class ByRule:
    # (creator id, currency) -> rule -> figures; REST last.
    figures: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(RuleFigures)))

    def add(self, creator_id: int, currency: str, amount: Decimal, made: dict) -> None:
        """One commission: each rule's lines and flat amounts, and what the total differs from their sum."""
        rules = self.figures[(creator_id, currency)]
        taken: dict[str, RuleFigures] = defaultdict(RuleFigures)
        for line in made.get("lines", ()):
            part = taken[line["rule"]]
            part.base += Decimal(line["base"])
            part.commission += Decimal(line["commission"])
        for paid in made.get("per_order", ()):
            taken[paid["rule"]].commission += Decimal(paid["flat"])
        for rule, part in taken.items():
            figures_ = rules[rule]
            figures_.orders += 1
            figures_.base += part.base
            figures_.commission += part.commission
        rest = amount - sum((part.commission for part in taken.values()), ZERO)
        if rest:
            rules[REST].orders += 1
            rules[REST].commission += rest


def by_rule(brand: Brand, period: LocalPeriod, *, is_test: bool) -> ByRule:
    """The period's commissions not cancelled, by creator, currency and rule: one read of the commissions
    (commission_brand_time_idx), streamed in chunks, and nothing per commission but its kept calculation."""
    found = ByRule()
    commissions = (
        figures.commissions_of(brand.pk, since=period.start, until=period.end, is_test=is_test)
        .exclude(state=Commission.State.CANCELLED)
        .only(*FIELDS)
        .order_by()
    )
    for commission in commissions.iterator(chunk_size=2000):
        found.add(commission.creator_id, commission.currency, commission.amount, calculation(commission))
    return found


def csv_lines(brand: Brand, period: LocalPeriod, *, namespace: str) -> Iterator[str]:
    """The CSV's lines: creators by name, then currency, then rule by name, what no rule explains last."""
    found = by_rule(brand, period, is_test=namespace == "test")
    names = dict(Creator.objects.filter(brand=brand).values_list("pk", "name"))
    keys = sorted(found.figures, key=lambda key: (names.get(key[0], ""), key[0], key[1]))

    def lines():
        for creator_id, currency in keys:
            rules = found.figures[(creator_id, currency)]
            for rule in sorted(rules, key=lambda name: (name == REST, name)):
                shown = rules[rule]
                yield [
                    creator_id,
                    safe_cell(names.get(creator_id, "")),
                    period.first_day.isoformat(),
                    period.last_day.isoformat(),
                    str(period.zone),
                    namespace,
                    currency,
                    safe_cell(rule),
                    shown.orders,
                    "" if rule == REST else f"{in_minor_units(shown.base, currency)}",
                    f"{in_minor_units(shown.commission, currency)}",
                ]

    return stream(HEADER, lines())
