"""Statements in their brands' reporting currencies (docs/currencies.md, "Statements"). Each line keeps its own
currency; its reporting amount adds its commissions and adjustments each converted at its commission's locked
rate (attribution.fx), rounded once as the commission was, and a statement's total adds its lines'. What was
not converted into that currency (no rate, or locked in the brand's earlier reporting currency) is shown apart
in its own currency, never summed in. One reading serves one statement (its page, per creator) and many (the
list and the admin's, per statement), so the list's totals are the statements' own."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, F, Max, Min, Q, Sum

from ..fx import sentences
from ..fx.arithmetic import ECB, at_rate
from ..money import in_minor_units

ZERO = Decimal(0)

# A billed commission billed at its own amount (not paid, or paid at the amount it still has): its locked
# reporting_amount is that amount at its rate. One paid and changed since bills its paid amount, converted here.
AT_OWN_AMOUNT = Q(paid_amount__isnull=True) | Q(paid_amount=F("amount"))
_LOCKED = ("reporting_currency", "fx_rate", "fx_rate_date", "fx_source", "fx_reason")


@dataclass
class Apart:
    """Amounts of one currency the statement could not total in the reporting currency, and why."""

    currency: str
    items: int = 0
    amount: Decimal = ZERO
    reasons: set = field(default_factory=set)

    @property
    def why(self) -> str:
        return " ".join(sorted(self.reasons))


@dataclass
class InReporting:
    currency: str
    # (creator id, currency) -> the line's reporting amount; the creator id is None when read per statement.
    lines: dict = field(default_factory=dict)
    apart: dict = field(default_factory=dict)  # currency -> Apart
    rate_days: set = field(default_factory=set)  # the publication days of the rates used
    sources: set = field(default_factory=set)

    @property
    def total(self) -> Decimal:
        """The statement's total: the sum of its lines' reporting amounts."""
        return sum(self.lines.values(), ZERO)

    @property
    def rates_used(self) -> str:
        return rates_used(self.currency, [self])

    @property
    def apart_list(self) -> list[Apart]:
        return [self.apart[c] for c in sorted(self.apart)]

    @property
    def left_out(self) -> str:
        """What the total leaves out, as every page says it: "30.00 AED (1 item: why); …"."""
        return "; ".join(
            f"{in_minor_units(a.amount, a.currency):,} {a.currency} ({a.items:,} item{'' if a.items == 1 else 's'}: "
            f"{a.why})"
            for a in self.apart_list
        )

    def converts(self, reporting_currency: str, locked: str) -> bool:
        """Whether an item locked into `reporting_currency` (`locked`: its rate or its source, both empty when
        it has none) counts in this total."""
        return reporting_currency == self.currency and bool(locked)

    def add(
        self, key, amount, *, currency, reporting_currency, fx_rate, rate_date, source, reason
    ) -> Decimal | None:
        """One commission's billed amount or one adjustment, at its commission's locked rate; None (and
        counted apart) when it has none into this currency."""
        if not self.converts(reporting_currency, fx_rate):
            self.add_apart(currency, 1, amount, reporting_currency=reporting_currency, reason=reason)
            return None
        converted = at_rate(amount, Decimal(fx_rate), self.currency)
        self.add_converted(key, converted, source=source, days=(rate_date,))
        return converted

    def add_converted(self, key, converted: Decimal, *, source: str, days) -> None:
        """Amounts converted into this currency already (each rounded once), to the line `key`."""
        self.lines[key] = self.lines.get(key, ZERO) + converted
        if source == ECB:  # the same currency needed no rate: its day says nothing of the rates used
            self.rate_days.update(d for d in days if d is not None)
        self.sources.add(source)

    def add_apart(self, currency: str, items: int, amount: Decimal, *, reporting_currency: str, reason: str):
        apart = self.apart.setdefault(currency, Apart(currency))
        apart.items += items
        apart.amount += amount
        apart.reasons.add(
            reason
            or (
                f"Converted into {reporting_currency} when it was created."
                if reporting_currency
                else "Created before currency conversion; not converted yet."
            )
        )


def rates_used(currency: str, reports) -> str:
    """The line that names the rates behind totals in `currency`: one statement's, or a list's."""
    days, sources = set(), set()
    for report in reports:
        days |= report.rate_days
        sources |= report.sources
    return sentences.rates_used(currency, days, sources, converted=any(r.lines for r in reports))


def in_reporting(
    currencies: dict[int, str], *, billed, adjustments, per_creator: bool
) -> dict[int, InReporting]:
    """Statements in reporting currencies, by statement id: `currencies` names each statement's (its brand's
    now); `billed`, their billed commissions annotated with what each bills
    (attribution.billing.statements.billed_commissions); `adjustments`, theirs. Lines are per creator and
    currency with `per_creator`, else per currency. Three queries, the first grouped whatever the number of
    commissions: the commissions per statement, line and locked conversion, adding their locked reporting
    amounts; those billed at another amount than their own (paid, then changed), one by one; the adjustments,
    one by one (changes after payment, each converted at its commission's rate)."""
    found = {pk: InReporting(currency) for pk, currency in currencies.items()}
    line = ["creator_id"] if per_creator else []
    grouped = (
        billed.order_by()
        .values("statement_id", *line, "currency", "reporting_currency", "fx_source", "fx_reason")
        .annotate(
            items=Count("pk"),
            billed_total=Sum("billed"),
            converted=Sum("reporting_amount", filter=AT_OWN_AMOUNT),
            first=Min("fx_rate_date"),
            last=Max("fx_rate_date"),
        )
    )
    for row in grouped:
        report = found[row["statement_id"]]
        currency, reporting_currency = row["currency"], row["reporting_currency"]
        if not report.converts(reporting_currency, row["fx_source"]):  # a source is locked with a rate
            report.add_apart(
                currency,
                row["items"],
                row["billed_total"],
                reporting_currency=reporting_currency,
                reason=row["fx_reason"],
            )
            continue
        # Each amount was rounded once when it was locked: their sum is exact (on SQLite, a float made exact).
        report.add_converted(
            (row.get("creator_id"), currency),
            in_minor_units(row["converted"] or ZERO, report.currency),
            source=row["fx_source"],
            days=(row["first"], row["last"]),
        )
    changed_after_payment = (
        billed.filter(paid_amount__isnull=False)
        .exclude(paid_amount=F("amount"))
        .exclude(fx_rate="")
        .values_list("statement_id", "creator_id", "currency", "billed", *_LOCKED)
    )
    for statement_id, creator_id, currency, amount, *locked in changed_after_payment:
        report = found[statement_id]
        if report.converts(locked[0], locked[1]):  # else counted apart with its group
            report.add(
                (creator_id if per_creator else None, currency), amount, currency=currency, **_named(locked)
            )
    for statement_id, creator_id, currency, amount, *locked in adjustments.values_list(
        "statement_id",
        "commission__creator_id",
        "currency",
        "amount",
        *(f"commission__{name}" for name in _LOCKED),
    ):
        key = (creator_id if per_creator else None, currency)
        found[statement_id].add(key, amount, currency=currency, **_named(locked))
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
