"""Tracking health pages (docs/decisions.md, "Tracking health pages"). New pages of the brand area add a path here and a link in
templates/base.html's nav."""

from django.urls import path

from . import account, setup, statements, views

app_name = "health"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("events/", views.events, name="events"),
    path("events/<int:pk>/", views.event, name="event"),
    path("export.csv", views.export, name="export"),
    path("setup/", setup.setup_page, name="setup"),
    path("account/", account.account, name="account"),
    path("statements/", statements.statements, name="statements"),
    path("statements/<int:pk>/", statements.statement, name="statement"),
    path("statements/<int:pk>/export.csv", statements.statement_csv, name="statement_export"),
]
