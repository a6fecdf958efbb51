"""The brand rules over live events, the capture rule and the service-side rule (docs/alerts.md): when each
fires and when it clears, from facts read beforehand (health.alerts.events.facts); what an incident says is
health.alerts.events.descriptions. Pure: no database, the clock is passed in.

Each rule fires and clears on conditions that cannot both hold, so an incident that resolves does not
open again at the same evaluation; a spike clears at half its thresholds, so it does not flap around them.
"""

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from attribution.outcomes import OUTCOMES, RECORDED, Outcome
from attribution.outcomes.endpoints import Endpoint
from health.alerts.findings import Finding
from health.alerts.models import AlertRuleSet, Incident
from health.alerts.sync.descriptions import SYNC_RULES
from health.log.models import NEEDS_ACTION_OUTCOMES

Rule = Incident.Rule

# Outcomes a brand can fix (a fix sentence, not a service-side fault): what spikes and new problems count.
ACTION_CODES = frozenset(NEEDS_ACTION_OUTCOMES)
SERVICE_CODES = frozenset(str(o) for o in RECORDED if OUTCOMES[o].service_side)

HISTORY_DAYS = 7  # silence compares the same hours of this many days before
SILENCE_STRETCH_CAP = timedelta(hours=24)  # a longer silence is compared with the last 24 hours of it
RECENT = timedelta(hours=24)  # a new problem is counted over the rolling 24 hours ...
EARLIER = timedelta(days=7)  # ... and must not have occurred in the 7 days before them
SPOOL_WAIT = timedelta(minutes=5)  # an event waiting in the spool longer than this is a service-side fault
# The capture rate (docs/decisions.md, "Reconciliation: the capture rate and its normal"): a run counts once
# its book holds this many completed orders; the normal is the median of up to CAPTURE_HISTORY earlier such
# runs, once there are CAPTURE_HISTORY_MIN of them; only a run of the last CAPTURE_RECENT opens an incident.
CAPTURE_MIN_ORDERS = 20
CAPTURE_HISTORY = 10
CAPTURE_HISTORY_MIN = 3
CAPTURE_RECENT = timedelta(days=7)


@dataclass(frozen=True)
class CaptureRun:
    """A reconciliation as the capture rule reads it."""

    id: int
    created_at: datetime
    book_orders: int
    received: int

    @property
    def rate(self) -> float:
        return self.received / self.book_orders


@dataclass
class BrandFacts:
    """What the rules read about one brand at one moment (health.alerts.events.facts builds these)."""

    brand_id: int
    # The last live order by any way in (health.alerts.events.facts), and that way's endpoint: the order
    # confirmation (any outcome) or a platform's webhook (a delivery that brought an order).
    last_order_at: datetime | None = None
    last_order_via: str = ""
    # The last live order by each way in that brought one (endpoint -> time): a platform's webhook is watched
    # on its own while the brand's order confirmations are handed off to it (check_handoffs).
    last_order_by_way: dict = field(default_factory=dict)
    # Live events of the last hour per (endpoint, outcome).
    last_hour: Counter = field(default_factory=Counter)
    # Needs-your-action live events per outcome in the rolling 24 hours, and in the 7 days before them.
    action_recent: Counter = field(default_factory=Counter)
    action_earlier: Counter = field(default_factory=Counter)
    # Live orders per hour (UTC hour start) of the last 8 days, by any way in; read only for silent brands.
    history: dict | None = None
    # Reconciliations with at least CAPTURE_MIN_ORDERS completed book orders, newest first (the latest and
    # the CAPTURE_HISTORY before it); read only for brands that reconciled lately or have a capture incident.
    capture_runs: list[CaptureRun] = field(default_factory=list)

    def silent_for(self, now: datetime) -> timedelta | None:
        return None if self.last_order_at is None else now - self.last_order_at


