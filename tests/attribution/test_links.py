"""GET /l/<code>: a creator link records a click and redirects to the brand's site; links are checked on save."""

import hashlib
import hmac
import io
import json
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from attribution.links import with_click_params
from attribution.models import Click, CreatorLink, Order
from attribution.parsing import is_click_id
from tests import factories
from tests.factories import UserFactory


@pytest.fixture
def link(brand, prop, creator):
    return CreatorLink.objects.create(
        brand=brand, creator=creator, code="ana-summer", destination_url="https://shop.acme.example/sale"
    )


def _link(brand, creator, destination, **extra):
    return CreatorLink.objects.create(
        brand=brand, creator=creator, code=extra.pop("code", "ana"), destination_url=destination, **extra
    )


def _click_id_of(response):
    return parse_qs(urlsplit(response["Location"]).query)["smsclickid"][0]


# --- the redirect -------------------------------------------------------------------------------------------


def test_it_redirects_to_the_destination_with_the_click_id(client, link):
    response = client.get("/l/ana-summer")

    assert response.status_code == 302
    click = Click.objects.get()
    assert response["Location"] == f"https://shop.acme.example/sale?smsclickid={click.click_id}"
    assert is_click_id(click.click_id)
    assert response["Cache-Control"] == "no-store"


def test_it_records_the_click_with_brand_property_creator_and_request_details(
    client, link, brand, prop, creator, settings
):
    before = timezone.now()
    response = client.get(
        "/l/ana-summer",
        HTTP_USER_AGENT="Mozilla/5.0 (iPhone) " + "u" * 600,
        HTTP_REFERER="https://l.instagram.com/?u=" + "r" * 3000,
        REMOTE_ADDR="203.0.113.7",
    )

    click = Click.objects.get()
    assert _click_id_of(response) == click.click_id
    assert (click.brand, click.property, click.creator) == (brand, prop, creator)
    assert before <= click.clicked_at <= timezone.now()
    assert click.user_agent == ("Mozilla/5.0 (iPhone) " + "u" * 600)[:512]
    assert click.referrer == ("https://l.instagram.com/?u=" + "r" * 3000)[:2048]
    expected = hmac.new(settings.SECRET_KEY.encode(), b"203.0.113.7", hashlib.sha256).hexdigest()
    assert click.ip_hash == expected
    assert "203.0.113.7" not in str(Click.objects.values().get())


def test_the_same_ip_hashes_the_same_and_another_ip_differently(client, link):
    client.get("/l/ana-summer", REMOTE_ADDR="203.0.113.7")
    client.get("/l/ana-summer", REMOTE_ADDR="203.0.113.7")
    client.get("/l/ana-summer", REMOTE_ADDR="198.51.100.1")

    first, second, third = Click.objects.order_by("id").values_list("ip_hash", flat=True)
    assert first == second != third
    assert len(first) == 64


def test_every_visit_mints_its_own_click(client, link):
    first = client.get("/l/ana-summer")
    second = client.get("/l/ana-summer")

    assert Click.objects.count() == 2
    assert _click_id_of(first) != _click_id_of(second)


def test_it_keeps_the_destinations_query_string_byte_for_byte(client, brand, prop, creator):
    _link(brand, creator, "https://shop.acme.example/p?utm_source=ig&q=a%20b&plus=1+2&flag&e=%C3%A9&empty=")

    response = client.get("/l/ana")

    click = Click.objects.get()
    assert response["Location"] == (
        "https://shop.acme.example/p?utm_source=ig&q=a%20b&plus=1+2&flag&e=%C3%A9&empty="
        f"&smsclickid={click.click_id}"
    )


def test_it_keeps_the_fragment_after_the_query(client, brand, prop, creator):
    _link(brand, creator, "https://shop.acme.example/p#reviews", code="frag")
    _link(brand, creator, "https://shop.acme.example/p?size=m#reviews/5", code="both")

    fragment_only = client.get("/l/frag")
    query_and_fragment = client.get("/l/both")

    first, second = Click.objects.order_by("id")
    assert fragment_only["Location"] == f"https://shop.acme.example/p?smsclickid={first.click_id}#reviews"
    assert query_and_fragment["Location"] == (
        f"https://shop.acme.example/p?size=m&smsclickid={second.click_id}#reviews/5"
    )


