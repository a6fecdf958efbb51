"""Account managers run brands, properties, platform connections, developer keys, creators, codes and
shoppers here."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from rest_framework_api_key.admin import APIKeyModelAdmin
from rest_framework_api_key.models import APIKey

from config.lib.admin import saved_time

from . import claims, known_platforms
from .creator_email import CreatorForm
from .forms import PlatformConnectionForm
from .hosts import hash_email
from .models import (
    Brand,
    BrandMembership,
    Creator,
    DeveloperKey,
    DiscountCode,
    KnownShopper,
    PlatformConnection,
    Property,
    UserSettings,
)
from .shopper_email import KnownShopperForm

# The library registers its own key model; ours carries the brand, so only ours is shown.
admin.site.unregister(APIKey)


def key_status(key: DeveloperKey) -> str:
    # Words, not the admin's boolean icons: a green tick beside "revoked" read as "fine".
    if not key.revoked:
        return "active"
    return f"revoked {timezone.localtime(key.revoked_at):%Y-%m-%d}" if key.revoked_at else "revoked"


class OnePrimaryFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        marked = [
            form
            for form in self.forms
            if form.cleaned_data.get("is_primary") and not form.cleaned_data.get("DELETE")
        ]
        if len(marked) > 1:
            raise ValidationError("Mark at most one property as primary.")


class PropertyInline(admin.TabularInline):
    model = Property
    formset = OnePrimaryFormSet
    extra = 1
    fields = ["host", "is_primary", "registrable_domain", "created"]
    readonly_fields = ["registrable_domain", "created"]

    @admin.display(description="created at")
    def created(self, obj):
        return saved_time(obj.created_at if obj else None, obj)


class PlatformConnectionInline(admin.StackedInline):
    model = PlatformConnection
    form = PlatformConnectionForm
    extra = 0
    fields = [
        ("platform", "shop_domain"),
        "property",
        "signing_secret",
        ("amount_counted", "order_id_source"),
        "is_enabled",
        "secret_state",
    ]
    readonly_fields = ["secret_state"]

    def get_formset(self, request, obj=None, **kwargs):
        self._brand = obj
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "property":
            brand = getattr(self, "_brand", None)
            kwargs["queryset"] = Property.objects.filter(brand=brand) if brand else Property.objects.none()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="secret")
    def secret_state(self, obj):
        return secret_state(obj)


def secret_state(connection: PlatformConnection) -> str:
    """What the admin may say of a secret: whether one is kept and when it was replaced, never the secret."""
    if connection is None or not connection.secret:
        return "none yet"
    if connection.secret_replaced_at:
        return (
            f"kept (encrypted); replaced {timezone.localtime(connection.secret_replaced_at):%Y-%m-%d %H:%M}"
        )
    return "kept (encrypted)"


class DeveloperKeyInline(admin.TabularInline):
    model = DeveloperKey
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["prefix", "name", "status", "created", "last_used_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False  # keys are issued on the key page, where the plaintext is shown once

    @admin.display(description="status")
    def status(self, obj):
        return key_status(obj)


class MembershipInline(admin.TabularInline):
    model = BrandMembership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Brand)
class BrandAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "is_active",
        "commission_rate_percent",
        "returning_commission_rate_percent",
        "attribution_window_days",
        "storefront_handles_orders",
        "created_at",
        "view_health",
    ]
    list_filter = ["is_active", "storefront_handles_orders"]
    search_fields = ["name", "properties__host"]
    inlines = [PropertyInline, PlatformConnectionInline, DeveloperKeyInline, MembershipInline]
    readonly_fields = ["health_pages"]
    fieldsets = [
        (None, {"fields": ["name", "is_active", "health_pages"]}),
        ("Attribution", {"fields": ["attribution_window_days", "storefront_handles_orders"]}),
        (
            "Commission",
            {"fields": ["commission_rate_percent", "returning_commission_rate_percent", "lock_period_days"]},
        ),
        # docs/currencies.md: the currency its pages, statements and read API total in.
        ("Money", {"fields": ["reporting_currency"]}),
    ]

    # The brand's tracking health pages as its users see them (linked by URL name: brands imports no page).
    HEALTH_PAGES = [
        ("health:overview", "Overview"),
        ("health:events", "Events"),
        ("health:alerts", "Alerts"),
        ("health:statements", "Statements"),
    ]

    @admin.display(description="View health")
    def health_pages(self, obj):
        if obj.pk is None:
            return "Available once the brand is saved."
        return format_html_join(
            " · ",
            '<a href="{}?brand={}">{}</a>',
            ((reverse(name), obj.pk, label) for name, label in self.HEALTH_PAGES),
        )

    @admin.display(description="health")
    def view_health(self, obj):
        return format_html('<a href="{}?brand={}">View health</a>', reverse("health:overview"), obj.pk)


@admin.register(Property)
class PropertyAdmin(admin.ModelAdmin):
    list_display = ["host", "brand", "is_primary", "registrable_domain", "created_at"]
    list_filter = ["brand"]
    list_select_related = ["brand"]
    search_fields = ["host", "registrable_domain", "brand__name"]
    readonly_fields = ["registrable_domain"]
    autocomplete_fields = ["brand"]


class ContestedFilter(admin.SimpleListFilter):
    title, parameter_name = "claims", "claims"  # a shop more than one brand claims (brands.claims)

    def lookups(self, request, model_admin):
        return [("contested", "Claimed by more than one brand")]

    def queryset(self, request, queryset):
        return queryset.filter(claims__gt=1) if self.value() == "contested" else queryset


class PlatformFilter(admin.SimpleListFilter):
    title = parameter_name = "platform"  # the registered platforms by their titles (brands.known_platforms)

    def lookups(self, request, model_admin):
        return known_platforms.choices()

    def queryset(self, request, queryset):
        return queryset.filter(platform=self.value()) if self.value() else queryset


@admin.register(PlatformConnection)
class PlatformConnectionAdmin(admin.ModelAdmin):
    """Every brand's storefront-platform connections: which brand a shop belongs to, and its options."""

    form = PlatformConnectionForm
    list_display = [
        "shop_domain",
        "platform_title",
        "brand",
        "property",
        "is_enabled",
        "approval",
        "contested",
        "secret_state",
        "created_at",
    ]
    list_filter = [("approved_at", admin.EmptyFieldListFilter), ContestedFilter, PlatformFilter, "is_enabled"]
    list_select_related = ["brand", "property"]
    search_fields = ["shop_domain", "brand__name", "property__host"]
    autocomplete_fields = ["brand"]
    raw_id_fields = ["property"]
    readonly_fields = ["secret_state", "approval"]
    actions = ["approve"]

    def get_fields(self, request, obj=None):
        return ["brand", *PlatformConnectionForm.Meta.fields, "secret_state", "approval"]

    @admin.display(description="secret")
    def secret_state(self, obj):
        return secret_state(obj)

    @admin.display(description="approved", ordering="approved_at")
    def approval(self, obj):
        if obj.approved_at is None:
            return "Pending: receives nothing until approved"
        return timezone.localtime(obj.approved_at).strftime("%Y-%m-%d %H:%M")

    @admin.display(description="claims")
    def contested(self, obj):
        return claims.claimed_by(obj) or "—"

    def get_queryset(self, request):
        return claims.with_claims(super().get_queryset(request))

    @admin.action(description="Approve selected connections (check first that each shop is its brand's)")
    def approve(self, request, queryset):
        approval = claims.approve(queryset.select_related("brand").order_by("pk"), at=timezone.now())
        for success, text in approval.messages():
            self.message_user(request, text, messages.SUCCESS if success else messages.ERROR)


