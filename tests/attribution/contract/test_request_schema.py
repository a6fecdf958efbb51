"""The request serializers (attribution/contract/serializers/) are the contract: the schema of each field says
exactly what its field rule accepts, and every example the schema shows gets the outcome it names.

A value is judged as it travels: the schema sees the JSON value a client sends (validated with the JSON
Schema validator schemathesis uses, as OpenAPI 3.0 reads it), the rule sees what the strict JSON parser
makes of the same text.
"""

import itertools
import json
import string
import sys
from functools import cache

import jsonschema_rs
import pytest
from django.utils import timezone
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attribution.contract import examples
from attribution.contract.field_schemas import SPACE
from attribution.contract.serializers import (
    AmountUpdateSerializer,
    CancellationSerializer,
    OrderConfirmationSerializer,
    OrderReadSerializer,
)
from attribution.management.demo.world import build
from attribution.models import Order
from attribution.parsing import FieldError, loads_strict
from tests.attribution.keyed import CANCEL, UPDATE

SERIALIZERS = [
    OrderConfirmationSerializer,
    CancellationSerializer,
    AmountUpdateSerializer,
    OrderReadSerializer,
]
FIELDS = {
    f"{serializer.__name__}.{name}": rule
    for serializer in SERIALIZERS
    for name, rule in serializer.rules.items()
}


@cache
def validator(rule) -> jsonschema_rs.Draft4Validator:
    schema = rule.openapi_schema()
    if schema.pop("nullable", False):  # OpenAPI 3.0's word for "or null"
        schema = {"anyOf": [schema, {"type": "null"}]}
    return jsonschema_rs.Draft4Validator(schema)


def accepted_by_rule(rule, value) -> bool:
    sent = loads_strict(json.dumps({"value": value}).encode())["value"]
    try:
        rule.parse(sent)
    except FieldError:
        return False
    return True


def assert_schema_says_what_rule_accepts(rule, value):
    assert validator(rule).is_valid(value) is accepted_by_rule(rule, value), repr(value)


# What clients send: strings made of what the rules look at, and numbers of every size.
spaces = st.sampled_from([" ", "\t", "\n", "\x1c", "\x85", "\xa0", "\u2003", "\u3000", "\ufeff", "\u200b"])
decimal_text = st.lists(
    st.sampled_from("0123456789") | st.sampled_from(".+-e,$ ") | spaces, min_size=0, max_size=16
).map("".join)
numbers = (
    st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(min_value=-1e-5, max_value=1e-5)
    | st.floats(min_value=1e11, max_value=1e13)
)
# \u0000 and unpaired surrogates are refused wherever they stand in a body (docs/api.md, "Limits"),
# not by a field's rule.
BODY_CHARACTERS = st.characters(codec="utf-8", exclude_characters="\x00")
texts = st.text(alphabet=BODY_CHARACTERS, max_size=30)
json_values = st.none() | st.booleans() | numbers | texts | st.lists(st.integers(), max_size=2)


def test_space_is_what_str_strip_removes():
    one_space = jsonschema_rs.Draft4Validator({"pattern": f"^{SPACE}$"})
    characters = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    assert [c for c in characters if one_space.is_valid(c)] == [c for c in characters if not c.strip()]


@settings(max_examples=400, deadline=None)
@given(
    value=json_values | decimal_text | st.decimals(places=8, allow_nan=False, allow_infinity=False).map(str)
)
@example("0.0000005")
@example("0.00000049999")
@example(" +.0000005 ")
@example("-0.0000004")
@example("-0.0000005")
@example("-0.")
@example("999999999999.9999994")
# Rounds up to 10^12: accepted by the rule as it stands; if the rule changes, its pattern must follow.
@example("999999999999.9999995")
@example("1000000000000")
@example("0001000000000000")
@example(5e-07)
@example(4.999999999999999e-07)
@example(-4.999999999999999e-07)
@example(-5e-07)
@example(999999999999.9999)
@example(1e12)
@example(0)
def test_the_amount_schemas_say_what_the_amount_rules_accept(value):
    for name in ("OrderConfirmationSerializer.orderAmount", "AmountUpdateSerializer.new_order_amount"):
        assert_schema_says_what_rule_accepts(FIELDS[name], value)