def test_it_appends_the_links_discount_code_encoded(client, brand, prop, creator):
    code = factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA 10%&more")
    _link(brand, creator, "https://shop.acme.example/?ref=ana", discount_code=code)

    response = client.get("/l/ana")

    click = Click.objects.get()
    assert response["Location"] == (
        f"https://shop.acme.example/?ref=ana&smsclickid={click.click_id}&smscode=ANA%2010%25%26more"
    )
    assert parse_qs(urlsplit(response["Location"]).query)["smscode"] == ["ANA 10%&more"]


def test_a_stale_click_id_in_the_destination_is_replaced(client, brand, prop, creator):
    _link(brand, creator, "https://shop.acme.example/?smsclickid=clk_old&a=1&smscode=OLD")

    response = client.get("/l/ana")

    query = parse_qs(urlsplit(response["Location"]).query)
    assert query == {"a": ["1"], "smsclickid": [Click.objects.get().click_id]}


def test_a_destination_on_the_www_host_resolves_to_the_property(client, brand, prop, creator):
    _link(brand, creator, "https://www.shop.acme.example/")

    response = client.get("/l/ana")

    assert response.status_code == 302
    assert Click.objects.get().property == prop


def test_the_code_is_matched_case_insensitively_and_with_a_trailing_slash(client, link):
    assert client.get("/l/ANA-Summer").status_code == 302
    assert client.get("/l/ana-summer/").status_code == 302
    assert Click.objects.count() == 2


def test_a_head_request_redirects_without_recording_a_click(client, link):
    response = client.head("/l/ana-summer")

    assert response.status_code == 302
    assert response["Location"] == "https://shop.acme.example/sale"
    assert not Click.objects.exists()


def test_a_post_is_not_allowed(client, link):
    assert client.post("/l/ana-summer").status_code == 405
    assert not Click.objects.exists()


def test_the_redirect_reads_the_link_and_writes_the_click_once_resolution_is_cached(
    client, link, django_assert_max_num_queries
):
    client.get("/l/ana-summer")  # warms the brand-resolution cache
    with django_assert_max_num_queries(2):
        response = client.get("/l/ana-summer")
    assert response.status_code == 302


# --- links that must not work -------------------------------------------------------------------------------


def _assert_plain_404(response):
    assert response.status_code == 404
    assert response["Cache-Control"] == "no-store"
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "This link is not available" in body
    assert "Traceback" not in body and "URLconf" not in body
    assert not Click.objects.exists()


def test_an_unknown_code_answers_a_plain_404(client, link, settings):
    settings.DEBUG = True  # even in development it is our page, not the debug page
    _assert_plain_404(client.get("/l/no-such-link"))


def test_an_inactive_link_answers_404(client, link):
    CreatorLink.objects.filter(pk=link.pk).update(is_active=False)
    _assert_plain_404(client.get("/l/ana-summer"))


def test_a_link_of_an_inactive_creator_answers_404(client, link, creator):
    creator.is_active = False
    creator.save()
    _assert_plain_404(client.get("/l/ana-summer"))


def test_a_link_of_an_inactive_brand_answers_404(client, link, brand):
    brand.is_active = False
    brand.save()
    _assert_plain_404(client.get("/l/ana-summer"))


def test_a_link_whose_host_is_no_longer_a_property_answers_404(client, link, prop):
    prop.delete()
    _assert_plain_404(client.get("/l/ana-summer"))


def test_a_link_whose_host_became_another_brands_property_answers_404(client, link, prop, other_brand):
    prop.brand = other_brand
    prop.save()
    _assert_plain_404(client.get("/l/ana-summer"))


# --- the URL helper -----------------------------------------------------------------------------------------


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


# --- validation on save (CreatorLink.clean) -----------------------------------------------------------------


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


# --- admin --------------------------------------------------------------------------------------------------


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


# --- the demo world's link (README walk-through) ------------------------------------------------------------


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
