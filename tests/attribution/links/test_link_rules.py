"""A creator link's rules: the click parameters it adds to a destination, its validation on save (and the
database's), the admin that makes links, and the demo world's link."""

import io
import json
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction

from attribution.links import with_click_params
from attribution.models import Click, CreatorLink, Order
from tests import factories
from tests.factories import UserFactory


@pytest.mark.parametrize(
    ("destination", "expected"),
    [
        ("https://a.example", "https://a.example?smsclickid=clk_1"),
        ("https://a.example/", "https://a.example/?smsclickid=clk_1"),
        ("https://a.example/?", "https://a.example/?smsclickid=clk_1"),
        ("https://a.example/x?a=1&&b=2", "https://a.example/x?a=1&b=2&smsclickid=clk_1"),
        ("https://a.example/x?SMSCLICKID=keep", "https://a.example/x?SMSCLICKID=keep&smsclickid=clk_1"),
        ("https://a.example/x?sms%63lickid=old", "https://a.example/x?smsclickid=clk_1"),
        ("http://a.example:8080/x#", "http://a.example:8080/x?smsclickid=clk_1"),
        (
            "https://a.example/caf%C3%A9?q=%2F#top?x=1",
            "https://a.example/caf%C3%A9?q=%2F&smsclickid=clk_1#top?x=1",
        ),
    ],
)
def test_with_click_params(destination, expected):
    assert with_click_params(destination, click_id="clk_1", code=None) == expected


def test_with_click_params_without_a_click_keeps_the_destination():
    assert (
        with_click_params("https://a.example/x?a=1#f", click_id=None, code=None)
        == "https://a.example/x?a=1#f"
    )


def _errors(link):
    with pytest.raises(ValidationError) as caught:
        link.full_clean()
    return caught.value.message_dict


def test_a_valid_link_passes_and_its_code_is_lower_cased(brand, prop, creator):
    code = factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    link = CreatorLink(
        brand=brand,
        creator=creator,
        code="Ana-Summer",
        destination_url="https://www.shop.acme.example:443/sale?x=1#top",
        discount_code=code,
    )
    link.full_clean()
    assert link.code == "ana-summer"


def test_a_new_link_gets_a_random_code(brand, prop, creator):
    first = CreatorLink(brand=brand, creator=creator, destination_url="https://shop.acme.example/")
    second = CreatorLink(brand=brand, creator=creator, destination_url="https://shop.acme.example/")
    first.full_clean()
    assert len(first.code) == 10 and first.code.isalnum() and first.code == first.code.lower()
    assert first.code != second.code


def test_the_destination_must_be_a_property_of_the_links_brand(brand, prop, creator, other_prop):
    unregistered = CreatorLink(brand=brand, creator=creator, destination_url="https://blog.acme.example/")
    others = CreatorLink(brand=brand, creator=creator, destination_url="https://globex.example/")

    assert _errors(unregistered)["destination_url"] == [
        "blog.acme.example is not a registered property of Acme. Fix: register it as a property of the "
        "brand first, or link to one of its registered hosts."
    ]
    assert "globex.example is not a registered property of Acme" in _errors(others)["destination_url"][0]


@pytest.mark.parametrize(
    "destination",
    ["ftp://shop.acme.example/file", "javascript:alert(1)", "//shop.acme.example/", "shop.acme.example/sale"],
)
def test_the_destination_must_be_an_http_address(brand, prop, creator, destination):
    link = CreatorLink(brand=brand, creator=creator, destination_url=destination)
    assert "destination_url" in _errors(link)


def test_the_destination_must_not_carry_credentials(brand, prop, creator):
    link = CreatorLink(brand=brand, creator=creator, destination_url="https://user:pw@shop.acme.example/")
    assert _errors(link)["destination_url"] == ["The destination must not carry a user name or password."]


def test_the_creator_must_belong_to_the_links_brand(brand, prop, other_brand):
    stranger = factories.CreatorFactory(brand=other_brand, name="Bo")
    link = CreatorLink(brand=brand, creator=stranger, destination_url="https://shop.acme.example/")
    assert _errors(link) == {"creator": ["The creator belongs to another brand."]}


def test_the_discount_code_must_belong_to_the_brand_and_the_creator(brand, prop, creator, other_brand):
    other_brands_code = factories.DiscountCodeFactory(brand=other_brand, code="GLOBEX")
    colleague = factories.CreatorFactory(brand=brand, name="Cy")
    colleagues_code = factories.DiscountCodeFactory(brand=brand, creator=colleague, code="CY10")
    blacklisted = factories.DiscountCodeFactory(
        brand=brand, creator=None, is_blacklisted=True, code="WELCOME"
    )

    def link_with(code):
        return CreatorLink(
            brand=brand, creator=creator, destination_url="https://shop.acme.example/", discount_code=code
        )

    assert _errors(link_with(other_brands_code)) == {
        "discount_code": ["The discount code belongs to another brand."]
    }
    assert _errors(link_with(colleagues_code)) == {
        "discount_code": ["The discount code is registered to another creator."]
    }
    link_with(blacklisted).full_clean()  # a brand-wide promotion code may ride on any creator's link


