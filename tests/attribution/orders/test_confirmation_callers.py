"""POST /api/order_confirmation (docs/decisions.md, docs/api.md): what a 400 leaves, what the brand and an unauthenticated caller see, browser callers.

Every test checks the answer, what was stored (Order, Commission) and the one outcome record written.
"""

import io
import json
from decimal import Decimal

import pytest

from attribution.models import Commission, Order
from brands.hosts import hash_email
from health.log.models import OutcomeEvent
from tests.factories import (
    CreatorFactory,
    KnownShopperFactory,
)

from .confirming import (
    PAGE,
    UNKNOWN_CLICK,
    UNREGISTERED_PAGE,
    URL,
    answer,
    click_on,
    events,
    order,
)

pytestmark = pytest.mark.django_db


# --- a 400 does not consume the order id --------------------------------------------------------------------


def test_a_fixed_and_resent_order_is_tracked_after_a_400(confirm, prop, creator):
    click = click_on(prop, creator=creator)
    answer(confirm(order(orderAmount="$59.90", clickId=click.click_id)), 400, "invalid_order_amount")

    answer(confirm(order(orderAmount="59.90", clickId=click.click_id)), 200, "tracked")
    assert Commission.objects.get().amount == Decimal("5.99")


def test_an_order_sent_with_an_unknown_click_can_be_resent_without_it(confirm, prop):
    answer(confirm(order(clickId=UNKNOWN_CLICK)), 400, "click_not_found")

    answer(confirm(order()), 200, "no_attribution")


# --- the brand sees its own rejected events (docs/decisions.md, "Decision order of an order confirmation") ---------------------------


@pytest.mark.parametrize(
    "body, outcome",
    [
        (order(orderId=None), "invalid_order_id"),
        (order(orderAmount="59,90"), "invalid_order_amount"),
        (order(currency="ABC"), "invalid_params"),
        (order(clickId="undefined"), "malformed_click_id"),
        (order(clickId=UNKNOWN_CLICK), "click_not_found"),
        (order(orderAmount="59,90", page_url=UNREGISTERED_PAGE), "invalid_order_amount"),
        (
            order(
                orderAmount="59,90", page_url="https://checkout.payments.example/", domain="shop.acme.example"
            ),
            "invalid_order_amount",
        ),
    ],
)
def test_a_rejected_event_is_recorded_for_the_brand_its_page_url_resolves_to(confirm, prop, body, outcome):
    answer(confirm(body), 400, outcome)
    [event] = OutcomeEvent.objects.all()
    assert (event.outcome, event.brand_id) == (outcome, prop.brand_id)


# --- what an unauthenticated caller may learn (docs/decisions.md, "Response envelope") ----------------------


def test_a_tracked_answer_names_no_creator_and_no_commission_amount(confirm, prop):
    creator = CreatorFactory(brand=prop.brand, name="Zelda Creatorname")
    click = click_on(prop, creator=creator)

    response = confirm(order(orderAmount="123.45", clickId=click.click_id))

    body = answer(response, 200, "tracked")
    assert set(body) == {"success", "outcome", "message"}
    text = response.content.decode()
    assert "Zelda" not in text
    assert "12.35" not in text and "12.3" not in text
    assert str(creator.id) not in body["message"]


def test_a_cross_brand_answer_reveals_nothing_of_the_other_brand(confirm, prop, other_prop):
    other_creator = CreatorFactory(brand=other_prop.brand, name="Olga Othercreator")
    click = click_on(other_prop, creator=other_creator)

    response = confirm(order(clickId=click.click_id))

    body = answer(response, 200, "cross_brand_click")
    assert set(body) == {"success", "outcome", "message"}
    text = response.content.decode()
    assert "Globex" not in text and "globex" not in text
    assert "Olga" not in text


def test_the_shoppers_email_is_stored_only_as_a_hash(confirm, prop, creator):
    KnownShopperFactory(brand=prop.brand, creator=creator, email_hash=hash_email("returning@example.com"))

    answer(confirm(order(customer_email="Returning@Example.com")), 200, "tracked")

    event = OutcomeEvent.objects.get()
    assert json.loads(event.request_body)["customer_email"] == "sha256:" + hash_email("returning@example.com")
    stored = [*Order.objects.values().get().values(), *OutcomeEvent.objects.values().get().values()]
    assert not any("returning@example.com" in str(value).lower() for value in stored)


def test_an_email_in_a_body_that_failed_to_parse_is_redacted(confirm, db):
    answer(confirm('{"orderId": "A-1001", "customer_email": "returning@example.com",'), 400, "invalid_params")

    assert "returning@example.com" not in str(OutcomeEvent.objects.values().get())


@pytest.mark.parametrize(
    "raw",
    [
        '[{"customer_email": "shopper@example.com"}]',  # not an object: invalid_params
        '"shopper@example.com"',
        '{"orderId": "A-1", "customer": {"email": "shopper@example.com"}, "page_url": "' + PAGE + '"}',
        '{"orderId": "A-1", "notes": ["shopper\\u0040example.com"], "page_url": "' + PAGE + '"}',
        '{"orderId": "A-1", "page_url": "' + PAGE + '?email=shopper%40example.com"}',
        '{"orderId": "A-1", "customer_email": "shopper\\u0040example.com",',  # not JSON: a preview
        '{"orderId": "A-1", "x": "\\"shopper lopez\\"@example.com",',
        "{'customer_email': 'shopper@example.com'}",
        "customer_email=shopper%40example.com&orderId=A-1",
    ],
)
def test_no_shoppers_address_is_stored_whatever_the_shape_of_the_body(confirm, prop, raw):
    confirm(raw)

    stored = json.dumps(list(OutcomeEvent.objects.values()), default=str).lower()
    assert "shopper" not in stored