@settings(max_examples=300, deadline=None)
@given(
    value=json_values
    | st.integers(min_value=-(10**256), max_value=10**256)
    | st.tuples(spaces, st.text(BODY_CHARACTERS, max_size=260), spaces).map("".join)
    | st.integers(min_value=0, max_value=300).map(lambda n: " " + "x" * n + "\n")
)
@example(10**255 - 1)
@example(10**255)
@example(-(10**254 - 1))
@example(-(10**254))
@example(1e254)
@example(123.0)
@example(12.5)
@example("  ")
@example("\ufeff")
def test_the_order_id_schemas_say_what_the_order_id_rule_accepts(value):
    for name in ("OrderConfirmationSerializer.orderId", "CancellationSerializer.order_id"):
        assert_schema_says_what_rule_accepts(FIELDS[name], value)


@settings(max_examples=300, deadline=None)
@given(
    value=json_values
    | st.text(alphabet="usdUSDeEurRjpyJPYxauXAUſıK \t\n\xa0", min_size=0, max_size=6)
    | st.sampled_from(["USD", "usd", " Usd\n", "XAU", "uſd", "kwd", "KWD ", "US D", "USDD"])
)
def test_the_currency_schema_says_what_the_currency_rule_accepts(value):
    assert_schema_says_what_rule_accepts(FIELDS["OrderConfirmationSerializer.currency"], value)


def test_the_currency_schema_takes_exactly_the_codes_the_rule_takes():
    rule = FIELDS["OrderConfirmationSerializer.currency"]
    for letters in itertools.product(string.ascii_uppercase, repeat=3):
        for sent in ("".join(letters), "".join(letters).lower(), "".join(letters).title()):
            assert validator(rule).is_valid(sent) is accepted_by_rule(rule, sent), sent


@settings(max_examples=300, deadline=None)
@given(value=json_values | st.text(alphabet="truefalsTRUEFALS \t\n01", max_size=8))
@example(" TRUE\n")
@example("False")
@example("yes")
@example("")
def test_the_flag_schemas_say_what_the_flag_rule_accepts(value):
    for name in ("OrderConfirmationSerializer.test", "OrderConfirmationSerializer.is_returning_customer"):
        assert_schema_says_what_rule_accepts(FIELDS[name], value)


@settings(max_examples=300, deadline=None)
@given(
    value=json_values
    | st.integers(min_value=-(10**101), max_value=10**101)
    | st.tuples(spaces, st.text(BODY_CHARACTERS, max_size=330), spaces).map("".join)
    | st.integers(min_value=0, max_value=330).map(lambda n: "\t" + "é" * n + " ")
)
@example(10**100 - 1)
@example(10**100)
@example(-(10**99))
@example(12.0)
def test_the_code_and_email_schemas_say_what_their_rules_accept(value):
    for name in ("OrderConfirmationSerializer.code", "OrderConfirmationSerializer.customer_email"):
        assert_schema_says_what_rule_accepts(FIELDS[name], value)


@settings(deadline=None)
@given(
    value=json_values
    | st.from_regex(r"\A\s?clk_[0-9a-fA-F]{31,33}\s?\Z")
    | st.sampled_from(["", "  ", "sms_click_id=clk_0123456789abcdef0123456789abcdef", '"clk_x"'])
)
@example(" clk_0123456789abcdef0123456789abcdef\n")
@example("clk_0123456789ABCDEF0123456789abcdef")
def test_the_click_id_schema_says_what_the_click_id_rule_accepts(value):
    assert_schema_says_what_rule_accepts(FIELDS["OrderConfirmationSerializer.clickId"], value)


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_every_field_of_every_request_documents_its_rule(name):
    rule = FIELDS[name]
    assert rule.help_text, f"{name} has no description"
    assert rule.example is not None, f"{name} has no example"
    assert accepted_by_rule(rule, rule.example), f"{name}'s example is refused by its rule"
    assert validator(rule).is_valid(rule.example), f"{name}'s example is refused by its schema"


