"""Turns exact counts into what the overview shows: outcome and endpoint tables, the share of orders
tracked, and the geometry of the day-by-day (or hour-by-hour) chart. No database here.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime

from django.utils import timezone

from attribution.outcomes.endpoints import EVENT_ENDPOINTS, counts_as_order
from attribution.outcomes.endpoints import choices as endpoint_choices
from health.pages.outcomes import (
    ACTION,
    CHANGED,
    GROUPS,
    SERVICE,
    TRACKED,
    group_of,
    info_of,
    is_accepted_order,
)
from health.pages.overview.queries import CountRow
from health.pages.periods import Period


@dataclass
class OutcomeLine:
    """One outcome as one endpoint family names it: a tracked cancel is its own line ("Cancelled")."""

    code: str
    label: str
    fix: str
    needs_action: bool
    group: str
    by_endpoint: dict[str, int] = field(default_factory=dict)
    # (endpoint, label) of the table's columns: the overview's endpoint lines (build_overview sets them).
    columns: list[tuple[str, str]] = field(default_factory=endpoint_choices)

    @property
    def total(self) -> int:
        return sum(self.by_endpoint.values())

    @property
    def endpoint_counts(self) -> list[tuple[str, str, int]]:
        """(endpoint, its label, count) for every column of the table, in its order."""
        return [(value, label, self.by_endpoint.get(value, 0)) for value, label in self.columns]


@dataclass
class EndpointLine:
    endpoint: str
    label: str
    total: int = 0
    took_effect: int = 0  # tracked: an order attributed, a commission cancelled or updated
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
    day: date  # the (UTC) day whose events the bar links to
    total: int = 0
    title: str = ""


@dataclass
class Chart:
    width: int
    height: int
    plot_left: int
    plot_top: int
    plot_bottom: int
    slot: float  # the width of one bar's column, its link target
    bars: list[Bar]
    y_ticks: list[tuple[float, int]]
    x_labels: list[tuple[float, str, str]]  # x, text, text-anchor
    peak: int
    font_size: int

    @property
    def plot_height(self) -> float:
        return self.plot_bottom - self.plot_top


@dataclass
class Overview:
    namespace: str  # "live" or "test": the figures shown; the other namespace is never added in
    total: int
    other_namespace_total: int
    outcome_lines: list[OutcomeLine]
    action_lines: list[OutcomeLine]
    endpoint_lines: list[EndpointLine]
    orders_total: int  # orders received by any way in (counts_as_order), rejected ones included
    orders_accepted: int  # those the service took and judged (is_accepted_order): the share's denominator
    orders_tracked: int
    warned: int  # events that carry a warning
    chart: Chart  # wide screens
    narrow_chart: Chart  # phones: fewer, larger labels
    orders_recovered: int = 0  # of orders_total, those the sync recorded (add_recovered)

    def add_recovered(self, recovered: int, tracked: int) -> None:
        """Count the orders the sync recorded in the cards too: every way in, each order once."""
        self.orders_recovered = recovered
        self.orders_total += recovered
        self.orders_accepted += recovered
        self.orders_tracked += tracked

    @property
    def action_total(self) -> int:
        return sum(line.total for line in self.action_lines)

    @property
    def orders_rejected(self) -> int:
        return self.orders_total - self.orders_accepted

    @property
    def tracked_share(self) -> float | None:
        """Percentage of accepted orders tracked, or None when none was accepted."""
        if not self.orders_accepted:
            return None
        return 100 * self.orders_tracked / self.orders_accepted


def build_overview(rows: list[CountRow], period: Period, *, namespace: str, zone=None) -> Overview:
    """`zone`: the time zone hour labels are shown in (default: the current one)."""
    is_test = namespace == "test"
    lines: dict[tuple, OutcomeLine] = {}
    endpoints = {value: EndpointLine(value, label) for value, label in endpoint_choices()}
    per_bucket: dict[object, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    other_total = accepted = orders_total = orders_tracked = warned = 0
    for row in rows:
        if row.is_test != is_test:
            other_total += row.count
            continue
        info = info_of(row.outcome, row.endpoint)
        group = group_of(row.outcome, row.endpoint)
        label = info.label if info else row.outcome
        line = lines.get((row.outcome, label, group))
        if line is None:
            line = lines[(row.outcome, label, group)] = OutcomeLine(
                code=row.outcome,
                label=label,
                fix=info.fix if info else "",
                needs_action=bool(info and info.needs_action),
                group=group,
            )
        line.by_endpoint[row.endpoint] = line.by_endpoint.get(row.endpoint, 0) + row.count
        ep = endpoints.setdefault(row.endpoint, EndpointLine(row.endpoint, row.endpoint))
        ep.total += row.count
        if group in (TRACKED, CHANGED):
            ep.took_effect += row.count
        elif group == ACTION:
            ep.action += row.count
        elif group == SERVICE:
            ep.service += row.count
        if counts_as_order(row.endpoint, row.outcome):
            orders_total += row.count
            if group == TRACKED:
                orders_tracked += row.count
        if is_accepted_order(row.outcome, row.endpoint):
            accepted += row.count
        warned += row.warned
        per_bucket[row.bucket][group] += row.count

    order = [key for key, _ in GROUPS]
    ordered = sorted(
        lines.values(),
        key=lambda line: (not line.needs_action, order.index(line.group), -line.total, line.code),
    )
    # The three event endpoints always have their line; the other ways in (a reconciliation, a
    # platform's deliveries) only once they have sent something. The outcome table has one column each.
    shown = [ep for ep in endpoints.values() if ep.endpoint in EVENT_ENDPOINTS or ep.total]
    for line in ordered:
        line.columns = [(ep.endpoint, ep.label) for ep in shown]
    return Overview(
        namespace=namespace,
        total=sum(line.total for line in ordered),
        other_namespace_total=other_total,
        outcome_lines=ordered,
        action_lines=[line for line in ordered if line.needs_action],
        endpoint_lines=shown,
        orders_total=orders_total,
        orders_accepted=accepted,
        orders_tracked=orders_tracked,
        warned=warned,
        chart=build_chart(period, per_bucket, zone=zone),
        narrow_chart=build_chart(period, per_bucket, zone=zone, **NARROW),
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


def _bucket_label(bucket, period: Period, zone) -> str:
    if period.by_hour:
        return timezone.localtime(bucket, zone).strftime("%H:%M")
    return f"{bucket.strftime('%b')} {bucket.day}"


def _bucket_day(bucket) -> date:
    return bucket.date() if isinstance(bucket, datetime) else bucket


# The phone-sized chart: drawn for a ~360 px wide screen, so its 12-unit labels stay ~12 px tall.
NARROW = {"width": 360, "height": 220, "max_labels": 4, "left": 30, "font_size": 12}


def build_chart(
    period: Period,
    per_bucket: dict,
    *,
    width: int = 860,
    height: int = 240,
    max_labels: int = 10,
    left: int = 44,
    font_size: int = 11,
    zone=None,
) -> Chart:
    """Stacked bars per bucket and outcome group, in SVG user units. The last bucket (today, or this
    hour) always has its label; the others are labelled every few buckets, counted back from it."""
    right, top, bottom = 8, 10, 26
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
        name = _bucket_label(bucket, period, zone)
        for group, label in GROUPS:
            n = counts.get(group, 0)
            if not n:
                continue
            h = plot_h * n / ceiling
            y -= h
            segments.append(Segment(group, round(y, 2), round(h, 2), f"{name}: {n} {label.lower()}"))
        total = sum(counts.values())
        bars.append(
            Bar(
                round(x, 2),
                round(bar_w, 2),
                segments,
                day=_bucket_day(bucket),
                total=total,
                title=f"{name}: {total} event{'' if total == 1 else 's'}",
            )
        )
    every = max(1, -(-len(buckets) // max_labels))
    last = len(buckets) - 1
    x_labels = []
    for i, bucket in enumerate(buckets):
        if (last - i) % every:
            continue
        text, x, anchor = _bucket_label(bucket, period, zone), left + i * slot + slot / 2, "middle"
        if x + len(text) * font_size * 0.3 > width:  # would be cut at the right edge: end-align it
            x, anchor = width - 1, "end"
        x_labels.append((round(x, 2), text, anchor))
    values = [0, ceiling // 2, ceiling] if ceiling % 2 == 0 else [0, ceiling]
    y_ticks = [(round(top + plot_h - plot_h * v / ceiling, 2), v) for v in values]
    return Chart(
        width, height, left, top, top + plot_h, round(slot, 2), bars, y_ticks, x_labels, peak, font_size
    )
