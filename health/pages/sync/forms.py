"""Sync now: a connection of the page's brand that can be synced, and a window of days (the brand's days, UTC)."""

from datetime import UTC, date, datetime, time, timedelta

from django import forms
from django.utils import timezone

from brands.models import Brand, PlatformConnection

# Shopify's read_orders scope reads the last 60 days of orders; older ones need read_all_orders.
SHOPIFY_DAYS_WITHOUT_ALL_ORDERS = 60
MAX_DAYS = 366  # a window longer than a year is a first import, not a sync: sync_orders --since does it
PRESET_DAYS = 3  # the form opens on the last three days (today included): what a missed weekend needs


class SyncNowForm(forms.Form):
    connection = forms.ModelChoiceField(queryset=PlatformConnection.objects.none(), empty_label=None)
    since = forms.DateField(label="From", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label="To (included)", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, brand: Brand, today: date | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.today = today or timezone.now().astimezone(UTC).date()
        self.fields["connection"].queryset = brand.platform_connections.order_by("platform", "shop_domain")
        first = self.today - timedelta(days=PRESET_DAYS - 1)
        for name, initial in (("since", first), ("until", self.today)):
            self.initial.setdefault(name, initial)
            # The browser's own limits: no day after today, none further back than one sync may read.
            self.fields[name].widget.attrs.update(
                min=(self.today - timedelta(days=MAX_DAYS - 1)).isoformat(), max=self.today.isoformat()
            )

    def clean(self):
        data = super().clean()
        connection, since, until = data.get("connection"), data.get("since"), data.get("until")
        if connection is None or since is None or until is None:
            return data
        if not connection.can_sync():
            raise forms.ValidationError(
                f"{connection.shop_domain} cannot be synced: connect it with its platform's consent (Connect with "
                "Shopify or WooCommerce) so the service holds a credential that reads its orders."
            )
        if until < since:
            raise forms.ValidationError("The window ends before it starts.")
        if until > self.today:
            raise forms.ValidationError("The window cannot end after today.")
        if (until - since).days + 1 > MAX_DAYS:
            raise forms.ValidationError(f"Sync at most {MAX_DAYS} days at once.")
        oldest = self.today - timedelta(days=SHOPIFY_DAYS_WITHOUT_ALL_ORDERS - 1)
        scopes = {s.strip() for s in connection.api_scopes.split(",")}
        if connection.platform == "shopify" and "read_all_orders" not in scopes and since < oldest:
            raise forms.ValidationError(
                f"Shopify lets this connection read the last {SHOPIFY_DAYS_WITHOUT_ALL_ORDERS} days of orders "
                f"(from {oldest.isoformat()}): older ones need the read_all_orders scope, which your account "
                "manager asks Shopify for."
            )
        return data

    def window(self) -> tuple[datetime, datetime]:
        """The window's start and end (UTC): from the first day's start to the day after the last, or now."""
        start = datetime.combine(self.cleaned_data["since"], time.min, tzinfo=UTC)
        end = datetime.combine(self.cleaned_data["until"] + timedelta(days=1), time.min, tzinfo=UTC)
        return start, min(end, timezone.now())


def sync_now_context(brand: Brand) -> dict:
    """What the Sync now form (templates/health/_sync_now.html) needs: on the sync history and the setup page."""
    connections = brand.platform_connections.order_by("platform", "shop_domain")
    return {
        "syncable": [c for c in connections if c.can_sync()],
        "sync_form": SyncNowForm(brand=brand),
        "shopify_days": SHOPIFY_DAYS_WITHOUT_ALL_ORDERS,
    }
