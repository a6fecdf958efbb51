"""The interface's paths, with or without a trailing slash and never redirected (docs/decisions.md, "Paths")."""

from django.urls import re_path

from attribution.api import plans, review, views

app_name = "api"

urlpatterns = [
    re_path(r"^order_confirmation/?$", views.OrderConfirmationView.as_view(), name="order_confirmation"),
    re_path(r"^Affiliates/cancel/?$", views.CancelView.as_view(), name="cancel"),
    re_path(r"^Affiliates/update/?$", views.UpdateView.as_view(), name="update"),
    re_path(r"^Affiliates/review/?$", review.ReviewView.as_view(), name="review"),  # issue 38
    # issue 56: a brand's commission plan, managed as code (docs/plans.md)
    re_path(r"^Affiliates/commission_plan/?$", plans.CommissionPlanView.as_view(), name="commission_plan"),
    re_path(
        r"^Affiliates/commission_plan/preview/?$",
        plans.CommissionPlanPreviewView.as_view(),
        name="commission_plan_preview",
    ),
    # Order ids may hold slashes ("SO/2026/0001") and line breaks (the order endpoints store what JSON can
    # say); one trailing slash is the path's, not the id's. \Z, not $, which also matches before a final "\n".
    re_path(r"^Affiliates/orders/(?P<order_id>[\s\S]+?)/?\Z", views.OrderReadView.as_view(), name="order"),
]
