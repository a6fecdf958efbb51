"""Tracking health pages (docs/decisions.md, "Tracking health pages"). New pages of the brand area add a path here and a link in
templates/base.html's nav."""

from django.urls import path

from health.pages import account, creators, events, order, portfolio, reconcile, review, setup, statements
from health.pages import alerts as alert_pages
from health.pages.platform_connect import (
    shopify_callback,
    shopify_connect,
    woocommerce_connect,
    woocommerce_return,
)
from health.pages.sync import views as sync_pages

app_name = "health"

urlpatterns = [
    path("", events.overview, name="overview"),
    path("events/", events.events, name="events"),
    path("events/<int:pk>/", events.event, name="event"),
    path("export.csv", events.export, name="export"),
    path("setup/", setup.setup_page, name="setup"),
    # Connecting a shop with its platform's consent (issue 47: Shopify OAuth, WooCommerce's key handover).
    path("setup/shopify/connect", shopify_connect, name="shopify_connect"),
    path("setup/shopify/callback", shopify_callback, name="shopify_callback"),
    path("setup/woocommerce/connect", woocommerce_connect, name="woocommerce_connect"),
    path("setup/woocommerce/return", woocommerce_return, name="woocommerce_return"),
    path("account/", account.account, name="account"),
    path("statements/", statements.statements, name="statements"),
    path("statements/<int:pk>/", statements.statement, name="statement"),
    path("statements/<int:pk>/export.csv", statements.statement_csv, name="statement_export"),
    # Alerts, the order page and the portfolio (docs/alerts.md).
    path("alerts/", alert_pages.alerts, name="alerts"),
    path("alerts/channels/", alert_pages.add_channel, name="add_channel"),
    path("alerts/channels/<int:pk>/test/", alert_pages.test_channel, name="test_channel"),
    path("alerts/channels/<int:pk>/remove/", alert_pages.remove_channel, name="remove_channel"),
    path("alerts/incidents/<int:pk>/", alert_pages.incident, name="incident"),
    path("orders/", order.order_search, name="order_search"),
    path("orders/<path:order_id>", order.order, name="order"),
    path("portfolio/", portfolio.portfolio, name="portfolio"),
    # What each creator brings, costs and risks (docs/health.md, "Creators").
    path("creators/", creators.creators, name="creators"),
    path("creators/export.csv", creators.export, name="creators_export"),
    path("creators/<int:pk>/", creators.creator, name="creator"),
    # The reconciliation of the brand's order book (docs/reconciliation.md).
    path("reconcile/", reconcile.reconcile, name="reconcile"),
    path("reconcile/<int:pk>/", reconcile.reconciliation, name="reconciliation"),
    path("reconcile/<int:pk>/apply/", reconcile.apply, name="reconciliation_apply"),
    path("reconcile/<int:pk>/differences.csv", reconcile.differences_csv, name="reconciliation_export"),
    # Review holds: the held commissions and the decisions on them, the brand's review settings.
    path("review/", review.review, name="review"),
    path("review/decide/", review.decide, name="review_decide"),
    path("review/settings/", review.review_settings, name="review_settings"),
    # The shops' sync: its history, one run's recovered orders, Sync now (docs/health.md, "The sync").
    path("sync/", sync_pages.sync_history, name="sync_history"),
    path("sync/<int:pk>/", sync_pages.sync_run, name="sync_run"),
    path("sync/now/", sync_pages.sync_now, name="sync_now"),
]
