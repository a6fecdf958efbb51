"""The Review page's "Decided lately › By" (and a reconciliation's "Uploaded by"): a brand user sees who of the
brand did it, and "your account manager" for the service's staff, whose login name is not the brand's to know
(docs/threat-model.md, "The pages"). The account manager sees the login names."""

import re
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from attribution.models import CommissionHold, Reconciliation
from attribution.review import decisions
from tests.health.reviewing import held

pytestmark = pytest.mark.django_db

PAGE = "/health/review/"


def deciders(response) -> list[str]:
    return [
        re.sub(r"\s+", " ", cell).strip()
        for cell in re.findall(r'<td data-label="By">(.*?)</td>', response.content.decode(), re.S)
    ]


@pytest.fixture
def decided(brand, creator, alice, staff):
    """A-1 rejected by the account manager in the admin, then A-2 released by alice on the page."""
    now = timezone.now()
    first = held(brand, creator, "A-1", at=now - timedelta(days=2))
    second = held(brand, creator, "A-2", at=now - timedelta(days=1))
    decisions.decide(
        first.pk, decisions.REJECT, who=decisions.Who(via=CommissionHold.Via.ADMIN, user=staff), at=now
    )
    decisions.decide(
        second.pk,
        decisions.RELEASE,
        who=decisions.Who(via=CommissionHold.Via.PAGE, user=alice),
        at=now + timedelta(minutes=1),
    )


def test_a_brand_user_sees_your_account_manager_for_a_staff_decision(alice_client, decided):
    response = alice_client.get(PAGE)

    assert deciders(response) == ["alice", "your account manager"]
    assert "manager" not in response.content.decode().replace("your account manager", "")


def test_the_account_manager_sees_the_login_names(client, staff, brand, decided):
    client.force_login(staff)

    response = client.get(PAGE, {"brand": brand.pk})

    assert deciders(response) == ["alice", "manager"]


def test_a_book_the_account_manager_uploaded_shows_your_account_manager_to_the_brand(
    client, alice, staff, brand, prop
):
    client.force_login(staff)
    book = SimpleUploadedFile(
        "book.csv", b"order_id,amount,currency\nA-1,10.00,USD\n", content_type="text/csv"
    )
    client.post(f"/health/reconcile/?brand={brand.pk}", {"file": book})
    run = Reconciliation.objects.get()
    client.force_login(alice)

    page = re.sub(r"\s+", " ", client.get(f"/health/reconcile/{run.pk}/").content.decode())

    assert "by your account manager" in page
    assert "by manager" not in page
