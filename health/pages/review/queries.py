"""Reads behind the Review page (/health/review/): a brand's held commissions with the evidence of each hold,
the rules and creators to filter them by, and the decisions taken lately. Every function takes the brand
health.pages.access allowed; test commissions are read apart from live ones, as on every page."""

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Min

from attribution.models import Commission, CommissionHold, Rule
from brands.models import Brand

SHOWN = 200  # held commissions on one page, oldest first: a queue is worked from its head
DECIDED_SHOWN = 20

RULE_LABELS = dict(Rule.choices)


@dataclass
class Held:
    """One held commission and the holds still waiting on it (the evidence), oldest first."""

    commission: Commission
    holds: list[CommissionHold] = field(default_factory=list)

    @property
    def held_at(self) -> datetime:
        return self.holds[0].held_at

    @property
    def order_id(self) -> str:
        return self.commission.order.order_id


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    count: int  # held commissions


@dataclass
class Queue:
    held: list[Held]
    total: int  # held commissions matching the filters (the page shows at most SHOWN)
    rules: list[Choice]  # the rules with waiting holds, in the rules' order
    creators: list[Choice]  # the creators with waiting holds, by name
    other_namespace: int  # held commissions of the other namespace, counted apart


def _waiting(brand: Brand, *, is_test: bool):
    # hold_open_idx (brand, held_at) WHERE decision = '': the brand's waiting holds, oldest first.
    return CommissionHold.objects.filter(
        brand=brand,
        decision=CommissionHold.Decision.OPEN,
        commission__state=Commission.State.HELD,
        commission__is_test=is_test,
    )


def queue(brand: Brand, *, is_test: bool, rule: str = "", creator: int | None = None) -> Queue:
    """The brand's held commissions of one namespace: those with a waiting hold of `rule` (any rule when
    empty) and of `creator` (any when None), oldest first, each with all its waiting holds."""
    waiting = _waiting(brand, is_test=is_test)
    per_rule, per_creator, names = Counter(), Counter(), {}
    for row in (
        waiting.order_by()
        .values("rule", "commission__creator_id", "commission__creator__name")
        .annotate(n=Count("commission_id", distinct=True))
    ):
        per_rule[row["rule"]] += row["n"]
        per_creator[row["commission__creator_id"]] += row["n"]
        names[row["commission__creator_id"]] = row["commission__creator__name"]

    matching = waiting
    if rule:
        matching = matching.filter(commission__in=waiting.filter(rule=rule).values("commission_id"))
    if creator is not None:
        matching = matching.filter(commission__creator_id=creator)
    ids = list(
        matching.order_by()
        .values("commission_id")
        .annotate(first=Min("held_at"))
        .order_by("first", "commission_id")
    )
    shown = [row["commission_id"] for row in ids[:SHOWN]]
    by_id: dict[int, Held] = {}
    holds = (
        waiting.filter(commission_id__in=shown)
        .select_related("commission__order", "commission__creator")
        .order_by("held_at", "id")
    )
    for hold in holds:
        by_id.setdefault(hold.commission_id, Held(hold.commission)).holds.append(hold)
    other = _waiting(brand, is_test=not is_test).order_by().values("commission_id").distinct().count()
    return Queue(
        held=[by_id[pk] for pk in shown if pk in by_id],
        total=len(ids),
        rules=[Choice(value, label, per_rule[value]) for value, label in Rule.choices if per_rule[value]],
        creators=sorted(
            (Choice(str(pk), names[pk], n) for pk, n in per_creator.items()), key=lambda c: (c.label, c.value)
        ),
        other_namespace=other,
    )


def with_chosen(choices: list[Choice], value: str | None, label: str | None) -> list[Choice]:
    """The filter's choices, with the chosen value kept (count 0) when nothing waits under it any more."""
    if not value or any(c.value == value for c in choices):
        return choices
    return [*choices, Choice(value, label or value, 0)]


def decided(brand: Brand, *, is_test: bool, limit: int = DECIDED_SHOWN) -> list[CommissionHold]:
    """The holds decided lately (released or rejected, by whom, with the note), newest first."""
    # The brand's decided holds: a small share of its orders, read newest first.
    return list(
        CommissionHold.objects.filter(brand=brand, commission__is_test=is_test, decided_at__isnull=False)
        .exclude(decision=CommissionHold.Decision.OPEN)
        .select_related("commission__order", "commission__creator", "decided_by")
        .order_by("-decided_at", "-id")[:limit]
    )


def held_commissions(brand: Brand):
    """The brand's commissions a decision may name: the decision form's choices (a commission of another
    brand is not a choice, so it is refused as any unknown id)."""
    return Commission.objects.filter(brand=brand).select_related("order")
