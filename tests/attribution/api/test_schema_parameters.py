"""What the OpenAPI schema says of parameters and property examples, checked on the served schema: every path
parameter is one of its path's, the longest request line the schema allows fits the 8 KB the servers in front
take (config/serving.py), and a request built from the properties' own examples (as tools build one) changes no
order of the demo world (docs/api.md, "Examples that work against make run")."""

import json
import re
from urllib.parse import quote

import pytest
from django.utils import timezone

from attribution.management.demo.world import build
from attribution.models import Commission, Order
from config.serving import REQUEST_LINE_MAX_BYTES

pytestmark = pytest.mark.django_db

# The most a character of a string parameter costs in a request line: a character outside the Basic
# Multilingual Plane is 4 bytes of UTF-8, each sent as %XX.
WORST_CHARACTER = quote("\U0001f600")


@pytest.fixture
def schema(client):
    return client.get("/api/schema/", HTTP_ACCEPT="application/json").json()


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_path_parameter_is_one_its_path_names(schema):
    for path, method, operation in operations(schema):
        named = set(re.findall(r"{(\w+)}", path))
        documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}

        assert documented == named, (method, path)


def _longest(parameter) -> str:
    schema = parameter["schema"]
    if "enum" in schema:
        return max((quote(str(v), safe="") for v in schema["enum"]), key=len)
    if "oneOf" in schema and "maxLength" not in schema:
        return max((_longest({**parameter, "schema": branch}) for branch in schema["oneOf"]), key=len)
    if schema.get("type") == "boolean":
        return "false"
    if schema.get("type") == "integer":
        return str(schema.get("maximum", 2**63))
    assert "maxLength" in schema, f"{parameter['name']} has no maxLength: no request line can be promised"
    return WORST_CHARACTER * schema["maxLength"]


def test_the_longest_request_line_the_schema_allows_fits_the_servers_limit(schema):
    for path, method, operation in operations(schema):
        parameters = operation.get("parameters", [])
        filled = path
        for p in parameters:
            if p["in"] == "path":
                filled = filled.replace("{" + p["name"] + "}", _longest(p))
        query = "&".join(f"{p['name']}={_longest(p)}" for p in parameters if p["in"] == "query")
        # With the trailing slash the paths also accept (docs/decisions.md, "Paths").
        line = f"{method.upper()} {filled}/{'?' + query if query else ''} HTTP/1.1"

        assert len(line) <= REQUEST_LINE_MAX_BYTES, (method, path, len(line))


# --- the properties' own examples against the demo world -----------------------------------------------------


def _resolved(schema, body_schema):
    ref = body_schema.get("$ref")
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else body_schema


def test_no_order_id_example_of_a_body_names_an_order_the_demo_world_holds(schema):
    build(now=timezone.now())
    held = set(Order.objects.values_list("order_id", flat=True))
    examples = []
    for name, component in schema["components"]["schemas"].items():
        for field, prop in component.get("properties", {}).items():
            if field in ("orderId", "order_id") and "example" in prop:
                examples.append((name, str(prop["example"])))

    assert examples
    assert [(where, order_id) for where, order_id in examples if order_id in held] == []


def test_a_body_built_from_the_property_examples_changes_no_demo_order(schema, api):
    world = build(now=timezone.now())
    before = list(Commission.objects.order_by("pk").values_list("pk", "state", "amount"))
    answers = {}
    for path, method, operation in operations(schema):
        content = operation.get("requestBody", {}).get("content", {}).get("application/json")
        component = _resolved(schema, content["schema"]) if content else {}
        properties = component.get("properties", {})
        if method != "post" or not any("example" in p for p in properties.values()):
            continue
        body = {name: p["example"] for name, p in properties.items() if "example" in p}
        answer = api.post(path, body, key=world["brands"]["main"]["developer_key"])
        answers[path] = (answer.status_code, answer.json()["success"], answer.json()["outcome"])

    assert answers and all(ok for _, ok, _ in answers.values()), answers
    assert list(Commission.objects.order_by("pk").values_list("pk", "state", "amount")) == before, answers
    assert json.dumps(answers)  # the answers name what each body got, for the failure above
