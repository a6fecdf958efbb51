"""The reconciliation's paths under api/Affiliates/, with or without a trailing slash and never redirected, as
the event API's (docs/decisions.md, "Paths"). Their names are not namespaced: reverse as "reconciliation"."""

from django.urls import re_path

from . import views

urlpatterns = [
    re_path(r"^reconciliations/?$", views.ReconciliationsView.as_view(), name="reconciliations"),
    re_path(
        r"^reconciliations/(?P<pk>[0-9]{1,18})/?$", views.ReconciliationView.as_view(), name="reconciliation"
    ),
    re_path(
        r"^reconciliations/(?P<pk>[0-9]{1,18})/apply/?$",
        views.ApplyView.as_view(),
        name="reconciliation_apply",
    ),
]