@dataclass
class ServiceFacts:
    failures_last_hour: Counter = field(default_factory=Counter)  # insert_failed / handler_error, all brands
    spool_waiting: int = 0
    spool_oldest_at: datetime | None = None
    newest_rate_day: date | None = None  # the newest currency rate stored (health.alerts.fx.rules)


def floor_hour(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def usual_orders(history: dict, *, start: datetime, end: datetime, days: int = HISTORY_DAYS) -> float:
    """The orders that usually arrive in [start, end): the mean over the `days` days before of the same
    stretch one, two, ... days earlier, from hourly counts (a partly covered hour counts in proportion)."""
    hour = timedelta(hours=1)
    total = 0.0
    for back in range(1, days + 1):
        s, e = start - timedelta(days=back), end - timedelta(days=back)
        h = floor_hour(s)
        while h < e:
            overlap = min(e, h + hour) - max(s, h)
            total += history.get(h, 0) * (overlap / hour)
            h += hour
    return total / days


def silence_window(facts: BrandFacts, now: datetime) -> tuple[datetime, datetime] | None:
    if facts.last_order_at is None:
        return None
    return max(facts.last_order_at, now - SILENCE_STRETCH_CAP), now


def is_silence_candidate(rules: AlertRuleSet, facts: BrandFacts, now: datetime) -> bool:
    """Silent at least the floor: only these brands' history is read."""
    silent = facts.silent_for(now)
    return (
        rules.silence_enabled
        and silent is not None
        and silent >= timedelta(minutes=rules.silence_floor_minutes)
    )


def check_silence(rules: AlertRuleSet, facts: BrandFacts, now: datetime) -> Finding | None:
    """No live order (by order confirmation or a platform's webhook) for at least the floor, while the same
    hours of the last 7 days usually brought at least `silence_usual_orders`. A brand with no order in the
    kept log is not judged."""
    if not is_silence_candidate(rules, facts, now) or facts.history is None:
        return None
    start, end = silence_window(facts, now)
    usual = usual_orders(facts.history, start=start, end=end)
    if usual < rules.silence_usual_orders:
        return None
    return Finding(
        Rule.SILENCE,
        "",
        {
            "last_order_at": facts.last_order_at.isoformat(),
            "silent_minutes": int(facts.silent_for(now) / timedelta(minutes=1)),
            "usual_orders": round(usual, 1),
            "via": facts.last_order_via,
        },
    )


def silence_cleared(incident: Incident, facts: BrandFacts) -> bool:
    return facts.last_order_at is not None and facts.last_order_at > incident.opened_at


# The subject of the silence incident of a platform's webhook that stopped while order confirmations are
# still handed off to it (the brand's own silence incident has none).
HANDOFF_SUBJECT = "handoff"
HANDOFF = str(
    Outcome.SHOPIFY_HANDOFF
)  # the order confirmation's answer when the platform's webhook records the order


def _last_webhook_order(facts: BrandFacts) -> tuple[datetime | None, str]:
    found = [(at, way) for way, at in facts.last_order_by_way.items() if way != Endpoint.ORDER_CONFIRMATION]
    return max(found, default=(None, ""))


def check_handoffs(rules: AlertRuleSet, facts: BrandFacts, now: datetime) -> Finding | None:
    """The brand's order confirmations are handed off to its shop's webhook (`shopify_handoff`: the webhook
    records the order and decides its commission), at least `silence_usual_orders` of them in the last hour,
    while no order came by any platform's webhook for `silence_floor_minutes`: the webhook stopped and
    those orders wait for it. The brand silence rule cannot see it, as the confirmations keep arriving."""
    if not rules.silence_enabled:
        return None
    handoffs = facts.last_hour.get((Endpoint.ORDER_CONFIRMATION, HANDOFF), 0)
    if handoffs < max(rules.silence_usual_orders, 1):
        return None
    last, via = _last_webhook_order(facts)
    if last is not None and now - last < timedelta(minutes=rules.silence_floor_minutes):
        return None
    return Finding(
        Rule.SILENCE,
        HANDOFF_SUBJECT,
        {
            "handoffs": handoffs,
            "via": via,
            "last_order_at": last.isoformat() if last else None,
            "silent_minutes": int((now - last) / timedelta(minutes=1)) if last else None,
        },
    )


def handoffs_cleared(incident: Incident, facts: BrandFacts) -> bool:
    """An order came by a platform's webhook since it opened, or no confirmation was handed off in the last
    hour (the brand stopped handing them off: it left the platform, or its traffic paused)."""
    last, _ = _last_webhook_order(facts)
    return (last is not None and last > incident.opened_at) or not facts.last_hour.get(
        (Endpoint.ORDER_CONFIRMATION, HANDOFF), 0
    )


def _order_problems(facts: BrandFacts) -> tuple[int, int, list]:
    orders = needs_action = 0
    codes = Counter()
    for (endpoint, outcome), n in facts.last_hour.items():
        if endpoint != Endpoint.ORDER_CONFIRMATION:
            continue
        orders += n
        if outcome in ACTION_CODES:
            needs_action += n
            codes[outcome] += n
    return orders, needs_action, codes.most_common(3)


def check_spike(rules: AlertRuleSet, facts: BrandFacts) -> Finding | None:
    """In the last hour, more than `spike_percent` % of live order confirmations needed the brand's action,
    and at least `spike_min_events` of them did."""
    if not rules.spike_enabled:
        return None
    orders, needs_action, top = _order_problems(facts)
    if needs_action < rules.spike_min_events or needs_action * 100 <= rules.spike_percent * orders:
        return None
    return Finding(
        Rule.SPIKE,
        "",
        {
            "orders": orders,
            "needs_action": needs_action,
            "percent": round(100 * needs_action / orders, 1),
            "top": [[code, n] for code, n in top],
        },
    )


def spike_cleared(rules: AlertRuleSet, facts: BrandFacts) -> bool:
    orders, needs_action, _ = _order_problems(facts)
    return needs_action * 2 < rules.spike_min_events or needs_action * 200 <= rules.spike_percent * orders


def check_new_problems(rules: AlertRuleSet, facts: BrandFacts) -> list[Finding]:
    """A needs-your-action outcome absent from the 7 days before the last 24 hours that occurred
    `new_problem_count` times in those 24 hours, and again in the last hour."""
    if not rules.new_problem_enabled:
        return []
    seen_last_hour = Counter()
    for (_, outcome), n in facts.last_hour.items():
        seen_last_hour[outcome] += n
    return [
        Finding(
            Rule.NEW_PROBLEM,
            code,
            {"outcome": code, "events_24h": n, "events_last_hour": seen_last_hour[code]},
        )
        for code, n in sorted(facts.action_recent.items())
        if n >= rules.new_problem_count and not facts.action_earlier.get(code) and seen_last_hour[code]
    ]


def new_problem_cleared(incident: Incident, facts: BrandFacts) -> bool:
    """An hour of live events without the outcome: a brand with no traffic at night stays open until
    its next events show the fix."""
    code = incident.subject
    others = sum(n for (_, outcome), n in facts.last_hour.items() if outcome != code)
    return others > 0 and not any(n for (_, outcome), n in facts.last_hour.items() if outcome == code)


def check_service(facts: ServiceFacts, now: datetime) -> Finding | None:
    """A service-side fault in the last hour (insert_failed, handler_error), or an event waiting in the
    spool longer than SPOOL_WAIT."""
    failures = sum(facts.failures_last_hour.values())
    waited = now - facts.spool_oldest_at if facts.spool_oldest_at else None
    stuck = waited is not None and waited > SPOOL_WAIT
    if not failures and not stuck:
        return None
    return Finding(
        Rule.SERVICE,
        "",
        {
            "failures": dict(sorted(facts.failures_last_hour.items())),
            "spool_waiting": facts.spool_waiting,
            "spool_oldest_minutes": int(waited / timedelta(minutes=1)) if waited else 0,
        },
    )


def service_cleared(facts: ServiceFacts, now: datetime) -> bool:
    return check_service(facts, now) is None


def capture_normal(rules: AlertRuleSet, earlier: list[CaptureRun]) -> tuple[float, bool]:
    """The brand's normal capture rate, and whether its own runs set it: the median of its earlier runs once
    there are CAPTURE_HISTORY_MIN of them, else the rule's `capture_normal_percent`."""
    rates = sorted(run.rate for run in earlier[:CAPTURE_HISTORY])
    if len(rates) < CAPTURE_HISTORY_MIN:
        return rules.capture_normal_percent / 100, False
    middle = len(rates) // 2
    return (rates[middle] if len(rates) % 2 else (rates[middle - 1] + rates[middle]) / 2), True


def check_capture(rules: AlertRuleSet, facts: BrandFacts, now: datetime) -> Finding | None:
    """The latest reconciliation, uploaded within CAPTURE_RECENT, found the share of its book's completed
    orders that arrived here `capture_drop_points` or more below the brand's normal."""
    if not rules.capture_enabled or not facts.capture_runs:
        return None
    latest, earlier = facts.capture_runs[0], facts.capture_runs[1:]
    if now - latest.created_at > CAPTURE_RECENT:
        return None
    normal, from_history = capture_normal(rules, earlier)
    if latest.rate * 100 > normal * 100 - rules.capture_drop_points:
        return None
    return Finding(
        Rule.CAPTURE,
        "",
        {
            "run": latest.id,
            "book_orders": latest.book_orders,
            "received": latest.received,
            "rate_percent": round(latest.rate * 100, 1),
            "normal_percent": round(normal * 100, 1),
            "from_history": from_history,
        },
    )


def capture_cleared(incident: Incident, rules: AlertRuleSet, facts: BrandFacts) -> bool:
    """A later reconciliation found the rate back within half the drop of the normal."""
    if not facts.capture_runs:
        return False
    latest, earlier = facts.capture_runs[0], facts.capture_runs[1:]
    if latest.id <= (incident.counts or {}).get("run", 0):
        return False
    normal, _ = capture_normal(rules, earlier)
    return latest.rate * 100 > normal * 100 - rules.capture_drop_points / 2


def is_enabled(rules: AlertRuleSet, rule: str) -> bool:
    return {
        Rule.SILENCE: rules.silence_enabled,
        Rule.SPIKE: rules.spike_enabled,
        Rule.NEW_PROBLEM: rules.new_problem_enabled,
        Rule.CAPTURE: rules.capture_enabled,
    }.get(rule, True)


def cleared(incident: Incident, rules: AlertRuleSet, facts: BrandFacts) -> bool:
    """Whether an open brand incident's condition has cleared."""
    if incident.rule in SYNC_RULES:
        return False  # the next sync of the shop says so
    if incident.rule == Rule.SILENCE and incident.subject == HANDOFF_SUBJECT:
        return handoffs_cleared(incident, facts)
    if incident.rule == Rule.SILENCE:
        return silence_cleared(incident, facts)
    if incident.rule == Rule.SPIKE:
        return spike_cleared(rules, facts)
    if incident.rule == Rule.CAPTURE:
        return capture_cleared(incident, rules, facts)
    return new_problem_cleared(incident, facts)


def findings(rules: AlertRuleSet, facts: BrandFacts, now: datetime) -> list[Finding]:
    """Every brand rule whose condition holds now."""
    found = [
        check_silence(rules, facts, now),
        check_handoffs(rules, facts, now),
        check_spike(rules, facts),
        *check_new_problems(rules, facts),
        check_capture(rules, facts, now),
    ]
    return [f for f in found if f is not None]
