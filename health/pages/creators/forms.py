"""The period of the Creators pages: the last 7, 30 or 90 days, or from/to dates, as days of the user's time
zone (docs/health.md, "Creators"). Unlike the overview, whose days are UTC days of the roll-up, these
figures are read from the orders themselves, so a day can be the reader's own."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from django import forms
from django.utils import timezone

from health.pages.periods import PeriodChoiceForm

PERIODS = [("7d", "7 days"), ("30d", "30 days"), ("90d", "90 days"), ("custom", "Custom")]
DAYS = {"7d": 7, "30d": 30, "90d": 90}
DEFAULT_PERIOD = "30d"


@dataclass(frozen=True)
class LocalPeriod:
    key: str  # "7d", "30d", "90d" or "custom"
    first_day: date  # in `zone`
    last_day: date  # in `zone`, inclusive
    zone: tzinfo

    @property
    def start(self) -> datetime:
        """The first day's midnight in the zone (inclusive)."""
        return _midnight(self.first_day, self.zone)

    @property
    def end(self) -> datetime:
        """The midnight after the last day in the zone (exclusive)."""
        return _midnight(self.last_day + timedelta(days=1), self.zone)

    @property
    def days(self) -> list[date]:
        return [self.first_day + timedelta(days=i) for i in range((self.last_day - self.first_day).days + 1)]


def _midnight(day: date, zone: tzinfo) -> datetime:
    # A zone that skips midnight on a change of clocks: the first instant of the day that exists.
    return timezone.make_aware(datetime.combine(day, time.min), zone)


class CreatorPeriodForm(PeriodChoiceForm):
    period = forms.ChoiceField(choices=PERIODS, required=False)

    def get_period(self, now: datetime, zone: tzinfo) -> LocalPeriod:
        """The chosen period (the default one when the form is not valid), in `zone`'s days; the last N days
        end with today in that zone."""
        key = (self.cleaned_data.get("period") if self.is_valid() else None) or DEFAULT_PERIOD
        if key == "custom":
            return LocalPeriod(key, self.cleaned_data["from"], self.cleaned_data["to"], zone)
        today = timezone.localtime(now, zone).date()
        return LocalPeriod(key, today - timedelta(days=DAYS[key] - 1), today, zone)
