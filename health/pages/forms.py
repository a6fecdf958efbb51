"""Forms of the health pages: the overview's period, the events list's filters and the user's time zone."""

from datetime import UTC, date, datetime, timedelta

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from attribution.outcomes import OUTCOMES, RECORDED
from attribution.outcomes.endpoints import choices as endpoint_choices
from brands.timezones import time_zones
from health.pages.event_queries import EventFilters
from health.pages.queries import Period, days_period, rolling_24h

MAX_CUSTOM_DAYS = 366
PERIODS = [("24h", "Last 24 hours"), ("7d", "7 days"), ("30d", "30 days"), ("custom", "Custom")]
DEFAULT_PERIOD = "7d"


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


class _FromToForm(forms.Form):
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


class PeriodForm(_FromToForm):
    period = forms.ChoiceField(choices=PERIODS, required=False)

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

    def get_period(self, now: datetime) -> Period:
        """The chosen period, or the default one when the form is not valid."""
        today = now.astimezone(UTC).date()
        key = self.cleaned_data.get("period") if self.is_valid() else DEFAULT_PERIOD
        key = key or DEFAULT_PERIOD
        if key == "24h":
            return rolling_24h(now)
        if key == "custom":
            return days_period("custom", self.cleaned_data["from"], self.cleaned_data["to"])
        days = 30 if key == "30d" else 7
        return days_period(key, today - timedelta(days=days - 1), today)


class EventFilterForm(_FromToForm):
    outcome = forms.ChoiceField(
        required=False,
        choices=[("", "Any outcome")] + [(o.value, f"{o.value}: {OUTCOMES[o].label}") for o in RECORDED],
    )
    endpoint = forms.ChoiceField(required=False, choices=lambda: [("", "Any endpoint"), *endpoint_choices()])
    ns = forms.ChoiceField(
        required=False,
        label="Namespace",
        choices=[("", "Live and test"), ("live", "Live only"), ("test", "Test only")],
    )
    order_id = forms.CharField(
        required=False,
        max_length=255,
        label="Order id starts with",
        strip=True,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off", "spellcheck": "false"}),
    )
    action = forms.BooleanField(required=False, label="Needs your action")
    warnings = forms.BooleanField(required=False, label="Has warnings")

    field_order = ["order_id", "outcome", "endpoint", "ns", "from", "to", "action", "warnings"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.order_fields(self.field_order)

    def get_filters(self) -> EventFilters:
        data = self.cleaned_data
        return EventFilters(
            outcome=data.get("outcome") or "",
            endpoint=data.get("endpoint") or "",
            namespace=data.get("ns") or "",
            date_from=data.get("from"),
            date_to=data.get("to"),
            order_id=data.get("order_id") or "",
            needs_action=bool(data.get("action")),
            has_warnings=bool(data.get("warnings")),
        )

    @property
    def is_filtered(self) -> bool:
        return self.is_valid() and self.get_filters() != EventFilters()


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label="Time zone",
        help_text="Times on every page and in CSV exports are shown in this zone.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [(name, name.replace("_", " ")) for name in time_zones()]
