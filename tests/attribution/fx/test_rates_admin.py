"""Account managers read the rates kept here in the admin, and nobody changes one there
(docs/currencies.md: a stored rate never changes)."""

from tests import factories

from .conftest import FRIDAY


def test_staff_read_the_rates_and_cannot_add_change_or_delete_one(client, rates):
    client.force_login(factories.UserFactory(username="manager", is_staff=True, is_superuser=True))

    listed = client.get("/admin/attribution/fxrate/", {"day": FRIDAY.isoformat(), "currency": "USD"})

    assert listed.status_code == 200
    assert "1.117200" in listed.content.decode()
    assert client.get("/admin/attribution/fxrate/add/").status_code == 403


def test_a_brand_user_does_not_reach_it(client, brand):
    user = factories.MembershipFactory(brand=brand, user__username="alice").user
    client.force_login(user)

    assert client.get("/admin/attribution/fxrate/").status_code == 302
