"""/health/review/: Acme's held commissions with their evidence, filterable by rule and creator, live and
test apart; released or rejected one at a time or in bulk with a note, by whoever decided. alice (Acme) and
the account manager work Acme's queue, bob (Globex) gets a 404 and can decide nothing of it, an anonymous
visitor is sent to sign in."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.utils import timezone

from attribution.models import Commission, CommissionHold, CommissionStateChange
from tests import factories
from tests.health.reviewing import held

pytestmark = pytest.mark.django_db

PAGE = "/health/review/"
DECIDE = "/health/review/decide/"


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode())))


@pytest.fixture
def queue(brand, creator):
    """Acme: Ana's self-referral (oldest), Ana's throwaway address, Bea's leaked code, and a test hold."""
    now = timezone.now()
    bea = factories.CreatorFactory(brand=brand, name="Bea")
    return {
        "self": held(
            brand,
            creator,
            "A-1",
            at=now - timedelta(days=3),
            detail="the shopper's email is Ana's own (hashed match)",
        ),
        "email": held(brand, creator, "A-2", at=now - timedelta(days=2), rules=("disposable_email",)),
        "leak": held(
            brand, bea, "B-1", at=now - timedelta(days=1), rules=("code_leak",), detail="code BEA5 …"
        ),
        "test": held(brand, creator, "T-1", at=now, is_test=True),
    }


def shown_orders(response) -> list[str]:
    return [held.order_id for held in response.context["queue"].held]


def decide(client, commissions, decision, note="", **filters):
    return client.post(
        DECIDE, {"commission": [c.pk for c in commissions], "decision": decision, "note": note, **filters}
    )


# --- who sees it ------------------------------------------------------------------------------------


def test_alice_sees_acmes_held_commissions_oldest_first_with_their_evidence(alice_client, queue, brand):
    response = alice_client.get(PAGE)

    assert response.status_code == 200
    assert shown_orders(response) == ["A-1", "A-2", "B-1"]
    text = text_of(response)
    assert "The shopper's email is Ana's own (hashed match)" in text
    assert "Self-referral" in text and "Throwaway email address" in text
    assert f'href="/health/orders/A-1?brand={brand.pk}"' in response.content.decode()
    assert "1 test commission is held apart" in text


def test_the_test_namespace_shows_test_holds_only(alice_client, queue, brand):
    response = alice_client.get(PAGE, {"ns": "test"})

    assert shown_orders(response) == ["T-1"]
    assert f'href="/health/orders/T-1?brand={brand.pk}&amp;ns=test"' in response.content.decode()
    assert "3 live commissions are held as well" in text_of(response)


def test_bob_gets_a_404_for_acme_and_sees_only_his_own_queue(client, bob, queue, brand, other_brand):
    client.force_login(bob)

    assert client.get(PAGE, {"brand": brand.pk}).status_code == 404
    own = client.get(PAGE)
    assert own.status_code == 200 and shown_orders(own) == []
    assert "Nothing to review" in text_of(own)


def test_anonymous_visitors_are_sent_to_sign_in(client, queue):
    assert client.get(PAGE).status_code == 302
    response = decide(client, [queue["self"]], "release")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Commission.objects.get(pk=queue["self"].pk).state == Commission.State.HELD


def test_the_account_manager_sees_any_brands_queue(client, staff, queue, brand):
    client.force_login(staff)

    assert shown_orders(client.get(PAGE, {"brand": brand.pk})) == ["A-1", "A-2", "B-1"]


def test_the_nav_links_the_review_page(alice_client, queue):
    response = alice_client.get("/health/")

    assert 'href="/health/review/"' in response.content.decode()


# --- filters ----------------------------------------------------------------------------------------


def test_it_filters_by_rule(alice_client, queue):
    response = alice_client.get(PAGE, {"rule": "disposable_email"})

    assert shown_orders(response) == ["A-2"]
    assert [(c.value, c.count) for c in response.context["queue"].rules] == [
        ("self_referral", 1),
        ("disposable_email", 1),
        ("code_leak", 1),
    ]


def test_it_filters_by_creator_and_by_both(alice_client, queue, creator):
    assert shown_orders(alice_client.get(PAGE, {"creator": creator.pk})) == ["A-1", "A-2"]
    assert shown_orders(alice_client.get(PAGE, {"creator": creator.pk, "rule": "code_leak"})) == []


def test_a_commission_with_two_holds_shows_both_and_matches_either_rule(alice_client, brand, creator):
    held(brand, creator, "A-9", at=timezone.now(), rules=("self_referral", "disposable_email"))

    for rule in ("self_referral", "disposable_email"):
        response = alice_client.get(PAGE, {"rule": rule})
        assert shown_orders(response) == ["A-9"]
        assert [h.rule for h in response.context["queue"].held[0].holds] == [
            "self_referral",
            "disposable_email",
        ]


