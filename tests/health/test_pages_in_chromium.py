"""The pages as a person sees them, in a real headless Chromium against the live server."""

import pytest
from django.urls import reverse

from health.models import OutcomeEvent
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

BODY = (
    '{"orderId": 12.5, "orderAmount": 0.0000001, "currency": "USD", "total": 100.00, '
    '"page_url": "https://shop.acme.example/t", "customer_email": "ana@example.com"}'
)


@pytest.fixture
def acme():
    brand = factories.BrandFactory(name="Acme")
    factories.PropertyFactory(brand=brand, host="shop.acme.example")
    return brand


@pytest.fixture
def alice(acme):
    return factories.MembershipFactory(brand=acme, user__username="alice").user


def test_the_event_page_shows_the_body_with_the_json_types_it_was_sent_with(
    api, acme, alice, signed_in, live_server
):
    api.post("/api/order_confirmation", BODY)
    event = OutcomeEvent.objects.get()
    assert event.outcome == "invalid_order_id"  # 12.5 is a number with a fraction
    page = signed_in(alice)

    page.goto(live_server.url + reverse("health:event", args=[event.pk]))
    shown = page.evaluate("document.querySelector('pre.json').innerText")
    page.screenshot("/tmp/i19/event-body.png")

    assert '"orderId": 12.5,' in shown
    assert '"orderAmount": 0.0000001,' in shown
    assert '"total": 100.00,' in shown
    assert "ana@example.com" not in shown and '"customer_email": "sha256:' in shown
    assert "a number with a fraction" in page.evaluate("document.body.innerText")


# --- Content-Security-Policy: every page works under it ------------------------------------------------------


@pytest.fixture
def staff():
    return factories.UserFactory(username="manager", is_staff=True, is_superuser=True)


def _open(page, url: str, ready: str = "document.readyState === 'complete'"):
    page.goto(url)
    page.wait_for(ready)
    return page.evaluate("window.cspViolations")


def test_the_health_pages_work_under_the_content_security_policy(acme, alice, signed_in, live_server, api):
    api.post("/api/order_confirmation", BODY)
    event = OutcomeEvent.objects.get()
    page = signed_in(alice)
    page.watch_csp_violations()

    for name, args in [
        ("health:overview", []),
        ("health:events", []),
        ("health:event", [event.pk]),
        ("health:statements", []),
    ]:
        assert _open(page, live_server.url + reverse(name, args=args)) == [], name
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px", name  # health.css applied

    # The setup page's one script (a "Copy" button under each snippet) runs from its static file.
    violations = _open(
        page, live_server.url + reverse("health:setup"), "!!document.querySelector('pre[data-copy] + button')"
    )
    assert violations == []
    page.screenshot("/tmp/i19/setup-under-csp.png")


def test_the_admin_works_under_the_content_security_policy(staff, signed_in, live_server, acme):
    page = signed_in(staff)
    page.watch_csp_violations()

    for path in [
        "/admin/",
        "/admin/health/outcomeevent/",
        f"/admin/brands/brand/{acme.pk}/change/",
        "/admin/brands/brand/",
    ]:
        assert _open(page, live_server.url + path) == [], path
    # The changelist's own script ran: ticking "select all" selects every row.
    page.evaluate("document.querySelector('#action-toggle').click()")
    assert page.evaluate("document.querySelectorAll('input.action-select:checked').length") == 1
    page.screenshot("/tmp/i19/admin-under-csp.png")


def test_swagger_ui_works_under_the_content_security_policy(staff, signed_in, live_server):
    page = signed_in(staff)
    page.watch_csp_violations()

    violations = _open(
        page, live_server.url + "/api/docs/", "document.querySelectorAll('.opblock').length >= 4"
    )

    assert violations == []
    page.screenshot("/tmp/i19/swagger-under-csp.png")


def test_the_sign_in_page_works_under_the_content_security_policy(browser, live_server):
    page = browser.page()
    page.watch_csp_violations()

    assert _open(page, live_server.url + "/accounts/login/") == []
    page.goto("about:blank")
