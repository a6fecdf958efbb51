"""Forms of the alerts page: a brand's rule thresholds, and a new webhook channel."""

from django import forms

from health.alerts.models import AlertRuleSet, Channel
from health.alerts.notify.outbound import url_problem
from health.alerts.notify.webhooks import format_for

AUTO = "auto"


class RuleSetForm(forms.ModelForm):
    class Meta:
        model = AlertRuleSet
        fields = [
            "silence_enabled",
            "silence_floor_minutes",
            "silence_usual_orders",
            "spike_enabled",
            "spike_percent",
            "spike_min_events",
            "new_problem_enabled",
            "new_problem_count",
            "capture_enabled",
            "capture_drop_points",
            "capture_normal_percent",
            "review_overdue_enabled",
            "code_leak_enabled",
            "refund_outlier_enabled",
            "email_enabled",
        ]
        widgets = {
            name: forms.NumberInput(attrs={"class": "narrow"})
            for name in (
                "silence_floor_minutes",
                "silence_usual_orders",
                "spike_percent",
                "spike_min_events",
                "new_problem_count",
                "capture_drop_points",
                "capture_normal_percent",
            )
        }


class ChannelForm(forms.Form):
    url = forms.URLField(
        label="Webhook URL",
        max_length=500,
        assume_scheme="https",
        widget=forms.URLInput(attrs={"placeholder": "https://example.com/hooks/attribution"}),
    )
    format = forms.ChoiceField(
        label="Format",
        choices=[(AUTO, "Automatic (Slack for hooks.slack.com)"), *Channel.Format.choices],
        initial=AUTO,
    )

    def clean_url(self):
        url = self.cleaned_data["url"]
        problem = url_problem(url)
        if problem:
            raise forms.ValidationError(problem)
        return url

    def channel_format(self) -> str:
        chosen = self.cleaned_data["format"]
        return format_for(self.cleaned_data["url"]) if chosen == AUTO else chosen