def test_codes_are_unique_across_brands(link, other_brand, other_prop):
    stranger = factories.CreatorFactory(brand=other_brand)
    duplicate = CreatorLink(
        brand=other_brand, creator=stranger, code="ANA-SUMMER", destination_url="https://globex.example/"
    )
    assert "code" in _errors(duplicate)
    with pytest.raises(IntegrityError), transaction.atomic():
        CreatorLink.objects.create(
            brand=other_brand, creator=stranger, code="ana-summer", destination_url="https://globex.example/"
        )


def test_the_database_refuses_an_upper_case_code(link):
    with pytest.raises(IntegrityError), transaction.atomic():
        CreatorLink.objects.filter(pk=link.pk).update(code="ANA-SUMMER")


@pytest.fixture
def manager_client(client, db):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def _form(brand, creator, destination, **extra):
    return {
        "brand": brand.pk,
        "creator": creator.pk,
        "code": "ana-summer",
        "destination_url": destination,
        "discount_code": "",
        "is_active": "on",
        **extra,
    }


def test_a_manager_creates_a_link_in_the_admin(manager_client, brand, prop, creator):
    response = manager_client.post(
        "/admin/attribution/creatorlink/add/",
        _form(brand, creator, "https://shop.acme.example/sale", code="Ana-Summer"),
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    link = CreatorLink.objects.get()
    assert (link.code, link.brand, link.creator, link.is_active) == ("ana-summer", brand, creator, True)


def test_the_admin_refuses_a_destination_off_the_brands_properties(manager_client, brand, prop, creator):
    response = manager_client.post(
        "/admin/attribution/creatorlink/add/", _form(brand, creator, "https://evil.example/phish")
    )

    assert response.status_code == 200
    assert "evil.example is not a registered property of Acme" in response.content.decode()
    assert not CreatorLink.objects.exists()


def test_the_admin_lists_and_searches_links(manager_client, link, brand):
    listing = manager_client.get(
        "/admin/attribution/creatorlink/", {"q": "ana", "brand__id__exact": brand.pk}
    )
    elsewhere = manager_client.get("/admin/attribution/creatorlink/", {"q": "nothing-like-it"})

    assert listing.status_code == 200
    assert "/l/ana-summer" in listing.content.decode()
    assert "/l/ana-summer" not in elsewhere.content.decode()


def test_the_admin_autocompletes_creators_for_links(manager_client, link, creator):
    response = manager_client.get(
        "/admin/autocomplete/",
        {"app_label": "attribution", "model_name": "creatorlink", "field_name": "creator", "term": "An"},
    )

    assert response.status_code == 200
    assert [r["text"] for r in response.json()["results"]] == ["Ana"]


def test_a_brand_user_cannot_reach_the_links_admin(client, link, brand):
    member = factories.MembershipFactory(brand=brand).user
    client.force_login(member)

    assert client.get("/admin/attribution/creatorlink/").status_code == 302
    assert client.post(
        "/admin/attribution/creatorlink/add/", _form(brand, link.creator, "https://shop.acme.example/")
    ).status_code in (302, 403)
    assert CreatorLink.objects.count() == 1


def test_the_demo_worlds_link_lands_on_the_primary_property_and_its_click_tracks(client, api, tmp_path, db):
    path = tmp_path / "demo-world.json"
    call_command("seed_demo", "--force", "--json", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    world = json.loads(path.read_text())
    main = world["brands"]["main"]

    landing = client.get(f"/l/{world['links']['valid']}")

    assert landing.status_code == 302
    location = urlsplit(landing["Location"])
    assert location.hostname == main["property_domains"][0]
    query = parse_qs(location.query)
    assert query["smscode"] == [world["codes"]["registered"]]
    click = Click.objects.get(click_id=query["smsclickid"][0])
    assert click.brand.name == main["name"]
    order = {
        "orderId": "demo-walkthrough-1",
        "orderAmount": 59.90,
        "currency": "USD",
        "page_url": main["page_urls"]["primary"],
        "clickId": click.click_id,
    }
    answer = api.post("/api/order_confirmation", order)
    assert answer.json()["outcome"] == "tracked"
    assert Order.objects.get(order_id="demo-walkthrough-1").click == click
