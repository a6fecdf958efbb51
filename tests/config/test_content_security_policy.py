"""Every page carries a Content-Security-Policy; the JSON event endpoints, called from brands' own pages,
carry none. (That the pages, the admin and Swagger UI work under it: tests/health/pages/browser/.)"""

import pytest

pytestmark = pytest.mark.django_db

POLICY = "Content-Security-Policy"


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/", "/api/docs/", "/health/"])
def test_pages_carry_a_policy_without_inline_script(client, path):
    response = client.get(path, follow=True)

    policy = response[POLICY]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy


def test_the_event_endpoints_answer_without_a_policy(api, prop):
    response = api.post(
        "/api/order_confirmation",
        {"orderId": "A-1", "orderAmount": 1, "currency": "USD", "page_url": f"https://{prop.host}/"},
    )

    assert response.status_code == 200
    assert POLICY not in response
