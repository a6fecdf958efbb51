"""The events list's filters: outcome, endpoint, namespace, order id, dates, needs action, has warnings."""

from django import forms

from attribution.outcomes import OUTCOMES, RECORDED
from attribution.outcomes.endpoints import choices as endpoint_choices
from health.pages.events.queries import EventFilters
from health.pages.periods import FromToForm


class EventFilterForm(FromToForm):
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