@admin.register(DeveloperKey)
class DeveloperKeyAdmin(APIKeyModelAdmin):
    """Issue keys (the full key is shown once, in a message) and revoke them."""

    list_display = ["prefix", "name", "brand", "status", "last_used_at", "created", "revoked_at"]
    list_filter = ["revoked", "brand", "created"]
    list_select_related = ["brand"]
    search_fields = ["prefix", "name", "brand__name"]
    autocomplete_fields = ["brand"]
    actions = ["revoke_keys"]

    def get_readonly_fields(self, request, obj=None):
        fields = (*super().get_readonly_fields(request, obj), "last_used_at", "revoked_at")
        return (*fields, "brand") if obj is not None else fields

    def save_model(self, request, obj, form, change):
        if change and obj.revoked and obj.revoked_at is None:
            obj.revoked_at = timezone.now()
        super().save_model(request, obj, form, change)

    @admin.display(description="status", ordering="revoked")
    def status(self, obj):
        return key_status(obj)

    @admin.action(description="Revoke selected keys (cannot be undone)")
    def revoke_keys(self, request, queryset):
        keys = list(queryset.filter(revoked=False))
        for key in keys:
            key.revoke()
        self.message_user(request, f"Revoked {len(keys)} key(s).", messages.SUCCESS)


