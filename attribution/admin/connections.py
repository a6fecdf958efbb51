"""Storefront-platform connections in the admin: brands.admin's, plus what issue 47 added: how each was
connected, what its credential may do, whether it was disconnected, and a page where an account manager pastes
the Admin API token of a shop on a legacy custom app (the same `shop` query as OAuth proves it). The privacy
requests the platforms sent are read-only here."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from attribution.models import SyncRun
from attribution.platforms.connect import shopify_oauth
from attribution.platforms.connect.connections import ConnectRefused
from brands.admin import PlatformConnectionAdmin
from brands.models import Brand, PlatformConnection, PlatformPrivacyRequest

CONNECTION_FACTS = [
    "connected_via",
    "api_scopes",
    "platform_shop_id",
    "shop_currency",
    "shop_timezone",
    "site_url",
    "credential_state",
    "disconnected_at",
    "disconnect_reason",
]


class AdminTokenForm(forms.Form):
    brand = forms.ModelChoiceField(Brand.objects.filter(is_active=True).order_by("name"))
    property = forms.CharField(
        label="Counts for (property host)", max_length=253, help_text="Empty: the brand's primary property."
    )
    shop = forms.CharField(label="Shop", max_length=253, help_text="Its myshopify.com domain.")
    token = forms.CharField(
        label="Admin API access token",
        widget=forms.PasswordInput(render_value=False),
        help_text="From the custom app's API credentials (shpat_…). Kept encrypted, never shown again.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["property"].required = False

    def clean_shop(self):
        shop = self.cleaned_data["shop"].strip().lower()
        problem = shopify_oauth.shop_problem(shop)
        if problem:
            raise forms.ValidationError(problem)
        return shop

    def clean(self):
        cleaned = super().clean()
        brand = cleaned.get("brand")
        if brand is not None:
            host = (cleaned.get("property") or "").strip().lower()
            prop = brand.properties.filter(host=host).first() if host else brand.primary_property()
            if prop is None:
                raise forms.ValidationError({"property": "Not a property of this brand."})
            cleaned["prop"] = prop
        return cleaned


admin.site.unregister(PlatformConnection)


@admin.register(PlatformConnection)
class ConnectionAdmin(PlatformConnectionAdmin):
    readonly_fields = [*PlatformConnectionAdmin.readonly_fields, *CONNECTION_FACTS]
    list_display = [
        *PlatformConnectionAdmin.list_display[:-1],
        "connected_via",
        "last_sync",
        "disconnected_at",
        "created_at",
    ]
    list_filter = [
        *PlatformConnectionAdmin.list_filter,
        "connected_via",
        ("disconnected_at", admin.EmptyFieldListFilter),
    ]

    def get_fields(self, request, obj=None):
        return [*super().get_fields(request, obj), *CONNECTION_FACTS]

    def get_queryset(self, request):
        # sync_run_connection_time_idx (connection, -started_at): each listed connection's newest run.
        newest = SyncRun.objects.filter(connection=OuterRef("pk")).order_by("-started_at", "-pk")
        return (
            super()
            .get_queryset(request)
            .annotate(
                last_sync_at=Subquery(newest.values("started_at")[:1]),
                last_sync_status=Subquery(newest.values("status")[:1]),
                last_sync_recovered=Subquery(newest.values("recovered")[:1]),
            )
        )

    @admin.display(description="last sync", ordering="last_sync_at")
    def last_sync(self, obj):
        if getattr(obj, "last_sync_at", None) is None:
            return "never"
        state = SyncRun.Status(obj.last_sync_status).label.lower()
        return f"{obj.last_sync_at:%Y-%m-%d %H:%M} UTC, {state}, {obj.last_sync_recovered} recovered"

    @admin.display(description="API credential")
    def credential_state(self, obj):
        if not obj or not obj.has_credential():
            return "none"
        if obj.credential_expires_at is None:
            return "kept (encrypted); does not expire"
        # Shopify's expiring pair (attribution.platforms.connect.shopify_tokens renews it before each expiry).
        return (
            f"kept (encrypted); expires {obj.credential_expires_at:%Y-%m-%d %H:%M} UTC and is renewed before, "
            f"its refresh token valid until {obj.refresh_token_expires_at:%Y-%m-%d} unless used"
            if obj.refresh_token_expires_at
            else f"kept (encrypted); expires {obj.credential_expires_at:%Y-%m-%d %H:%M} UTC"
        )

    def get_urls(self):
        token = self.admin_site.admin_view(self.token_view)
        return [
            path("shopify-token/", token, name="brands_platformconnection_shopify_token"),
            *super().get_urls(),
        ]

    def token_view(self, request):
        if not self.has_change_permission(request) or not self.has_add_permission(request):
            raise PermissionDenied
        form = AdminTokenForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                connection, _ = shopify_oauth.connect(
                    prop=form.cleaned_data["prop"],
                    shop=form.cleaned_data["shop"],
                    token=form.cleaned_data["token"].strip(),
                    via=PlatformConnection.ConnectedVia.ADMIN_TOKEN,
                )
            except ConnectRefused as refused:
                form.add_error("token", str(refused))
            else:
                self.message_user(
                    request,
                    f"{connection} is connected: the token opens the shop ({connection.api_scopes}). Its orders "
                    "are read by the sync; its webhooks stay signed with the custom app's own secret.",
                    messages.SUCCESS,
                )
                return redirect(reverse("admin:brands_platformconnection_change", args=[connection.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": "Connect a Shopify shop by its Admin API token",
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/brands/platformconnection/shopify_token.html", context)


@admin.register(PlatformPrivacyRequest)
class PlatformPrivacyRequestAdmin(admin.ModelAdmin):
    """What the platforms asked about shoppers' and shops' data, what was held and what was done."""

    list_display = ["received_at", "topic", "shop_domain", "brand", "done"]
    list_filter = ["topic", "platform"]
    list_select_related = ["brand"]
    search_fields = ["shop_domain", "customer_id", "email_hash"]
    date_hierarchy = "received_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
