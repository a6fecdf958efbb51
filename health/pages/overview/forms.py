"""The overview's period: the rolling 24 hours, the last 7 or 30 UTC days, or from/to dates."""

from datetime import UTC, datetime, timedelta

from django import forms

from health.pages.periods import Period, PeriodChoiceForm, days_period, rolling_24h

PERIODS = [("24h", "Last 24 hours"), ("7d", "7 days"), ("30d", "30 days"), ("custom", "Custom")]
DEFAULT_PERIOD = "7d"


class PeriodForm(PeriodChoiceForm):
    period = forms.ChoiceField(choices=PERIODS, required=False)

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