# --- browser callers (browser callers, paths) ---------------------------------------------------------------


def test_it_answers_cors_preflight_from_any_origin_without_credentials(client, db):
    response = client.options(
        URL,
        HTTP_ORIGIN="https://any-brand-shop.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type,x-request-id",
    )

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Access-Control-Allow-Methods"] == "POST, OPTIONS"
    assert response["Access-Control-Allow-Headers"].lower() == "content-type, x-request-id"
    assert "Access-Control-Allow-Credentials" not in response
    assert (
        not OutcomeEvent.objects.exists()
    )  # a preflight is not an event (docs/decisions.md, "Outcome codes beyond the interface's lists")


def test_a_cross_origin_post_may_read_the_answer(confirm, prop):
    response = confirm(order(), HTTP_ORIGIN="https://shop.acme.example")

    answer(response, 200, "no_attribution")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    assert response["Access-Control-Expose-Headers"] == "X-Request-ID"


@pytest.mark.parametrize("path", ["/api/Affiliates/cancel", "/api/Affiliates/update"])
def test_cancel_and_update_answer_no_cors(client, api, db, path):
    preflight = client.options(
        path, HTTP_ORIGIN="https://shop.acme.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    post = api.post(path, {"order_id": "A-1001"}, HTTP_ORIGIN="https://shop.acme.example")

    assert "Access-Control-Allow-Origin" not in preflight
    assert "Access-Control-Allow-Origin" not in post


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain;charset=UTF-8"])
def test_it_accepts_a_json_body_sent_as_text_plain_by_send_beacon(confirm, prop, creator, content_type):
    click = click_on(prop, creator=creator)

    response = confirm(order(clickId=click.click_id), content_type=content_type)

    answer(response, 200, "tracked")
    assert Commission.objects.exists()
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_body_that_starts_with_a_utf8_byte_order_mark_is_read_as_json(confirm, prop, creator):
    # Some Windows tools write one; RFC 8259 lets a parser ignore it, and an order is not lost to it.
    click = click_on(prop, creator=creator)

    response = confirm(b"\xef\xbb\xbf" + json.dumps(order(clickId=click.click_id)).encode())

    answer(response, 200, "tracked")
    assert events() == [("tracked", 200, prop.brand_id, "A-1001", False)]


def test_a_key_repeated_inside_a_field_no_rule_reads_does_not_lose_the_order(confirm, prop):
    raw = json.dumps(order(meta="<meta>")).replace('"<meta>"', '{"a": 1, "a": 2}')

    answer(confirm(raw), 200, "no_attribution")
    assert json.loads(OutcomeEvent.objects.get().request_body)["meta"] == {"a": 2}


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps(order(orderId="\ud800")),  # a lone surrogate: no encoding can hold it
        json.dumps(order(orderId="A-\u0000")),  # U+0000: no PostgreSQL text column can hold it
        json.dumps(order(notes="\u0000")),
        json.dumps(order(customer_email="\ud800@example.com")),
        b"{\x00}",
    ],
)
def test_text_no_database_can_store_is_invalid_params_and_the_event_is_recorded(confirm, prop, raw):
    response = confirm(raw)

    body = answer(response, 400, "invalid_params")
    assert "not valid JSON" in body["error"]
    assert not Order.objects.exists()
    assert [e[:2] for e in events()] == [("invalid_params", 400)]
    assert OutcomeEvent.objects.get().request_body  # kept as a preview


def test_escaped_text_that_only_looks_like_an_escape_is_kept(confirm, prop):
    response = confirm(order(orderId="A-\\u0000", notes="Gr\u00fc\u00dfe \ud83d\ude00"))

    answer(response, 200, "no_attribution")
    assert Order.objects.get().order_id == "A-\\u0000"


@pytest.mark.parametrize("raw", [b"", b"  \n"])
def test_an_empty_body_is_invalid_params_that_says_so(confirm, db, raw):
    body = answer(confirm(raw), 400, "invalid_params")

    assert body["error"] == "Request body is empty. Fix: send a JSON object."


def chunked(client, body: bytes):
    """POST as gunicorn hands over a `Transfer-Encoding: chunked` body: de-chunked, without Content-Length."""
    return client.generic(
        "POST",
        URL,
        b"",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True},
    )


def test_it_reads_a_chunked_body(client, prop):
    response = chunked(client, json.dumps(order()).encode())

    answer(response, 200, "no_attribution")
    assert Order.objects.get().order_id == "A-1001"
    assert events() == [("no_attribution", 200, prop.brand_id, "A-1001", False)]


def test_a_chunked_body_over_the_size_cap_is_refused_with_413(client, prop):
    response = chunked(client, json.dumps(order(notes="x" * 70_000)).encode())

    answer(response, 413, "invalid_params")
    assert not Order.objects.exists()


def test_the_path_with_a_trailing_slash_is_answered_without_a_redirect(api, prop):
    response = api.post(URL + "/", order())

    answer(response, 200, "no_attribution")
    assert Order.objects.exists()
    assert events() == [("no_attribution", 200, prop.brand_id, "A-1001", False)]


def test_a_wrong_method_is_a_json_405_and_not_an_event(client, db):
    response = client.get(URL)

    assert response.status_code == 405
    assert response.json()["success"] is False
    assert not OutcomeEvent.objects.exists()
