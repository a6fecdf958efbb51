"""Turns exact counts into what the overview shows: outcome and endpoint tables, the share of orders
tracked, and the geometry of the day-by-day (or hour-by-hour) chart. No database here.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from attribution.outcomes import OUTCOMES, Outcome, OutcomeInfo

from .models import Endpoint
from .queries import CountRow, Period

# Outcome groups, in the order they are stacked in the chart (bottom first).
TRACKED, INFO, ACTION, SERVICE = "tracked", "info", "action", "service"
GROUPS = [
    (TRACKED, "Tracked"),
    (INFO, "Informational"),
    (ACTION, "Needs your action"),
    (SERVICE, "Service side"),
]
GROUP_LABELS = dict(GROUPS)


def info_of(code: str) -> OutcomeInfo | None:
    try:
        return OUTCOMES[Outcome(code)]
    except ValueError:
        return None


def group_of(code: str) -> str:
    if code == Outcome.TRACKED:
        return TRACKED
    info = info_of(code)
    if info is None:
        return INFO
    if info.service_side:
        return SERVICE
    return ACTION if info.needs_action else INFO


@dataclass
class OutcomeLine:
    code: str
    label: str
    fix: str
    needs_action: bool
    group: str
    by_endpoint: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.by_endpoint.values())

    @property
    def endpoint_counts(self) -> list[tuple[str, int]]:
        """(endpoint, count) for every endpoint, in the order of the table's columns."""
        return [(value, self.by_endpoint.get(value, 0)) for value in Endpoint.values]


@dataclass
class EndpointLine:
    endpoint: str
    label: str
    total: int = 0
    tracked: int = 0
    action: int = 0
    service: int = 0


@dataclass
class Segment:
    group: str
    y: float
    height: float
    title: str


@dataclass
class Bar:
    x: float
    width: float
    segments: list[Segment]


@dataclass
class Chart:
    width: int
    height: int
    plot_left: int
    plot_bottom: int
    bars: list[Bar]
    y_ticks: list[tuple[float, int]]
    x_labels: list[tuple[float, str]]
    peak: int


@dataclass
class Overview:
    namespace: str  # "live" or "test": the figures shown; the other namespace is never added in
    total: int
    other_namespace_total: int
    outcome_lines: list[OutcomeLine]
    action_lines: list[OutcomeLine]
    endpoint_lines: list[EndpointLine]
    orders_total: int
    orders_tracked: int
    chart: Chart

    @property
    def action_total(self) -> int:
        return sum(line.total for line in self.action_lines)

    @property
    def tracked_share(self) -> float | None:
        """Percentage of order confirmations tracked, or None when none arrived."""
        if not self.orders_total:
            return None
        return 100 * self.orders_tracked / self.orders_total


def build_overview(rows: list[CountRow], period: Period, *, namespace: str) -> Overview:
    is_test = namespace == "test"
    lines: dict[str, OutcomeLine] = {}
    endpoints = {value: EndpointLine(value, label) for value, label in Endpoint.choices}
    per_bucket: dict[object, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    other_total = 0
    for row in rows:
        if row.is_test != is_test:
            other_total += row.count
            continue
        line = lines.get(row.outcome)
        if line is None:
            info = info_of(row.outcome)
            line = lines[row.outcome] = OutcomeLine(
                code=row.outcome,
                label=info.label if info else row.outcome,
                fix=info.fix if info else "",
                needs_action=bool(info and info.needs_action),
                group=group_of(row.outcome),
            )
        line.by_endpoint[row.endpoint] = line.by_endpoint.get(row.endpoint, 0) + row.count
        ep = endpoints.setdefault(row.endpoint, EndpointLine(row.endpoint, row.endpoint))
        ep.total += row.count
        if line.group == TRACKED:
            ep.tracked += row.count
        elif line.group == ACTION:
            ep.action += row.count
        elif line.group == SERVICE:
            ep.service += row.count
        per_bucket[row.bucket][line.group] += row.count

    ordered = sorted(
        lines.values(), key=lambda line: (not line.needs_action, line.group != TRACKED, -line.total)
    )
    orders = endpoints[Endpoint.ORDER_CONFIRMATION]
    return Overview(
        namespace=namespace,
        total=sum(line.total for line in ordered),
        other_namespace_total=other_total,
        outcome_lines=ordered,
        action_lines=[line for line in ordered if line.needs_action],
        endpoint_lines=list(endpoints.values()),
        orders_total=orders.total,
        orders_tracked=orders.tracked,
        chart=build_chart(period, per_bucket),
    )


def _nice_ceiling(value: int) -> int:
    """A round axis maximum at or above `value` (1, 2, 3, 4, 5, 6 or 8 times a power of ten)."""
    if value <= 0:
        return 1
    step = 1
    while True:
        for factor in (1, 2, 3, 4, 5, 6, 8):
            if step * factor >= value:
                return step * factor
        step *= 10


def _bucket_label(bucket, period: Period) -> str:
    if period.by_hour:
        return bucket.strftime("%H:00")
    return f"{bucket.strftime('%b')} {bucket.day}"


def build_chart(period: Period, per_bucket: dict, *, width: int = 860, height: int = 240) -> Chart:
    """Stacked bars per bucket and outcome group, in SVG user units."""
    left, right, top, bottom = 44, 8, 10, 26
    plot_w, plot_h = width - left - right, height - top - bottom
    buckets = period.buckets
    peak = max((sum(per_bucket.get(b, {}).values()) for b in buckets), default=0)
    ceiling = _nice_ceiling(peak)
    slot = plot_w / max(len(buckets), 1)
    bar_w = max(slot * 0.72, 1.0)
    bars = []
    for i, bucket in enumerate(buckets):
        counts = per_bucket.get(bucket, {})
        x = left + i * slot + (slot - bar_w) / 2
        y = top + plot_h
        segments = []
        for group, label in GROUPS:
            n = counts.get(group, 0)
            if not n:
                continue
            h = plot_h * n / ceiling
            y -= h
            segments.append(
                Segment(
                    group, round(y, 2), round(h, 2), f"{_bucket_label(bucket, period)}: {n} {label.lower()}"
                )
            )
        bars.append(Bar(round(x, 2), round(bar_w, 2), segments))
    every = max(1, -(-len(buckets) // 10))  # at most ~10 labels on the x axis
    x_labels = [
        (round(left + i * slot + slot / 2, 2), _bucket_label(b, period))
        for i, b in enumerate(buckets)
        if i % every == 0
    ]
    values = [0, ceiling // 2, ceiling] if ceiling % 2 == 0 else [0, ceiling]
    y_ticks = [(round(top + plot_h - plot_h * v / ceiling, 2), v) for v in values]
    return Chart(width, height, left, top + plot_h, bars, y_ticks, x_labels, peak)
