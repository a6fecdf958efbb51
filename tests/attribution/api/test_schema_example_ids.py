"""The order confirmation's examples in the OpenAPI schema each send an order id of their own, none of them an
order the demo world already holds: against a fresh demo world each succeeds once (Swagger's "Try it out",
schemathesis's examples phase), where two examples of one id made the second a duplicate_order."""

import pytest

from attribution.management.demo.world import build

pytestmark = pytest.mark.django_db


@pytest.fixture
def examples(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/order_confirmation"]["post"]
    return operation["requestBody"]["content"]["application/json"]["examples"]


def test_each_example_has_its_own_order_id(examples):
    ids = [str(example["value"]["orderId"]) for example in examples.values()]

    assert len(examples) >= 3
    assert len(set(ids)) == len(ids), ids


def test_each_example_is_received_once_against_a_fresh_demo_world(api, examples):
    from django.utils import timezone

    build(now=timezone.now())

    answers = [api.post("/api/order_confirmation", example["value"]) for example in examples.values()]

    assert [(a.status_code, a.json()["success"]) for a in answers] == [(200, True)] * len(answers), [
        a.json() for a in answers
    ]


def test_every_operation_documents_the_json_414_of_a_request_line_over_8_kb(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            answer = operation["responses"].get("414")
            assert answer is not None, (method, path)
            body = answer["content"]["application/json"]["schema"]
            assert body["properties"]["outcome"]["enum"] == ["invalid_params"], (method, path)
            assert "8 KB" in answer["description"]
