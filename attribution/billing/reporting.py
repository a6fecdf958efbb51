"""A statement in its brand's reporting currency (docs/currencies.md, "Statements"). Each line keeps its own
currency; its reporting amount adds its commissions and adjustments each converted at its commission's locked
rate (attribution.fx), rounded once as the commission was, and the statement's total adds its lines'. What was
not converted into that currency (no rate, or locked in the brand's earlier reporting currency) is shown apart
in its own currency, never summed in."""

from dataclasses import dataclass, field
from decimal import Decimal

from ..fx import sentences
from ..fx.arithmetic import ECB, at_rate
from ..models import Adjustment, Statement

ZERO = Decimal(0)


@dataclass
class Apart:
    """Amounts of one currency the statement could not total in the reporting currency, and why."""

    currency: str
    items: int = 0
    amount: Decimal = ZERO
    reasons: set = field(default_factory=set)


@dataclass
class InReporting:
    currency: str
    lines: dict = field(default_factory=dict)  # (creator id, currency) -> the line's reporting amount
    apart: dict = field(default_factory=dict)  # currency -> Apart
    rate_days: set = field(default_factory=set)  # the publication days of the rates used
    sources: set = field(default_factory=set)

    @property
    def total(self) -> Decimal:
        """The statement's total: the sum of its lines' reporting amounts."""
        return sum(self.lines.values(), ZERO)

    @property
    def rates_used(self) -> str:
        return sentences.rates_used(self.currency, self.rate_days, self.sources, converted=bool(self.lines))

    @property
    def apart_list(self) -> list[Apart]:
        return [self.apart[c] for c in sorted(self.apart)]

    def add(
        self, key, amount, *, currency, reporting_currency, fx_rate, rate_date, source, reason
    ) -> Decimal | None:
        """One commission's billed amount or one adjustment, at its commission's locked rate; None (and
        counted apart) when it has none into this currency."""
        if reporting_currency != self.currency or not fx_rate:
            apart = self.apart.setdefault(currency, Apart(currency))
            apart.items += 1
            apart.amount += amount
            apart.reasons.add(
                reason
                or (
                    f"Converted into {reporting_currency} when it was created."
                    if reporting_currency
                    else "Created before currency conversion; not converted yet."
                )
            )
            return None
        converted = at_rate(amount, Decimal(fx_rate), self.currency)
        self.lines[key] = self.lines.get(key, ZERO) + converted
        if source == ECB:  # the same currency needed no rate: its day says nothing of the rates used
            self.rate_days.add(rate_date)
        self.sources.add(source)
        return converted


_LOCKED = ("reporting_currency", "fx_rate", "fx_rate_date", "fx_source", "fx_reason")


def in_reporting(statement: Statement, currency: str, *, billed) -> InReporting:
    """The statement's lines and total in `currency` (two queries: its `billed` commissions, annotated with
    what each bills (attribution.billing.statements.billed_commissions), and its adjustments)."""
    found = InReporting(currency)
    for creator_id, own, amount, *locked in billed.values_list("creator_id", "currency", "billed", *_LOCKED):
        found.add((creator_id, own), amount, currency=own, **_named(locked))
    for creator_id, own, amount, *locked in Adjustment.objects.filter(statement=statement).values_list(
        "commission__creator_id", "currency", "amount", *(f"commission__{name}" for name in _LOCKED)
    ):
        found.add((creator_id, own), amount, currency=own, **_named(locked))
    return found


def _named(locked) -> dict:
    reporting_currency, fx_rate, rate_date, source, reason = locked
    return {
        "reporting_currency": reporting_currency,
        "fx_rate": fx_rate,
        "rate_date": rate_date,
        "source": source,
        "reason": reason,
    }
