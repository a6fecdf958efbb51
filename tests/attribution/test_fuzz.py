"""Property-based fuzzing of the three endpoints: whatever arrives, the answer is JSON in the response
envelope with a documented status, never a 5xx or an HTML page."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attribution.outcomes import Outcome
from tests.factories import ClickFactory, DiscountCodeFactory, issue_key

FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
amounts = st.sampled_from(["59.90", "0", "-1", "$5", "1,000.00", "1e3", "NaN", "", " 12.5 "]) | json_values
ids = st.sampled_from(["A-1", "", "  ", 123, 1.5, True]) | json_values


def _fields(names_and_strategies):
    return st.fixed_dictionaries({}, optional=dict(names_and_strategies)).flatmap(
        lambda known: st.dictionaries(st.text(max_size=12), json_values, max_size=3).map(
            lambda extra: {**extra, **known}
        )
    )


def assert_envelope(response):
    assert response.status_code in (200, 400, 401, 413, 429), response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) >= {"success", "outcome"}
    assert body["success"] is (response.status_code == 200)
    assert body["outcome"] in {o.value for o in Outcome}
    assert isinstance(body["message" if body["success"] else "error"], str)


@pytest.fixture
def world(prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    DiscountCodeFactory(brand=prop.brand, code="ANA10", creator=creator)
    _, key = issue_key(prop.brand)
    return {"host": prop.host, "click": click.click_id, "key": key}


@FUZZ
@given(data=st.data())
def test_order_confirmation_answers_every_body_in_the_envelope(api, world, data):
    body = data.draw(
        _fields(
            {
                "orderAmount": amounts,
                "orderId": ids,
                "currency": st.sampled_from(["USD", "usd", "JPY", "XXX", "", "US"]) | json_values,
                "page_url": st.sampled_from([f"https://{world['host']}/t", "https://nope.example/", ""])
                | json_values,
                "clickId": st.sampled_from([world["click"], "clk_" + "0" * 32, "undefined", '"x"'])
                | json_values,
                "code": st.sampled_from(["ANA10", " ana10 ", "", "NOPE"]) | json_values,
                "test": json_values,
                "is_returning_customer": json_values,
                "domain": json_values,
                "returnWindowClosesAt": st.sampled_from(["2026-12-01T00:00:00Z", 1767225600, "soon"])
                | json_values,
                "customer_email": json_values,
            }
        )
        | json_values
    )
    assert_envelope(api.post("/api/order_confirmation", body))


@FUZZ
@given(raw=st.binary(max_size=200))
def test_order_confirmation_answers_arbitrary_bytes_in_the_envelope(api, world, raw):
    assert_envelope(api.post("/api/order_confirmation", raw, content_type="text/plain"))


@FUZZ
@given(data=st.data())
def test_cancel_answers_every_body_in_the_envelope(api, world, data):
    body = data.draw(_fields({"order_id": ids, "domain": json_values, "test": json_values}) | json_values)
    key = data.draw(st.sampled_from([world["key"], None, "nope.nope"]))
    assert_envelope(api.post("/api/Affiliates/cancel", body, key=key))


@FUZZ
@given(data=st.data())
def test_update_answers_every_body_in_the_envelope(api, world, data):
    body = data.draw(
        _fields(
            {
                "order_id": ids,
                "new_order_amount": amounts,
                "currency": st.sampled_from(["USD", "EUR"]) | json_values,
                "domain": json_values,
                "test": json_values,
            }
        )
        | json_values
    )
    assert_envelope(api.post("/api/Affiliates/update", body, key=world["key"]))


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff\xfe not utf-8",
        b"[" * 5000 + b"]" * 5000,
        b'{"orderAmount": 1e999999}',
        b'{"orderAmount": NaN}',
        b'{"orderId": 1, "orderId": 2}',
        b'{"orderAmount": 123456789012345678901234567890}',
        json.dumps({"orderId": "9" * 5000}).encode(),
    ],
)
def test_hostile_bodies_answer_400_json(api, world, raw):
    response = api.post("/api/order_confirmation", raw)
    assert_envelope(response)
    assert response.status_code == 400


def test_a_body_over_64_kib_answers_413_json(api, world):
    response = api.post("/api/order_confirmation", {"orderId": "x", "pad": "a" * 70_000})
    assert_envelope(response)
    assert response.status_code == 413
    assert response.json()["outcome"] == "invalid_params"
