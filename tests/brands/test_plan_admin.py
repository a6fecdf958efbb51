"""Commission plan versions in the admin: account managers read every brand's, and none can be added,
changed or deleted there (the page and the API make versions, checked whole)."""

from datetime import UTC, datetime

import pytest

from brands.models import PlanVersion
from tests import factories

pytestmark = pytest.mark.django_db

LIST = "/admin/brands/planversion/"


@pytest.fixture
def manager(client):
    client.force_login(factories.UserFactory(username="manager", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def version(brand):
    return PlanVersion.objects.create(
        brand=brand,
        version=2,
        effective_from=datetime(2026, 12, 1, tzinfo=UTC),
        created_by="alice",
        document={
            "currency": "USD",
            "default": {"percent": "12"},
            "rules": [{"name": "Belts", "percent": "15"}],
        },
    )


def test_the_manager_reads_every_version_with_its_rules(manager, version):
    listing = manager.get(LIST)
    page = manager.get(f"{LIST}{version.pk}/change/")

    assert listing.status_code == 200 and "alice" in listing.content.decode()
    assert page.status_code == 200
    assert "&quot;Belts&quot;" in page.content.decode()
    assert 'name="_save"' not in page.content.decode()


def test_no_version_is_added_changed_or_deleted_in_the_admin(manager, version):
    assert manager.get(f"{LIST}add/").status_code == 403
    assert manager.post(f"{LIST}{version.pk}/delete/", {"post": "yes"}).status_code == 403
    manager.post(f"{LIST}{version.pk}/change/", {"created_by": "mallory"})

    version.refresh_from_db()
    assert version.created_by == "alice"
