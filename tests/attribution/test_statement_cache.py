"""Every statement of the event paths stays within psycopg's cache of parsed statements (PostgreSQL).

psycopg parses a statement's `%(name)s` placeholders once and keeps the result, but only for statements of
at most MAX_CACHED_STATEMENT_PARAMS parameters and MAX_CACHED_STATEMENT_LENGTH bytes; a longer one is parsed
again on every execute. The order's one statement (attribution.orders.store) once grew from 50 to 54 parameters
with four new order columns, and each tracked order paid about 1.1M instructions more (docs/performance.md).
"""

import itertools
import re
from contextlib import contextmanager

import pytest
from django.db import connection
from psycopg._queries import MAX_CACHED_STATEMENT_LENGTH, MAX_CACHED_STATEMENT_PARAMS

from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order
from attribution.orders import store
from tests.attribution.keyed import CANCEL, UPDATE, commission_for
from tests.attribution.platforms.conftest import SHOP, SHOPIFY_SECRET, connect, post_shopify
from tests.factories import ClickFactory

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="psycopg's statement cache: PostgreSQL only"
)


@contextmanager
def statements():
    """Each statement executed meanwhile, as (sql, params)."""
    seen = []

    def capture(execute, sql, params, many, context):
        seen.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        yield seen


def assert_cached(seen):
    assert seen, "no statement was executed"
    for sql, params in seen:
        count = len(params) if params is not None else 0
        assert count <= MAX_CACHED_STATEMENT_PARAMS, f"{count} parameters: {sql[:120]}"
        assert len(sql.encode()) <= MAX_CACHED_STATEMENT_LENGTH, f"{len(sql)} bytes: {sql[:120]}"


def test_a_tracked_order_confirmation_is_written_by_a_cached_statement(api, prop, creator):
    click = ClickFactory(property=prop, creator=creator)

    with statements() as seen:
        response = api.post(
            "/api/order_confirmation",
            {
                "orderId": "C-1",
                "orderAmount": 80,
                "currency": "USD",
                "clickId": click.click_id,
                "page_url": f"https://{prop.host}/thanks",
            },
        )

    assert response.json()["outcome"] == "tracked"
    assert_cached(seen)


def test_a_cancel_and_an_update_are_written_by_cached_statements(client, alice, brand):
    commission_for(brand, order_id="U-1")
    commission_for(brand, order_id="X-1")

    with statements() as seen:
        updated = client.post(
            UPDATE,
            {"order_id": "U-1", "new_order_amount": 50, "currency": "USD"},
            content_type="application/json",
            **alice.headers,
        )
        cancelled = client.post(CANCEL, {"order_id": "X-1"}, content_type="application/json", **alice.headers)

    assert updated.json()["outcome"] == "tracked"
    assert cancelled.json()["outcome"] == "tracked"
    assert_cached(seen)


@pytest.mark.parametrize("tracked, recorded, claim, held", list(itertools.product((False, True), repeat=4)))
def test_every_form_of_the_orders_one_statement_is_within_the_cache(tracked, recorded, claim, held):
    """Each form, the largest included (a tracked platform order claiming its delivery, held for review, with
    its outcome row), which the requests below may not reach: a test's transaction keeps a delivery off the
    one-statement path, and no request here is held."""
    sql = store.statement(tracked=tracked, recorded=recorded, claim=claim, held=held)

    names = set(re.findall(r"%\((\w+)\)s", sql))

    assert len(names) <= MAX_CACHED_STATEMENT_PARAMS, sorted(names)
    assert len(sql.encode()) <= MAX_CACHED_STATEMENT_LENGTH


@pytest.mark.django_db(
    transaction=True
)  # outside a transaction: the delivery is claimed in the one statement
def test_a_tracked_platform_order_is_written_by_cached_statements(client, prop, creator):
    connect(prop, platform="shopify", shop_domain=SHOP, secret=SHOPIFY_SECRET)
    click = ClickFactory(property=prop, creator=creator)
    raw = body_of(shopify_order(note_attributes=[("sms_click_id", click.click_id)]))

    with statements() as seen:
        response = post_shopify(client, raw, webhook_id="cache-1")

    assert response.json()["outcome"] == "tracked"
    assert any("new_delivery AS" in sql for sql, _ in seen)  # the delivery claimed with its order
    assert_cached(seen)
