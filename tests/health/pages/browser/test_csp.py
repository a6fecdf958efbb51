"""Every page works under the Content-Security-Policy (config/csp.py), in Chromium: no violation is
reported, the stylesheets apply and the pages' own scripts run. Also the event page shows a request body
with the JSON types it was sent with, and no email address."""

import pytest
from django.urls import reverse

from health.log.models import OutcomeEvent
from tests import factories
from tests.health.pages.browser.session import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

BODY = (
    '{"orderId": 12.5, "orderAmount": 0.0000001, "currency": "USD", "total": 100.00, '
    '"page_url": "https://shop.acme.example/t", "customer_email": "ana@example.com"}'
)
# Kept in window.cspViolations from the first script of every document on.
WATCH = (
    "window.cspViolations = [];"
    "document.addEventListener('securitypolicyviolation', function (e) {"
    "  window.cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline'));"
    "});"
)


@pytest.fixture
def acme():
    brand = factories.BrandFactory(name="Acme")
    factories.PropertyFactory(brand=brand, host="shop.acme.example")
    return brand


@pytest.fixture
def alice(acme):
    return factories.MembershipFactory(brand=acme, user__username="alice").user


@pytest.fixture
def staff():
    return factories.UserFactory(username="manager", is_staff=True, is_superuser=True)


@pytest.fixture
def watched(new_context, live_server):
    """watched(user) -> a page signed in as `user` (None: anonymous) that records CSP violations."""

    def open_(user):
        context = new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
        sign_in(context, user, live_server.url)
        context.add_init_script(WATCH)
        return context.new_page()

    return open_


def violations(page, path: str, ready: str | None = None) -> list:
    """The violations reported on `path`, once the element `ready` (a CSS selector) is there. Waiting uses
    a locator: a JavaScript predicate would be evaluated with eval(), which the policy forbids."""
    page.goto(path)
    if ready:  # Swagger UI builds its page from the schema, which takes seconds on a busy machine
        page.locator(ready).first.wait_for(timeout=90_000)
    return page.evaluate("window.cspViolations")


def test_the_event_page_shows_the_body_with_the_json_types_it_was_sent_with(api, acme, alice, watched):
    api.post("/api/order_confirmation", BODY)
    event = OutcomeEvent.objects.get()
    assert event.outcome == "invalid_order_id"  # 12.5 is a number with a fraction
    page = watched(alice)

    page.goto(reverse("health:event", args=[event.pk]))
    shown = page.locator("pre.json").first.inner_text()

    assert '"orderId": 12.5,' in shown
    assert '"orderAmount": 0.0000001,' in shown
    assert '"total": 100.00,' in shown
    assert "ana@example.com" not in shown and '"customer_email": "sha256:' in shown
    assert "a number with a fraction" in page.locator("body").inner_text()


def test_the_health_pages_work_under_the_content_security_policy(acme, alice, watched, api):
    api.post("/api/order_confirmation", BODY)
    event = OutcomeEvent.objects.get()
    page = watched(alice)

    for name, args in [
        ("health:overview", []),
        ("health:events", []),
        ("health:event", [event.pk]),
        ("health:statements", []),
        ("health:alerts", []),
        ("health:account", []),
    ]:
        assert violations(page, reverse(name, args=args)) == [], name
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px", name  # health.css applied

    # The setup page's one script (a "Copy" button under each snippet) runs from its static file.
    assert violations(page, reverse("health:setup"), "pre[data-copy] + button") == []


def test_the_admin_works_under_the_content_security_policy(staff, watched, acme):
    page = watched(staff)

    for path in [
        "/admin/",
        "/admin/health/outcomeevent/",
        f"/admin/brands/brand/{acme.pk}/change/",
        "/admin/brands/brand/",
    ]:
        assert violations(page, path) == [], path
    # The changelist's own script ran: ticking "select all" selects every row.
    page.locator("#action-toggle").click()
    assert page.evaluate("document.querySelectorAll('input.action-select:checked').length") == 1


def test_swagger_ui_works_under_the_content_security_policy(staff, watched):
    page = watched(staff)

    assert violations(page, "/api/docs/", ".opblock >> nth=3") == []


def test_the_sign_in_page_works_under_the_content_security_policy(watched):
    assert violations(watched(None), "/accounts/login/") == []
