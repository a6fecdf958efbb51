"""Review holds for account managers (docs/review.md): each brand's review settings (rules on or off, their
thresholds, the coupon and deal sites), and the holds with their evidence, released or rejected one at a
time or in bulk, with a note, through attribution.review.decisions (the holds are otherwise read-only)."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm

from ..models import CommissionHold, ReviewFlag, ReviewSettings
from ..review import decisions
from .common import CommissionColumns, ReadOnlyAdmin


@admin.register(ReviewSettings)
class ReviewSettingsAdmin(admin.ModelAdmin):
    list_display = [
        "brand",
        "self_referral",
        "disposable_email",
        "code_leak",
        "refund_rate",
        "click_reuse",
        "review_days",
    ]
    list_select_related = ["brand"]
    search_fields = ["brand__name"]
    autocomplete_fields = ["brand"]
    fieldsets = [
        (None, {"fields": ["brand", "review_days"]}),
        (
            "Rules",
            {"fields": ["self_referral", "disposable_email", "code_leak", "refund_rate", "click_reuse"]},
        ),
        (
            "Thresholds (docs/review.md gives the reasons for the defaults)",
            {
                "fields": [
                    "refund_rate_multiple",
                    "refund_rate_min_orders",
                    "refund_rate_days",
                    "code_leak_recent_orders",
                    "code_leak_jump_points",
                    "click_reuse_per_hour",
                ]
            },
        ),
        ("Coupon and deal sites", {"fields": ["coupon_domains"]}),
    ]


class DecisionForm(ActionForm):
    note = forms.CharField(required=False, max_length=1000, help_text="Why: kept with each hold decided.")


@admin.register(CommissionHold)
class CommissionHoldAdmin(CommissionColumns, ReadOnlyAdmin):
    list_display = ["order_link", "brand", "creator", "rule", "detail", "held_at", "decision", "decided_at"]
    list_filter = ["decision", "rule", "brand"]
    list_select_related = ["brand", "commission__order", "commission__creator"]
    search_fields = ["commission__order__order_id", "commission__creator__name", "detail"]
    date_hierarchy = "held_at"
    action_form = DecisionForm
    actions = ["release", "reject"]

    def has_change_permission(self, request, obj=None):
        # The actions decide; the rows themselves are never edited here.
        return request.user.has_perm("attribution.change_commissionhold") and obj is None

    def _decide(self, request, queryset, decision: str):
        who = decisions.Who(via=CommissionHold.Via.ADMIN, user=request.user)
        note = request.POST.get("note", "").strip()
        ids = set(queryset.values_list("commission_id", flat=True))
        outcomes = decisions.summary(decisions.decide_many(ids, decision, note=note, who=who))
        told = ", ".join(
            f"{count} {outcome.replace('_', ' ')}" for outcome, count in sorted(outcomes.items())
        )
        self.message_user(request, f"Commissions: {told}.", messages.SUCCESS)

    @admin.action(description="Release the selected holds' commissions (pending again)")
    def release(self, request, queryset):
        self._decide(request, queryset, decisions.RELEASE)

    @admin.action(description="Reject the selected holds' commissions (cancelled)")
    def reject(self, request, queryset):
        self._decide(request, queryset, decisions.REJECT)


@admin.register(ReviewFlag)
class ReviewFlagAdmin(ReadOnlyAdmin):
    list_display = ["brand", "kind", "detail", "computed_at"]
    list_filter = ["kind", "brand"]
    list_select_related = ["brand"]