def test_the_return_window_never_refuses_an_event():
    rule = FIELDS["OrderConfirmationSerializer.returnWindowClosesAt"]
    assert rule.outcome is None
    assert OrderConfirmationSerializer.check(
        {"orderId": 1, "orderAmount": 1, "currency": "USD", "returnWindowClosesAt": {"no": "date"}}
    ).warnings == [("returnWindowClosesAt", "must be an ISO 8601 timestamp or Unix epoch seconds")]


def test_is_valid_runs_the_same_rules_as_check():
    body = {
        "orderId": " A-1 ",
        "orderAmount": "59.90",
        "currency": "usd",
        "page_url": "https://shop.example/",
    }
    serializer = OrderConfirmationSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    assert (
        serializer.validated_data["orderId"]
        == OrderConfirmationSerializer.check(body).values["orderId"]
        == "A-1"
    )
    refused = OrderConfirmationSerializer(data={**body, "orderAmount": "$59.90"})
    assert not refused.is_valid()
    assert refused.errors["orderAmount"] == [
        "must be a plain number such as 59.90, without currency symbols, thousands separators or template placeholders"
    ]


# --- the examples the schema shows ----------------------------------------------------------------


@pytest.fixture
def world(db):
    """The demo world `make run` builds (seed_demo), which the examples of /api/schema/ name; its main brand's
    developer key."""
    return build(now=timezone.now())["brands"]["main"]["developer_key"]


def examples_of(client, method: str, path: str) -> list[tuple[str, str, object]]:
    """(outcome named by its summary, path, body) of each request example the served schema shows."""
    schema = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    operation = schema["paths"][path][method]
    examples = [
        (example["summary"].split(":")[0], path, example["value"])
        for example in operation.get("requestBody", {})
        .get("content", {})
        .get("application/json", {})
        .get("examples", {})
        .values()
    ]
    for parameter in operation.get("parameters", []):
        for shown in parameter.get("examples", {}).values():
            filled = path.replace(f"{{{parameter['name']}}}", shown["value"])
            examples.append((shown["summary"].split(":")[0], filled, None))
    assert examples, f"{method} {path} shows no example"
    return examples


def test_the_order_confirmation_examples_get_the_outcomes_they_name(client, api, world):
    for outcome, path, body in examples_of(client, "post", "/api/order_confirmation"):
        assert api.post(path, body).json()["outcome"] == outcome, body
    assert Order.objects.filter(order_id=examples.TRACKED_ORDER, commission__isnull=False).exists()


@pytest.mark.parametrize("path", [CANCEL, UPDATE])
def test_the_cancel_and_update_examples_get_the_outcomes_they_name(client, api, world, path):
    for outcome, _, body in examples_of(client, "post", path):
        assert api.post(path, body, key=world).json()["outcome"] == outcome, body


def test_the_read_api_example_finds_its_order_even_after_the_cancel_example(client, api, world):
    api.post(CANCEL, {"order_id": int(examples.READ_ORDER)}, key=world)
    for outcome, path, _ in examples_of(client, "get", "/api/Affiliates/orders/{order_id}"):
        assert api.get(path, key=world).json()["outcome"] == outcome, path


def test_building_the_demo_world_again_makes_the_examples_true_again(client, api, world):
    for _, path, body in examples_of(client, "post", "/api/order_confirmation"):
        api.post(path, body)
    api.post(CANCEL, {"order_id": int(examples.READ_ORDER)}, key=world)
    api.post(
        UPDATE, {"order_id": int(examples.UPDATE_ORDER), "new_order_amount": 0, "currency": "USD"}, key=world
    )

    key = build(now=timezone.now())["brands"]["main"]["developer_key"]

    for path in ("/api/order_confirmation", CANCEL, UPDATE):
        for outcome, _, body in examples_of(client, "post", path):
            assert api.post(path, body, key=key).json()["outcome"] == outcome, body
