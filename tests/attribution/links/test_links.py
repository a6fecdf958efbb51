"""GET /l/<code>: a creator link records a click and redirects to the brand's site; a link that must not work
answers a plain 404."""

import hashlib
import hmac
from urllib.parse import parse_qs, urlsplit

from django.utils import timezone

from attribution.models import Click, CreatorLink
from attribution.parsing import is_click_id
from tests import factories
from tests.attribution.links.conftest import _link


def _click_id_of(response):
    return parse_qs(urlsplit(response["Location"]).query)["smsclickid"][0]


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
