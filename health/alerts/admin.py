"""Alerts in the admin for account managers: a brand's rules (editable), webhook channels (including the
account managers' own, without a brand, for service-side incidents), and read-only incidents and the
delivery log. The schedules of the task runner are django-q's own admin pages."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from config.lib.admin import ReadOnlyAdmin, admin_link
from health.alerts.descriptions import describe
from health.alerts.models import AlertEvaluation, AlertRuleSet, Channel, Delivery, DeliveryAttempt, Incident
from health.alerts.notify.webhooks import new_secret


@admin.register(AlertRuleSet)
class AlertRuleSetAdmin(admin.ModelAdmin):
    list_display = [
        "brand",
        "silence_enabled",
        "silence_floor_minutes",
        "spike_enabled",
        "spike_percent",
        "new_problem_enabled",
        "email_enabled",
        "updated_at",
    ]
    list_select_related = ["brand"]
    search_fields = ["brand__name"]
    autocomplete_fields = ["brand"]
    readonly_fields = ["updated_at"]
    fieldsets = [
        (None, {"fields": ["brand", "email_enabled", "updated_at"]}),
        ("Silence", {"fields": ["silence_enabled", "silence_floor_minutes", "silence_usual_orders"]}),
        ("Problem spike", {"fields": ["spike_enabled", "spike_percent", "spike_min_events"]}),
        ("New problem", {"fields": ["new_problem_enabled", "new_problem_count"]}),
        ("Capture rate", {"fields": ["capture_enabled", "capture_drop_points", "capture_normal_percent"]}),
        # Their thresholds are the brand's review settings (Attribution › Review settings).
        ("Review", {"fields": ["review_overdue_enabled", "code_leak_enabled", "refund_outlier_enabled"]}),
    ]


@admin.register(Incident)
class IncidentAdmin(ReadOnlyAdmin):
    list_display = ["opened_at", "brand_link", "rule", "subject", "resolved_at", "summary"]
    list_filter = ["rule", ("resolved_at", admin.EmptyFieldListFilter), "opened_at"]
    list_select_related = ["brand"]
    search_fields = ["brand__name", "subject"]
    ordering = ["-opened_at", "-id"]
    fields = ["brand_link", "health_page", "rule", "subject", "opened_at", "resolved_at", "summary", "counts"]
    readonly_fields = fields

    @admin.display(description="brand", ordering="brand__name")
    def brand_link(self, obj):
        return admin_link(obj.brand) if obj.brand_id else "service side (every brand)"

    @admin.display(description="what it says")
    def summary(self, obj):
        return describe(obj).summary

    @admin.display(description="as the brand sees it")
    def health_page(self, obj):
        if obj.brand_id is None:
            return format_html('<a href="{}">Portfolio</a>', reverse("health:portfolio"))
        url = f"{reverse('health:incident', args=[obj.pk])}?brand={obj.brand_id}"
        return format_html('<a href="{}">Incident page</a>', url)


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    list_display = ["url", "brand", "format", "is_active", "created_at"]
    list_filter = ["format", "is_active"]
    list_select_related = ["brand"]
    search_fields = ["url", "brand__name"]
    autocomplete_fields = ["brand"]
    readonly_fields = ["secret", "created_at"]
    fields = ["brand", "url", "format", "is_active", "secret", "created_at"]

    def save_model(self, request, obj, form, change):
        if not obj.secret:
            obj.secret = new_secret()
        super().save_model(request, obj, form, change)


class AttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    fields = ["number", "attempted_at", "ok", "status_code", "error", "duration_ms"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class NotificationDeliveryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "notification", "target", "status", "attempts", "next_attempt_at"]
    list_filter = ["status", "notification__kind"]
    list_select_related = ["notification", "channel"]
    ordering = ["-created_at", "-id"]
    fields = ["notification", "target", "status", "attempts", "next_attempt_at", "created_at", "finished_at"]
    readonly_fields = fields
    inlines = [AttemptInline]

    @admin.display(description="to")
    def target(self, obj):
        return obj.channel.url if obj.channel_id else "email"


@admin.register(AlertEvaluation)
class AlertEvaluationAdmin(ReadOnlyAdmin):
    list_display = ["last_started_at", "last_finished_at", "last_brands", "last_duration_ms", "running_until"]
