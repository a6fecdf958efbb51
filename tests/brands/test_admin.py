"""An account manager runs brands, properties, creators, codes and keys in the admin."""

import re

import pytest

from brands.models import Brand, Creator, DeveloperKey, DiscountCode, KnownShopper, Property
from tests.factories import UserFactory, issue_key


@pytest.fixture
def manager_client(client, db):
    manager = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(manager)
    return client


def _inline_management(prefix, total=0):
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def test_a_manager_creates_a_brand_with_a_property(manager_client):
    data = {
        "name": "Initech",
        "is_active": "on",
        "attribution_window_days": "30",
        "commission_rate_percent": "12.5",
        "returning_commission_rate_percent": "",
        "lock_period_days": "30",
        **_inline_management("properties", 1),
        "properties-0-host": "https://WWW.Initech.example/",
        **_inline_management("platform_connections"),
        **_inline_management("developer_keys"),
        **_inline_management("memberships"),
    }
    response = manager_client.post("/admin/brands/brand/add/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    brand = Brand.objects.get(name="Initech")
    assert list(brand.properties.values_list("host", flat=True)) == ["initech.example"]


@pytest.mark.parametrize("host", ["co.uk", "myshopify.com"])
def test_a_public_suffix_is_no_brand_s_property(manager_client, brand, host):
    response = manager_client.post("/admin/brands/property/add/", {"brand": brand.pk, "host": host})

    assert response.status_code == 200
    assert errors_of(response) == [
        f"{host} is a public suffix shared by many sites; enter the brand's own host under it."
    ]
    assert not Property.objects.filter(host=host).exists()


def test_a_manager_creates_a_creator_and_a_code(manager_client, brand):
    assert (
        manager_client.post(
            "/admin/brands/creator/add/", {"brand": brand.pk, "name": "Ana", "is_active": "on"}
        ).status_code
        == 302
    )
    ana = Creator.objects.get(name="Ana")
    response = manager_client.post(
        "/admin/brands/discountcode/add/", {"brand": brand.pk, "code": " ANA10 ", "creator": ana.pk}
    )
    assert response.status_code == 302
    assert DiscountCode.objects.get(brand=brand).code == "ANA10"


def errors_of(response) -> list[str]:
    """The messages the admin form shows, field and non-field alike."""
    form = response.context["adminform"].form
    return [message for messages in form.errors.values() for message in messages]


def test_a_code_needs_a_creator_unless_blacklisted(manager_client, brand):
    response = manager_client.post("/admin/brands/discountcode/add/", {"brand": brand.pk, "code": "FREE"})
    assert response.status_code == 200
    assert errors_of(response) == ["Register the code to a creator, or mark it blacklisted."]
    assert not DiscountCode.objects.exists()


def test_a_code_the_brand_has_in_another_case_is_refused_in_plain_words(manager_client, brand, creator):
    DiscountCode.objects.create(brand=brand, code="ANA10", creator=creator)

    response = manager_client.post(
        "/admin/brands/discountcode/add/", {"brand": brand.pk, "code": "ana10", "creator": creator.pk}
    )

    assert response.status_code == 200
    assert errors_of(response) == ["The brand already has this code (codes match whatever their case)."]
    assert DiscountCode.objects.count() == 1


def test_a_creator_s_brand_cannot_be_changed_once_she_exists(manager_client, brand, other_brand, creator):
    response = manager_client.post(
        f"/admin/brands/creator/{creator.pk}/change/",
        {"brand": other_brand.pk, "name": creator.name, "is_active": "on"},
    )

    assert response.status_code == 302
    creator.refresh_from_db()
    assert creator.brand_id == brand.pk


def test_a_shopper_already_registered_at_the_brand_is_a_form_error_not_a_crash(
    manager_client, brand, creator
):
    data = {"brand": brand.pk, "creator": creator.pk, "email": "fan@example.com"}
    assert manager_client.post("/admin/brands/knownshopper/add/", data).status_code == 302

    response = manager_client.post("/admin/brands/knownshopper/add/", {**data, "email": " FAN@example.com"})

    assert response.status_code == 200
    assert errors_of(response) == ["This shopper is already registered at this brand."]
    assert KnownShopper.objects.count() == 1


def test_view_site_and_the_bare_address_lead_to_the_health_pages(manager_client):
    admin_page = manager_client.get("/admin/").content.decode()
    assert 'href="/health/"' in admin_page
    assert manager_client.get("/").url == "/health/"


def test_a_known_shopper_is_stored_as_a_hash_only(manager_client, brand, creator):
    response = manager_client.post(
        "/admin/brands/knownshopper/add/",
        {"brand": brand.pk, "creator": creator.pk, "email": " Fan@Example.com "},
    )
    assert response.status_code == 302
    shopper = KnownShopper.objects.get()
    assert shopper.email_hash == __import__("hashlib").sha256(b"fan@example.com").hexdigest()
    assert "fan@example.com" not in str(KnownShopper.objects.values().get())


def test_issuing_a_key_shows_the_plaintext_once_and_stores_only_its_hash(manager_client, brand):
    response = manager_client.post(
        "/admin/brands/developerkey/add/", {"brand": brand.pk, "name": "production"}, follow=True
    )
    page = response.content.decode()
    key = DeveloperKey.objects.get(brand=brand)
    shown = re.search(rf"({key.prefix}\.[A-Za-z0-9]+)", page).group(1)
    assert DeveloperKey.objects.get_from_key(shown) == key
    assert shown not in key.hashed_key
    second_view = manager_client.get(f"/admin/brands/developerkey/{key.pk}/change/").content.decode()
    assert shown not in second_view


def test_a_manager_revokes_a_key_with_the_admin_action(manager_client, brand):
    row, plaintext = issue_key(brand)
    response = manager_client.post(
        "/admin/brands/developerkey/", {"action": "revoke_keys", "_selected_action": [row.pk]}
    )
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.revoked and row.revoked_at is not None
    assert not DeveloperKey.objects.is_valid(plaintext)


def test_admin_list_pages_render(manager_client, prop, creator):
    issue_key(prop.brand)
    for model in [
        "brand",
        "property",
        "developerkey",
        "creator",
        "discountcode",
        "knownshopper",
        "brandmembership",
    ]:
        assert manager_client.get(f"/admin/brands/{model}/").status_code == 200
    assert manager_client.get(f"/admin/brands/brand/{prop.brand_id}/change/").status_code == 200
    assert Property.objects.count() == 1


# --- what the lists and forms show --------------------------------------------------------------------------


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_key_list_says_revoked_in_words_never_with_a_green_tick(manager_client, brand):
    revoked, _ = issue_key(brand, name="old key")
    revoked.revoke()
    issue_key(brand, name="new key")

    html = manager_client.get("/admin/brands/developerkey/").content.decode()

    rows = {name: row for row in html.split("<tr")[1:] for name in ("old key", "new key") if name in row}
    assert f"revoked {revoked.revoked_at:%Y-%m-%d}" in _text(rows["old key"])
    assert "active" in _text(rows["new key"])
    for row in rows.values():
        assert "icon-yes" not in row and "icon-no" not in row


def test_the_code_list_says_excluded_in_words_never_with_a_green_tick(manager_client, brand, creator):
    DiscountCode.objects.create(brand=brand, code="STAFF50", is_blacklisted=True)
    DiscountCode.objects.create(brand=brand, code="ANA10", creator=creator)

    html = manager_client.get("/admin/brands/discountcode/").content.decode()

    assert "excluded (blacklisted)" in html and ">tracked<" in html
    assert "icon-yes" not in html


def test_the_empty_row_for_another_property_shows_no_creation_time(manager_client, prop):
    html = manager_client.get(f"/admin/brands/brand/{prop.brand_id}/change/").content.decode()

    saved = html[html.index('id="properties-0"') : html.index('id="properties-1"')]
    empty = html[html.index('id="properties-1"') : html.index('id="properties-empty"')]
    assert re.search(r"\d{4}", _text(saved.split("field-created")[1].split("</td>")[0]))
    assert _text(empty.split("field-created")[1].split("</td>")[0]).strip(' >"') == "–"


def test_a_new_creator_link_shows_no_creation_time(manager_client, prop):
    html = manager_client.get("/admin/attribution/creatorlink/add/").content.decode()

    created = html[html.index("field-created") :]
    assert "–" in created[: created.index("</div>", created.index("readonly"))]


def _brand_form(brand, properties: list[tuple[Property | None, str, bool]]) -> dict:
    data = {
        "name": brand.name,
        "is_active": "on",
        "attribution_window_days": 30,
        "commission_rate_percent": "10",
        "lock_period_days": 30,
        "properties-TOTAL_FORMS": str(len(properties)),
        "properties-INITIAL_FORMS": str(sum(1 for p, _, _ in properties if p)),
        "properties-MIN_NUM_FORMS": "0",
        "properties-MAX_NUM_FORMS": "1000",
        **_inline_management("platform_connections"),
        **_inline_management("developer_keys"),
        **_inline_management("memberships"),
    }
    for i, (existing, host, primary) in enumerate(properties):
        data[f"properties-{i}-host"] = host
        data[f"properties-{i}-brand"] = brand.pk
        if existing:
            data[f"properties-{i}-id"] = existing.pk
        if primary:
            data[f"properties-{i}-is_primary"] = "on"
    return data


def test_a_manager_moves_the_primary_mark_to_another_property_in_one_save(manager_client, brand):
    shop = Property.objects.create(brand=brand, host="shop.acme.example", is_primary=True)
    eu = Property.objects.create(brand=brand, host="eu.acme.example")

    response = manager_client.post(
        f"/admin/brands/brand/{brand.pk}/change/",
        _brand_form(brand, [(eu, "eu.acme.example", True), (shop, "shop.acme.example", False)]),
    )

    assert response.status_code == 302, _text(response.content.decode())[:2000]
    assert list(brand.properties.filter(is_primary=True)) == [eu]
    assert brand.primary_property() == eu


def test_two_primary_properties_are_a_form_error(manager_client, brand):
    shop = Property.objects.create(brand=brand, host="shop.acme.example")
    eu = Property.objects.create(brand=brand, host="eu.acme.example")

    response = manager_client.post(
        f"/admin/brands/brand/{brand.pk}/change/",
        _brand_form(brand, [(eu, "eu.acme.example", True), (shop, "shop.acme.example", True)]),
    )

    assert response.status_code == 200
    assert "Mark at most one property as primary." in response.content.decode()
    assert not brand.properties.filter(is_primary=True).exists()
