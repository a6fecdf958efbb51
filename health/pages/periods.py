"""The period a page shows, shared by the pages: the overview's UTC days or rolling hours (Period), and the
form base every period form builds on (its from/to dates and the custom period's rule). The Creators pages'
period in the reader's own days is theirs (health.pages.creators.forms)."""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

MAX_CUSTOM_DAYS = 366


@dataclass(frozen=True)
class Period:
    key: str  # "24h", "7d", "30d" or "custom"
    start: datetime  # inclusive, UTC
    end: datetime  # exclusive, UTC
    by_hour: bool  # hourly buckets (the rolling 24 hours) or daily ones

    @property
    def buckets(self) -> list:
        """Every bucket of the period in order: datetimes (hours) or dates (days)."""
        if self.by_hour:
            count = int((self.end - self.start) / timedelta(hours=1))
            return [self.start + timedelta(hours=i) for i in range(count)]
        first = self.start.date()
        return [first + timedelta(days=i) for i in range((self.end - self.start).days)]

    @property
    def first_day(self) -> date:
        return self.start.date()

    @property
    def last_day(self) -> date:
        return (self.end - timedelta(microseconds=1)).date()


def start_of_day(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def rolling_24h(now: datetime) -> Period:
    """The current hour and the 23 before it: exact from hourly counts, never a scan of the log."""
    current_hour = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    return Period("24h", current_hour - timedelta(hours=23), current_hour + timedelta(hours=1), True)


def days_period(key: str, first: date, last: date) -> Period:
    return Period(key, start_of_day(first), start_of_day(last + timedelta(days=1)), False)


class _DateInput(forms.DateInput):
    input_type = "date"


# Dates a person means; the database's date range ends at 9999-12-31, and a period's end is the
# day after its last date, so unbounded input (to=9999-12-31) would overflow.
EARLIEST, LATEST = date(2000, 1, 1), date(2999, 12, 31)


def _date_field(label: str) -> forms.DateField:
    return forms.DateField(
        required=False,
        label=label,
        widget=_DateInput(attrs={"min": EARLIEST.isoformat(), "max": LATEST.isoformat()}),
        validators=[
            MinValueValidator(EARLIEST, message="Pick a date from the year 2000 on."),
            MaxValueValidator(LATEST, message="Pick a date before the year 3000."),
        ],
    )


class FromToForm(forms.Form):
    """Adds the `from` and `to` dates (Python keywords, hence not declared as attributes)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["from"] = _date_field("From")
        self.fields["to"] = _date_field("To")

    def clean(self):
        cleaned = super().clean()
        first, last = cleaned.get("from"), cleaned.get("to")
        if first and last and first > last:
            raise forms.ValidationError("The start date must not be after the end date.")
        return cleaned


class PeriodChoiceForm(FromToForm):
    """A period picked from a page's choices (its `period` field) or given by from/to dates: any date makes
    it a custom period, which needs both and spans at most MAX_CUSTOM_DAYS."""

    def clean(self):
        cleaned = super().clean()
        first, last = cleaned.get("from"), cleaned.get("to")
        if cleaned.get("period") == "custom" or first or last:
            cleaned["period"] = "custom"
            if not (first and last):
                raise forms.ValidationError("Pick both a start and an end date for a custom period.")
            if (last - first).days + 1 > MAX_CUSTOM_DAYS:
                raise forms.ValidationError(f"A custom period spans at most {MAX_CUSTOM_DAYS} days.")
        return cleaned
