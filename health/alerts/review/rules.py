"""The review alerts (docs/alerts.md, "Review"): held commissions waiting past the brand's review time, a
discount code whose share of orders without a click from its creator jumped above its own normal, and a
creator whose orders are cancelled or refunded far more often than the brand's. Pure, as
health.alerts.events.rules: the facts are read beforehand (health.alerts.review.facts), the clock is passed in.

The thresholds of a leak and of a refund outlier are the brand's review settings, the ones its holds are
judged by (attribution.review), and the facts carry that judgement: an alert never disagrees with a hold.
Each rule fires while its condition holds and clears when it no longer does: one state, read once per
evaluation, so firing and clearing cannot both hold.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from health.alerts.findings import Description, Finding
from health.alerts.models import AlertRuleSet, Incident

Rule = Incident.Rule
RULES = frozenset({Rule.REVIEW_OVERDUE, Rule.CODE_LEAK, Rule.REFUND_OUTLIER})


@dataclass(frozen=True)
class Flag:
    """An outlier the review figures found (attribution.review.figures): a code whose share of orders without
    a click from its creator jumped above its normal, or a creator refunded far above the brand's rate."""

    subject_id: int  # the discount code's id, or the creator's
    name: str  # the code as registered, or the creator's name
    detail: str  # the figures' own sentence
    figures: dict


@dataclass
class ReviewFacts:
    """What the review alerts read about one brand (health.alerts.review.facts builds these)."""

    brand_id: int
    review_days: int = 7
    overdue: int = 0  # live holds not decided after review_days
    oldest_held_at: datetime | None = None  # of those
    codes: dict[int, Flag] = field(default_factory=dict)  # leaking codes, by id
    creators: dict[int, Flag] = field(default_factory=dict)  # refund-rate outliers, by creator id


def is_enabled(rules: AlertRuleSet, rule: str) -> bool:
    return {
        Rule.REVIEW_OVERDUE: rules.review_overdue_enabled,
        Rule.CODE_LEAK: rules.code_leak_enabled,
        Rule.REFUND_OUTLIER: rules.refund_outlier_enabled,
    }[rule]


def check_overdue(rules: AlertRuleSet, facts: ReviewFacts, now: datetime) -> Finding | None:
    """A live hold nobody decided within the brand's review time."""
    if not rules.review_overdue_enabled or not facts.overdue:
        return None
    oldest = now - facts.oldest_held_at if facts.oldest_held_at else timedelta(days=facts.review_days)
    return Finding(
        Rule.REVIEW_OVERDUE,
        "",
        {"overdue": facts.overdue, "oldest_days": oldest.days, "review_days": facts.review_days},
    )


def _flagged(rule: str, flags: dict[int, Flag], key: str) -> list[Finding]:
    return [
        Finding(rule, str(flag.subject_id), {key: flag.name, "detail": flag.detail, "figures": flag.figures})
        for flag in sorted(flags.values(), key=lambda f: f.subject_id)
    ]


def check_code_leaks(rules: AlertRuleSet, facts: ReviewFacts) -> list[Finding]:
    """One finding per code whose code-only share jumped above its normal, naming the code."""
    return _flagged(Rule.CODE_LEAK, facts.codes, "code") if rules.code_leak_enabled else []


def check_refund_outliers(rules: AlertRuleSet, facts: ReviewFacts) -> list[Finding]:
    """One finding per creator refunded far above the brand's rate, naming her."""
    return _flagged(Rule.REFUND_OUTLIER, facts.creators, "creator") if rules.refund_outlier_enabled else []


def findings(rules: AlertRuleSet, facts: ReviewFacts, now: datetime) -> list[Finding]:
    """Every review rule whose condition holds now."""
    overdue = check_overdue(rules, facts, now)
    return [
        *([overdue] if overdue else []),
        *check_code_leaks(rules, facts),
        *check_refund_outliers(rules, facts),
    ]


def cleared(incident: Incident, facts: ReviewFacts) -> bool:
    """Whether an open review incident's condition has cleared: no hold is overdue any more; the code is
    back near its normal (or gone); the creator's rate is back near the brand's (or she is gone)."""
    if incident.rule == Rule.REVIEW_OVERDUE:
        return not facts.overdue
    flags = facts.codes if incident.rule == Rule.CODE_LEAK else facts.creators
    return int(incident.subject) not in flags


# --- what an incident says --------------------------------------------------------------------------

OVERDUE_FIX = (
    "Open the Review page: release each held commission that was earned and reject the others, with a note. "
    "Until then they stay off every statement."
)
LEAK_FIX = (
    "Look for the code on coupon and deal sites. Its new orders without a click from the creator are held: "
    "release those she earned on the Review page. Replace the code if it is public."
)
REFUND_FIX = (
    "Her new orders are held until you decide. Compare her cancelled and refunded orders with your order "
    "book, talk to her, and release or reject her holds on the Review page."
)


def describe(incident: Incident) -> Description:
    """Title, one-sentence summary and fix of a review incident, from the figures that opened it. No events
    query: the Review page is where its holds are (the incident page links it)."""
    c = incident.counts or {}
    if incident.rule == Rule.REVIEW_OVERDUE:
        n = c["overdue"]
        return Description(
            "Holds waiting for review",
            f"{n} held commission{'s have' if n != 1 else ' has'} waited longer than your review time of "
            f"{c['review_days']} days; the oldest {c['oldest_days']} days.",
            OVERDUE_FIX,
            {},
        )
    if incident.rule == Rule.CODE_LEAK:
        return Description(f"Code leak suspected: {c['code']}", _sentence(c["detail"]), LEAK_FIX, {})
    return Description(f"Refund rate above yours: {c['creator']}", _sentence(c["detail"]), REFUND_FIX, {})


def _sentence(detail: str) -> str:
    detail = detail.strip()
    return detail[:1].upper() + detail[1:] + ("" if detail.endswith(".") else ".")
