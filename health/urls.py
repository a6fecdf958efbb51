"""Tracking health pages (docs/decisions.md, "Tracking health pages"). Each page (or family of pages) is a
package of health.pages holding its views, queries and forms; a new page adds a package, a path here and a
link in templates/base.html's nav."""

from django.urls import path

from health.pages.account import views as account
from health.pages.alerts import views as alert_pages
from health.pages.creators import views as creators
from health.pages.events import views as events
from health.pages.order import views as order
from health.pages.overview import views as overview
from health.pages.plans import views as plans
from health.pages.portfolio import views as portfolio
from health.pages.reconcile import views as reconcile
from health.pages.review import views as review
from health.pages.setup import connect as connect_shop
from health.pages.setup import install as install_shop
from health.pages.setup import views as setup
from health.pages.statements import views as statements
from health.pages.sync import views as sync_pages

app_name = "health"

urlpatterns = [
    path("", overview.overview, name="overview"),
    path("events/", events.events, name="events"),
    path("events/<int:pk>/", events.event, name="event"),
    path("export.csv", events.export, name="export"),
    path("setup/", setup.setup_page, name="setup"),
    # Connecting a shop with its platform's consent (issue 47: Shopify OAuth, WooCommerce's key handover).
    path("setup/shopify/connect", connect_shop.shopify_connect, name="shopify_connect"),
    path("setup/shopify/callback", connect_shop.shopify_callback, name="shopify_callback"),
    path("setup/shopify/install", install_shop.shopify_install, name="shopify_install"),
    path("setup/woocommerce/connect", connect_shop.woocommerce_connect, name="woocommerce_connect"),
    path("setup/woocommerce/return", connect_shop.woocommerce_return, name="woocommerce_return"),
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
    # The brand's commission plan: rules, versions, a change with its preview, a simulated order (issue 56).
    path("plan/", plans.plan_page, name="plan"),
    path("review/", review.review, name="review"),
    path("review/decide/", review.decide, name="review_decide"),
    path("review/settings/", review.review_settings, name="review_settings"),
    # The shops' sync: its history, one run's recovered orders, Sync now (docs/health.md, "The sync").
    path("sync/", sync_pages.sync_history, name="sync_history"),
    path("sync/<int:pk>/", sync_pages.sync_run, name="sync_run"),
    path("sync/now/", sync_pages.sync_now, name="sync_now"),
]
