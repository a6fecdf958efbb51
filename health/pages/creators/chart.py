"""The creator page's daily charts (orders, and revenue in one currency): bars drawn as inline SVG on the
server, in a wide drawing and a phone drawing as the overview's (health.pages.overview.summary.build_chart),
whose axis rounding they share. No database here."""

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from health.pages.overview.summary import NARROW, _nice_ceiling


@dataclass
class DayBar:
    x: float
    y: float
    width: float
    height: float
    day: date
    title: str


@dataclass
class DayChart:
    width: int
    height: int
    plot_left: int
    plot_top: int
    plot_bottom: int
    bars: list[DayBar]
    y_ticks: list[tuple[float, str]]
    x_labels: list[tuple[float, str, str]]  # x, text, text-anchor
    title: str

    @property
    def plot_height(self) -> float:
        return self.plot_bottom - self.plot_top


def _label(day: date) -> str:
    return f"{day.strftime('%b')} {day.day}"


def day_chart(
    values: list[tuple[date, Decimal | int]],
    *,
    title: str,
    unit: str,
    width: int = 860,
    height: int = 200,
    max_labels: int = 10,
    left: int = 56,
    font_size: int = 11,
) -> DayChart:
    """One bar per day; the last day always has its label, the others every few days counted back from it.
    `unit` follows each bar's value in its tooltip ("orders", "EUR")."""
    right, top, bottom = 8, 10, 26
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((v for _, v in values), default=0)
    ceiling = _nice_ceiling(int(-(-peak // 1)))  # whole units: 0.5 EUR still gets an axis of 1
    slot = plot_w / max(len(values), 1)
    bar_w = max(slot * 0.72, 1.0)
    bars = []
    for i, (day, v) in enumerate(values):
        h = plot_h * float(v) / ceiling
        bars.append(
            DayBar(
                round(left + i * slot + (slot - bar_w) / 2, 2),
                round(top + plot_h - h, 2),
                round(bar_w, 2),
                round(h, 2),
                day,
                f"{_label(day)}: {v} {unit}",
            )
        )
    every = max(1, -(-len(values) // max_labels))
    last = len(values) - 1
    x_labels = []
    for i, (day, _) in enumerate(values):
        if (last - i) % every:
            continue
        text, x, anchor = _label(day), left + i * slot + slot / 2, "middle"
        if x + len(text) * font_size * 0.3 > width:
            x, anchor = width - 1, "end"
        elif x - len(text) * font_size * 0.3 < 0:
            x, anchor = 1, "start"
        x_labels.append((round(x, 2), text, anchor))
    ticks = [0, ceiling // 2, ceiling] if ceiling % 2 == 0 else [0, ceiling]
    y_ticks = [(round(top + plot_h - plot_h * t / ceiling, 2), f"{t:,}") for t in ticks]
    return DayChart(width, height, left, top, top + plot_h, bars, y_ticks, x_labels, title)


def day_charts(
    values: list[tuple[date, Decimal | int]], *, title: str, unit: str
) -> tuple[DayChart, DayChart]:
    """The wide drawing and the phone drawing."""
    narrow = {**NARROW, "left": 40, "height": 180}
    return day_chart(values, title=title, unit=unit), day_chart(values, title=title, unit=unit, **narrow)
