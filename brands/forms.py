"""Forms on brand configuration shared by the admin and the brand's own setup page."""

from django import forms

from . import known_platforms
from .models import PlatformConnection


class PlatformConnectionForm(forms.ModelForm):
    """The signing secret is write-only: typed or pasted, kept encrypted, never shown back (brands.sealing)."""

    # The platforms registered when Django started (attribution.platforms.registry, through brands.known_platforms),
    # read each time the form is shown or checked: the database keeps a plain name.
    platform = forms.ChoiceField(label="Platform", choices=known_platforms.choices)
    signing_secret = forms.CharField(
        label="Signing secret",
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Shopify: the key shown under Settings → Notifications → Webhooks. WooCommerce: the webhook's "
        "Secret. Never shown again; leave empty to keep the current one.",
    )

    class Meta:
        model = PlatformConnection
        fields = [
            "platform",
            "shop_domain",
            "property",
            "signing_secret",
            "amount_counted",
            "order_id_source",
            "is_enabled",
        ]

    def clean(self):
        cleaned = super().clean()
        if not self.instance.secret and not cleaned.get("signing_secret"):
            self.add_error("signing_secret", "Paste the signing secret the platform shows.")
        return cleaned

    def save(self, commit=True):
        if self.cleaned_data.get("signing_secret"):
            self.instance.set_secret(self.cleaned_data["signing_secret"])
        return super().save(commit)