def test_an_unknown_filter_value_is_ignored_and_said(alice_client, queue):
    response = alice_client.get(PAGE, {"rule": "made_up", "creator": "x"})

    assert response.status_code == 200 and shown_orders(response) == ["A-1", "A-2", "B-1"]
    assert "Select a valid choice" in text_of(response)


# --- decisions --------------------------------------------------------------------------------------


def test_alice_releases_one_with_a_note(alice_client, alice, queue, brand):
    commission = queue["self"]

    response = decide(
        alice_client, [commission], "release", "Her sister's order, agreed with her", rule="self_referral"
    )

    assert response.status_code == 302
    assert response["Location"] == f"/health/review/?brand={brand.pk}&rule=self_referral"
    commission.refresh_from_db()
    assert commission.state == Commission.State.PENDING
    hold = CommissionHold.objects.get(commission=commission)
    assert (hold.decision, hold.note, hold.decided_by, hold.via) == (
        "released",
        "Her sister's order, agreed with her",
        alice,
        "page",
    )
    move = CommissionStateChange.objects.get(commission=commission)
    assert (move.from_state, move.to_state) == ("held", "pending")
    page = alice_client.get(response["Location"])
    assert "Released 1 held commission (A-1)" in text_of(page)
    assert shown_orders(page) == []
    assert "Her sister's order, agreed with her" in text_of(page) and "alice" in text_of(
        page
    )  # decided lately


def test_the_account_manager_rejects_one_and_is_recorded(client, staff, queue, brand):
    client.force_login(staff)
    commission = queue["leak"]

    response = decide(client, [commission], "reject", "Found on a coupon site")

    assert response.status_code == 302
    commission.refresh_from_db()
    assert commission.state == Commission.State.CANCELLED
    hold = CommissionHold.objects.get(commission=commission)
    assert (hold.decision, hold.decided_by) == ("rejected", staff)
    move = CommissionStateChange.objects.get(commission=commission)
    assert (move.from_state, move.to_state) == ("held", "cancelled")
    assert "Rejected 1 held commission (B-1): cancelled, never billed." in text_of(
        client.get(response["Location"])
    )


def test_alice_releases_and_rejects_in_bulk(alice_client, alice, queue):
    released = decide(alice_client, [queue["self"], queue["email"]], "release", "Checked with the shop")
    assert released.status_code == 302

    rejected = decide(alice_client, [queue["leak"], queue["test"]], "reject")
    assert rejected.status_code == 302

    states = dict(Commission.objects.values_list("order__order_id", "state"))
    assert states == {"A-1": "pending", "A-2": "pending", "B-1": "cancelled", "T-1": "cancelled"}
    assert set(CommissionHold.objects.values_list("decided_by", flat=True)) == {alice.pk}
    assert CommissionStateChange.objects.count() == 4
    assert "Released 2 held commissions (A-1, A-2)" in text_of(alice_client.get(released["Location"]))


def test_a_commission_decided_meanwhile_is_said_and_left_alone(alice_client, queue):
    decide(alice_client, [queue["self"]], "release")

    response = decide(alice_client, [queue["self"], queue["email"]], "reject")

    states = dict(Commission.objects.values_list("order__order_id", "state"))
    assert (states["A-1"], states["A-2"]) == ("pending", "cancelled")
    text = text_of(alice_client.get(response["Location"]))
    assert "Rejected 1 held commission (A-2)" in text
    assert "1 commission was no longer held (A-1)" in text


def test_bob_cannot_decide_on_acmes_commissions(client, bob, queue):
    client.force_login(bob)

    response = decide(client, [queue["self"]], "reject")

    assert response.status_code == 400
    assert "Nothing was decided" in text_of(response)
    assert Commission.objects.get(pk=queue["self"].pk).state == Commission.State.HELD
    assert not CommissionHold.objects.filter(decided_at__isnull=False).exists()


def test_a_bad_decision_or_none_ticked_is_refused(alice_client, queue):
    assert decide(alice_client, [queue["self"]], "approve").status_code == 400
    response = decide(alice_client, [], "release")

    assert response.status_code == 400
    assert "Tick at least one held commission." in text_of(response)
    assert CommissionStateChange.objects.count() == 0


def test_a_decision_needs_the_csrf_token(client, alice, queue):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)

    assert decide(browser, [queue["self"]], "release").status_code == 403
    assert Commission.objects.get(pk=queue["self"].pk).state == Commission.State.HELD


def test_the_page_reads_in_a_fixed_number_of_queries(
    alice_client, queue, brand, creator, django_assert_max_num_queries
):
    for n in range(10):
        held(brand, creator, f"M-{n}", at=timezone.now(), rules=("self_referral", "click_reuse"))

    with django_assert_max_num_queries(16):
        response = alice_client.get(PAGE)

    assert len(shown_orders(response)) == 13
