"""Forms of the Review page: its filters, a decision on one or many held commissions, and the brand's review
settings (each rule on or off, its thresholds, the review time, the coupon and deal sites)."""

from decimal import Decimal

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from attribution.models import ReviewSettings, Rule
from attribution.review.decisions import REJECT, RELEASE
from brands.hosts import is_public_suffix, normalize_host

NOTE_MAX = 1000
COUPON_DOMAINS_MAX = 500


class FilterForm(forms.Form):
    """?rule=&creator=: a held commission with a waiting hold of that rule, of that creator."""

    rule = forms.ChoiceField(label="Rule", choices=[("", "Any rule"), *Rule.choices], required=False)
    creator = forms.IntegerField(label="Creator", required=False, min_value=1)

    @property
    def is_filtered(self) -> bool:
        return bool(self.is_valid() and (self.cleaned_data["rule"] or self.cleaned_data["creator"]))


class DecisionForm(forms.Form):
    """Release or reject the ticked held commissions (one, from its own card, or many), with a note."""

    decision = forms.ChoiceField(choices=[(RELEASE, "Release"), (REJECT, "Reject")])
    note = forms.CharField(required=False, max_length=NOTE_MAX, strip=True)
    commission = forms.ModelMultipleChoiceField(
        queryset=None, error_messages={"required": "Tick at least one held commission."}
    )

    def __init__(self, *args, commissions, **kwargs):
        super().__init__(*args, **kwargs)
        # The brand's own commissions only: another brand's id is an invalid choice, as an unknown one is.
        self.fields["commission"].queryset = commissions


# (low, high) of each threshold: beyond them a rule either holds nearly everything or can never fire.
BOUNDS = {
    "refund_rate_multiple": (Decimal("1.1"), Decimal("20")),
    "refund_rate_min_orders": (5, 10_000),
    "refund_rate_days": (7, 365),
    "code_leak_recent_orders": (10, 1_000),
    "code_leak_jump_points": (5, 100),
    "click_reuse_per_hour": (1, 1_000),
    "review_days": (1, 90),
}


class ReviewSettingsForm(forms.ModelForm):
    class Meta:
        model = ReviewSettings
        fields = [
            *Rule.values,
            "refund_rate_multiple",
            "refund_rate_min_orders",
            "refund_rate_days",
            "code_leak_recent_orders",
            "code_leak_jump_points",
            "click_reuse_per_hour",
            "review_days",
            "coupon_domains",
        ]
        widgets = {
            **{name: forms.NumberInput(attrs={"class": "narrow"}) for name in BOUNDS},
            "coupon_domains": forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, (low, high) in BOUNDS.items():
            field = self.fields[name]
            field.validators += [MinValueValidator(low), MaxValueValidator(high)]
            field.widget.attrs.update(min=low, max=high)

    def clean_coupon_domains(self) -> str:
        """One registrable domain or host a line, kept normalised (lower case, no www., punycode)."""
        kept, bad = [], []
        for line in self.cleaned_data["coupon_domains"].splitlines():
            if not line.strip():
                continue
            host = normalize_host(line)
            if host is None or "." not in host or is_public_suffix(host):
                bad.append(line.strip())
            elif host not in kept:
                kept.append(host)
        if bad:
            shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
            raise forms.ValidationError(
                f"Not a site's domain: {shown}. Write one domain a line, e.g. retailmenot.com."
            )
        if len(kept) > COUPON_DOMAINS_MAX:
            raise forms.ValidationError(f"At most {COUPON_DOMAINS_MAX} domains.")
        return "\n".join(kept)