@admin.register(Creator)
class CreatorAdmin(admin.ModelAdmin):
    form = CreatorForm  # issue 38: her optional email, kept hashed (brands.creator_email)
    fields = ["brand", "name", "is_active", "email", "forget_email", "has_email"]
    readonly_fields = ["has_email"]
    list_display = ["name", "brand", "is_active", "created_at"]
    list_filter = ["is_active", "brand"]
    list_select_related = ["brand"]
    search_fields = ["name", "brand__name"]
    autocomplete_fields = ["brand"]

    @admin.display(description="email on file", boolean=True)
    def has_email(self, obj):
        return bool(obj and obj.email_hash)

    def get_readonly_fields(self, request, obj=None):
        # Her codes, links, shoppers and commissions stay with the brand they were made at: moving
        # her would attribute one brand's orders to another brand's creator. Add a new creator instead.
        fields = tuple(super().get_readonly_fields(request, obj))
        return (*fields, "brand") if obj is not None else fields


@admin.register(DiscountCode)
class DiscountCodeAdmin(admin.ModelAdmin):
    list_display = ["code", "brand", "creator", "tracking", "created_at"]
    list_filter = ["is_blacklisted", "brand"]
    list_select_related = ["brand", "creator"]
    search_fields = ["code", "creator__name", "brand__name"]
    autocomplete_fields = ["brand", "creator"]

    @admin.display(description="tracking", ordering="is_blacklisted")
    def tracking(self, obj):
        # Words, as for keys: a green tick beside "blacklisted" read as "fine".
        return "excluded (blacklisted)" if obj.is_blacklisted else "tracked"


@admin.register(KnownShopper)
class KnownShopperAdmin(admin.ModelAdmin):
    form = KnownShopperForm
    list_display = ["short_hash", "brand", "creator", "created_at"]
    list_filter = ["brand"]
    list_select_related = ["brand", "creator"]
    search_fields = ["email_hash", "creator__name"]
    readonly_fields = ["email_hash"]
    autocomplete_fields = ["brand", "creator"]

    @admin.display(description="email hash")
    def short_hash(self, obj):
        return f"{obj.email_hash[:16]}…"

    def get_search_results(self, request, queryset, search_term):
        # Account managers search by address; only its hash can match.
        if "@" in search_term:
            return queryset.filter(email_hash=hash_email(search_term)), False
        return super().get_search_results(request, queryset, search_term)


@admin.register(BrandMembership)
class BrandMembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "brand", "created_at"]
    list_filter = ["brand"]
    list_select_related = ["user", "brand"]
    search_fields = ["user__username", "user__email", "brand__name"]
    raw_id_fields = ["user"]
    autocomplete_fields = ["brand"]


@admin.register(UserSettings)
class UserSettingsAdmin(admin.ModelAdmin):
    """Users pick their own zone at /health/account/; a change here applies from their next sign-in."""

    list_display = ["user", "time_zone"]
    list_select_related = ["user"]
    search_fields = ["user__username", "time_zone"]
    raw_id_fields = ["user"]


from . import admin_plans  # noqa: E402, F401  (commission plan versions: read-only)
