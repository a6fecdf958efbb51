"""/health/review/settings/: a brand's review rules on or off, their thresholds, the review time and the
coupon and deal sites, validated by a form. alice changes Acme's, the account manager any brand's; bob gets a
404 for Acme's and an anonymous visitor is sent to sign in."""

import re
from html import unescape

import pytest

from attribution.models import ReviewSettings
from attribution.review import settings_copy

pytestmark = pytest.mark.django_db

PAGE = "/health/review/settings/"


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


def form(**changes) -> dict:
    """Every field as the page posts it, with the defaults (all rules on), then `changes` (None: left out)."""
    values = {
        "self_referral": "on",
        "disposable_email": "on",
        "code_leak": "on",
        "refund_rate": "on",
        "click_reuse": "on",
        "refund_rate_multiple": "2.00",
        "refund_rate_min_orders": "20",
        "refund_rate_days": "90",
        "code_leak_recent_orders": "50",
        "code_leak_jump_points": "30",
        "click_reuse_per_hour": "5",
        "review_days": "7",
        "coupon_domains": "retailmenot.com\nhoney.com",
    } | changes
    return {k: v for k, v in values.items() if v is not None}


def test_alice_sees_the_defaults_before_any_change(alice_client):
    response = alice_client.get(PAGE)

    assert response.status_code == 200
    page = response.content.decode()
    assert 'name="review_days" value="7"' in page
    assert "retailmenot.com" in page
    assert "Save review settings" in text_of(response)


def test_alice_turns_rules_off_and_changes_thresholds(alice_client, brand):
    response = alice_client.post(
        PAGE,
        form(
            disposable_email=None,
            click_reuse=None,
            review_days="3",
            refund_rate_multiple="2.5",
            coupon_domains="  WWW.RetailMeNot.com \n\nhoney.com\ndeals.example.co.uk\nhoney.com",
        ),
    )

    assert response.status_code == 302 and response["Location"] == f"{PAGE}?brand={brand.pk}"
    saved = ReviewSettings.objects.get(brand=brand)
    assert (saved.disposable_email, saved.click_reuse, saved.self_referral) == (False, False, True)
    assert (saved.review_days, str(saved.refund_rate_multiple)) == (3, "2.50")
    assert saved.coupon_domains == "retailmenot.com\nhoney.com\ndeals.example.co.uk"
    review = settings_copy.review_of(brand.pk)  # what the order path judges by now
    assert "disposable_email" not in review.on and review.review_days == 3
    assert "Review settings saved" in text_of(alice_client.get(response["Location"]))


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("review_days", "0", "greater than or equal to 1"),
        ("review_days", "400", "less than or equal to 90"),
        ("refund_rate_multiple", "1.0", "greater than or equal to 1.1"),
        ("refund_rate_min_orders", "2", "greater than or equal to 5"),
        ("code_leak_jump_points", "101", "less than or equal to 100"),
        ("click_reuse_per_hour", "abc", "Enter a whole number"),
        ("coupon_domains", "retailmenot.com\nnot a domain\ncom", "Not a site's domain: not a domain, com."),
    ],
)
def test_a_bad_value_is_refused_and_nothing_is_saved(alice_client, brand, field, value, error):
    response = alice_client.post(PAGE, form(**{field: value}))

    assert response.status_code == 400
    text = text_of(response)
    assert "nothing was saved" in text and error in text
    assert not ReviewSettings.objects.filter(brand=brand).exists()


def test_bob_cannot_read_or_change_acmes_settings(client, bob, brand):
    client.force_login(bob)

    assert client.get(PAGE, {"brand": brand.pk}).status_code == 404
    assert client.post(f"{PAGE}?brand={brand.pk}", form(review_days="2")).status_code == 404
    assert not ReviewSettings.objects.filter(brand=brand).exists()


def test_anonymous_visitors_are_sent_to_sign_in(client, brand):
    assert client.get(PAGE).status_code == 302
    assert client.post(PAGE, form()).status_code == 302
    assert not ReviewSettings.objects.exists()


def test_the_account_manager_changes_any_brands_settings(client, staff, brand):
    client.force_login(staff)

    response = client.post(f"{PAGE}?brand={brand.pk}", form(review_days="14"))

    assert response.status_code == 302
    assert ReviewSettings.objects.get(brand=brand).review_days == 14
