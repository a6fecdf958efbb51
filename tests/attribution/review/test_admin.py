"""The admin's review pages (docs/review.md): an account manager releases or rejects holds in bulk with a note,
and sets a creator's email, which is kept only as its hash."""

import pytest

from attribution.models import CommissionHold
from brands.hosts import hash_email
from brands.models import Creator
from tests.attribution.keyed import fresh
from tests.attribution.review.helpers import held_commission

pytestmark = pytest.mark.django_db

HOLDS = "/admin/attribution/commissionhold/"


def test_an_account_manager_releases_and_rejects_holds_with_a_note(admin_client, admin_user, brand):
    first, second, third = (held_commission(brand, f"A-{n}") for n in range(3))
    ids = lambda *cs: [str(CommissionHold.objects.get(commission=c).pk) for c in cs]  # noqa: E731

    listed = admin_client.get(HOLDS)
    released = admin_client.post(
        HOLDS,
        {"action": "release", "_selected_action": ids(first, second), "note": "real customers"},
        follow=True,
    )
    rejected = admin_client.post(HOLDS, {"action": "reject", "_selected_action": ids(third)}, follow=True)

    assert listed.status_code == 200 and b"self_referral" in listed.content
    assert b"2 released" in released.content and b"1 rejected" in rejected.content
    assert [fresh(c).state for c in (first, second, third)] == ["pending", "pending", "cancelled"]
    hold = CommissionHold.objects.get(commission=first)
    assert (hold.note, hold.decided_by, hold.via) == ("real customers", admin_user, "admin")


def test_a_creators_email_is_kept_only_as_its_hash(admin_client, creator):
    url = f"/admin/brands/creator/{creator.pk}/change/"

    response = admin_client.post(
        url, {"name": creator.name, "is_active": "on", "email": " Ana@Creators.example "}
    )

    assert response.status_code == 302, response.content
    creator.refresh_from_db()
    assert creator.email_hash == hash_email("ana@creators.example")
    assert "creators.example" not in str(Creator.objects.filter(pk=creator.pk).values().get())
