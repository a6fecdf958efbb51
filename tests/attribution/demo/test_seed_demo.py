"""`manage.py seed_demo` (spec demo-world.md): the document it writes, its re-runs and the keys they keep,
replace or revoke, the demo users, the summary, and the refusal in production."""

import io
import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from attribution.models import Click
from brands.models import Brand, BrandMembership, Creator, DeveloperKey, DiscountCode, KnownShopper, Property
from brands.resolution import resolve_host
from tests.attribution.demo.conftest import URL, cancel

pytestmark = pytest.mark.django_db


def shape(value):
    """The keys of a document, with the leaves replaced by their type."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    return type(value).__name__


def test_the_document_has_every_key_of_the_spec(world):
    page_urls = {"primary": "str", "secondary": "str", "unregistered": "str"}
    brand_keys = {"id": "int", "name": "str", "developer_key": "str", "property_domains": "list"}
    assert shape(world) == {
        "brands": {
            "main": {**brand_keys, "revoked_developer_key": "str", "page_urls": page_urls},
            "other": {
                **brand_keys,
                "page_urls": {"primary": "str"},
                # the shop the README's tour connects; its connection's id once connected
                "shopify": {"shop_domain": "str", "connection_id": "NoneType", "orders_since": "str"},
            },
            "handoff": {
                **brand_keys,
                "page_urls": {"primary": "str"},
                "shopify": {"webhook_url": "str", "shop_domain": "str", "webhook_secret": "str"},
                "woocommerce": {"webhook_url": "str", "site_url": "str", "webhook_secret": "str"},
            },
        },
        "clicks": dict.fromkeys(
            ["valid", "valid_secondary", "expired", "other_brand", "banned_creator", "unknown", "handoff"],
            "str",
        ),
        "codes": dict.fromkeys(
            ["registered", "blacklisted", "banned_creator", "unregistered", "handoff"], "str"
        ),
        "shoppers": {"known_email": "str"},
        "holds": {"code": "str", "creator_email": "str"},
        "commission": {"rate_percent": "str", "returning_rate_percent": "str"},
        "users": {name: {"username": "str", "password": "str"} for name in ("main", "other", "admin")},
        "links": {"valid": "str"},
        "fx": {
            "reporting_currency": "str",
            "orders": "list",
            "paid_statement": {"id": "int", "month": "str"},
        },
        "creators": {
            name: {"id": "int", "name": "str", "code": "str", "link": "str"}
            for name in ("registered", "second")
        },
    }


def test_the_page_urls_resolve_as_the_spec_describes(world):
    main = world["brands"]["main"]
    main_brand = Brand.objects.get(name=main["name"])
    primary = resolve_host(main["page_urls"]["primary"])
    secondary = resolve_host(main["page_urls"]["secondary"])
    unregistered = resolve_host(main["page_urls"]["unregistered"])

    assert primary.brand.id == secondary.brand.id == unregistered.brand.id == main_brand.id
    assert primary.property_id and secondary.property_id and primary.property_id != secondary.property_id
    assert unregistered.is_unregistered_property
    assert [primary.host, secondary.host] == main["property_domains"]
    for name in ("other", "handoff"):
        brand = world["brands"][name]
        resolved = resolve_host(brand["page_urls"]["primary"])
        assert resolved.brand.name == brand["name"] and resolved.property_id
        assert resolved.host in brand["property_domains"]


def test_a_second_run_without_the_first_document_reuses_the_world_and_reissues_only_the_keys(seed):
    first = seed()
    counts = [
        model.objects.count() for model in (Brand, Property, Creator, Click, DiscountCode, KnownShopper)
    ]
    users = get_user_model().objects.count(), BrandMembership.objects.count()

    second = seed()

    assert [
        model.objects.count() for model in (Brand, Property, Creator, Click, DiscountCode, KnownShopper)
    ] == counts
    assert (get_user_model().objects.count(), BrandMembership.objects.count()) == users
    assert counts == [
        3,
        4,
        5,
        6,
        7,
        1,
    ]  # Globex Demo's shop's two codes; the main brand's second creator and her code
    for section in ("clicks", "codes", "shoppers", "commission", "users"):
        assert second[section] == first[section]
    for name in ("main", "other", "handoff"):
        assert second["brands"][name]["developer_key"] != first["brands"][name]["developer_key"]
        assert second["brands"][name]["page_urls"] == first["brands"][name]["page_urls"]


def test_without_the_first_document_the_keys_printed_before_are_revoked(seed, api):
    first = seed()
    second = seed()

    for name in ("main", "other", "handoff"):
        current = cancel(api, second["brands"][name]["developer_key"])
        assert (current.status_code, current.json()["outcome"]) == (200, "order_not_found")
        earlier = cancel(api, first["brands"][name]["developer_key"])
        assert (earlier.status_code, earlier.json()["outcome"]) == (401, "unauthorized")
    assert not DeveloperKey.objects.is_valid(first["brands"]["main"]["developer_key"])


def test_exactly_one_revoked_key_is_kept_for_the_document_and_it_is_refused(seed, api):
    seed()
    world = seed()
    main = Brand.objects.get(name=world["brands"]["main"]["name"])

    response = cancel(api, world["brands"]["main"]["revoked_developer_key"])

    assert (response.status_code, response.json()["outcome"]) == (401, "unauthorized")
    assert DeveloperKey.objects.filter(brand=main, name="demo key (revoked)").count() == 1
    assert DeveloperKey.objects.filter(brand=main, revoked=False).count() == 1


def test_a_rerun_keeps_the_keys_of_the_document_it_wrote_before(seed, api, tmp_path):
    path = tmp_path / "demo-world.json"
    first = seed(path=path)

    second = seed(path=path)

    assert second == first
    assert "keys printed before are kept" in seed.said
    for name in ("main", "other", "handoff"):
        response = cancel(api, second["brands"][name]["developer_key"])
        assert (response.status_code, response.json()["outcome"]) == (200, "order_not_found")
        brand = Brand.objects.get(name=second["brands"][name]["name"])
        assert DeveloperKey.objects.filter(brand=brand, revoked=False).count() == 1
    revoked = cancel(api, second["brands"]["main"]["revoked_developer_key"])
    assert revoked.status_code == 401


def test_reset_issues_new_keys_and_the_old_ones_stop_working(seed, api, tmp_path):
    path = tmp_path / "demo-world.json"
    first = seed(path=path)

    second = seed("--reset", path=path)

    assert "fresh demo developer keys issued" in seed.said
    for name in ("main", "other", "handoff"):
        assert second["brands"][name]["developer_key"] != first["brands"][name]["developer_key"]
        assert cancel(api, first["brands"][name]["developer_key"]).status_code == 401
        assert cancel(api, second["brands"][name]["developer_key"]).status_code == 200
    assert (
        second["brands"]["main"]["revoked_developer_key"] != first["brands"]["main"]["revoked_developer_key"]
    )


def test_a_kept_key_revoked_meanwhile_is_replaced_and_the_others_kept(seed, api, tmp_path):
    path = tmp_path / "demo-world.json"
    first = seed(path=path)
    DeveloperKey.objects.get_from_key(first["brands"]["other"]["developer_key"]).revoke()

    second = seed(path=path)

    assert second["brands"]["other"]["developer_key"] != first["brands"]["other"]["developer_key"]
    assert cancel(api, second["brands"]["other"]["developer_key"]).status_code == 200
    for name in ("main", "handoff"):
        assert second["brands"][name]["developer_key"] == first["brands"][name]["developer_key"]


@pytest.mark.parametrize("left_there", ["", "not json", "[]", '{"brands": {"main": {"developer_key": 7}}}'])
def test_a_file_that_is_no_earlier_document_just_gets_new_keys(seed, api, tmp_path, left_there):
    path = tmp_path / "demo-world.json"
    path.write_text(left_there)

    world = seed(path=path)

    assert cancel(api, world["brands"]["main"]["developer_key"]).status_code == 200


def test_a_key_of_another_brand_in_the_document_is_not_taken(seed, api, tmp_path):
    path = tmp_path / "demo-world.json"
    first = seed(path=path)
    swapped = json.loads(path.read_text())
    swapped["brands"]["main"]["developer_key"] = first["brands"]["other"]["developer_key"]
    path.write_text(json.dumps(swapped))

    second = seed(path=path)

    assert second["brands"]["main"]["developer_key"] not in (
        first["brands"]["main"]["developer_key"],
        first["brands"]["other"]["developer_key"],
    )
    assert second["brands"]["other"]["developer_key"] == first["brands"]["other"]["developer_key"]


def test_the_primary_page_url_is_the_main_brands_primary_property(world):
    main = Brand.objects.get(name=world["brands"]["main"]["name"])

    assert main.primary_property().host == world["brands"]["main"]["property_domains"][0]


def test_a_rerun_moves_the_fresh_clicks_back_inside_the_attribution_window(seed):
    first = seed()
    long_ago = timezone.now() - timedelta(days=60)
    Click.objects.filter(click_id=first["clicks"]["valid"]).update(clicked_at=long_ago)

    second = seed()

    valid = Click.objects.get(click_id=second["clicks"]["valid"])
    window = timedelta(days=valid.brand.attribution_window_days)
    assert timezone.now() - valid.clicked_at < window
    for name in ("valid_secondary", "other_brand", "banned_creator", "handoff"):
        assert timezone.now() - Click.objects.get(click_id=second["clicks"][name]).clicked_at < window
    assert timezone.now() - Click.objects.get(click_id=second["clicks"]["expired"]).clicked_at > window


def test_the_demo_users_sign_in_and_see_what_the_spec_says(world, client):
    users = world["users"]
    for name in ("main", "other", "admin"):
        assert client.login(**users[name]), name
    user_model = get_user_model()
    admin = user_model.objects.get(username=users["admin"]["username"])
    assert admin.is_staff and admin.is_superuser
    for name in ("main", "other"):
        user = user_model.objects.get(username=users[name]["username"])
        assert not user.is_staff
        assert list(user.brand_memberships.values_list("brand__name", flat=True)) == [
            world["brands"][name]["name"]
        ]


def test_without_json_it_prints_the_document(db):
    out = io.StringIO()

    call_command("seed_demo", "--force", stdout=out, stderr=io.StringIO())

    assert set(json.loads(out.getvalue())) >= {"brands", "clicks", "codes", "shoppers", "commission", "users"}


def test_the_summary_shows_logins_the_main_key_and_a_curl_line_that_tracks(tmp_path, api):
    path = tmp_path / "demo-world.json"
    out = io.StringIO()

    call_command("seed_demo", "--force", "--json", str(path), "--summary", stdout=out, stderr=io.StringIO())

    world, text = json.loads(path.read_text()), out.getvalue()
    for name in ("main", "other", "admin"):
        assert f"{world['users'][name]['username']} / {world['users'][name]['password']}" in text
    assert world["brands"]["main"]["developer_key"] in text
    assert "http://127.0.0.1:8000/health/review/" in text
    [curl] = [line.strip() for line in text.splitlines() if line.strip().startswith("curl ")]
    body = json.loads(curl.split(" -d ", 1)[1].strip("'"))
    assert "http://127.0.0.1:8000/api/order_confirmation" in curl
    assert api.post(URL, body).json()["outcome"] == "tracked"
