"""A jsonb parameter's text (config.lib.jsontext.dumps): the document json.dumps writes, whatever orjson can
and cannot write."""

import json
import uuid
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.serializers.json import DjangoJSONEncoder

from config.lib.jsontext import dumps

DOCUMENTS = [
    {"orderId": "A-1", "orderAmount": 12.5, "items": [{"sku": "x", "qty": 2}], "ok": True, "none": None},
    ["é ü", "日本", "\u2028"],
    {"nested": {"deep": [[], {}]}, "big": 2**63 - 1},
    [],
    "text",
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_a_document_reads_back_as_json_writes_it(document):
    assert json.loads(dumps(document)) == json.loads(json.dumps(document))


def test_types_only_the_encoder_knows_are_written_as_the_encoder_writes_them():
    at = datetime(2026, 11, 26, 22, 5, 7, 123456, tzinfo=UTC)
    document = {"at": at, "amount": Decimal("12.50"), "id": uuid.UUID(int=7)}
    assert json.loads(dumps(document, DjangoJSONEncoder)) == json.loads(
        json.dumps(document, cls=DjangoJSONEncoder)
    )
    assert json.loads(dumps(document, DjangoJSONEncoder))["at"] == "2026-11-26T22:05:07.123Z"


def test_what_orjson_cannot_write_is_left_to_json():
    assert json.loads(dumps({"huge": 10**30})) == {"huge": 10**30}
    assert dumps(["\ud800"]) == json.dumps(["\ud800"])  # a lone surrogate stays an escape
    assert json.loads(dumps({1: "a"})) == {"1": "a"}  # keys that are not text, as json writes them


def test_a_type_no_one_knows_still_raises():
    with pytest.raises(TypeError):
        dumps({"amount": Decimal("1")})  # without the encoder, as json.dumps refuses it
