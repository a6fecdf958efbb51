"""A hostile shop played in front of the stand-in: the outbound double answers the orders pages (or Shopify's
orders query) with what a test gives, and everything else as the stand-in would."""

import json

import httpx

from tests.platform_standin import STANDIN_HOST


def woo_orders_answered_by(outbound_double, answer) -> list:
    """Answer WooCommerce's orders pages with `answer(request, page)`; the list of pages asked."""
    return _in_front(outbound_double, lambda r: r.url.path.endswith("/wc/v3/orders"), answer)


def shopify_orders_answered_by(outbound_double, answer) -> list:
    """Answer Shopify's orders query with `answer(request, page)`; the list of pages asked."""
    return _in_front(outbound_double, lambda r: b"SyncOrders" in r.content, answer)


def shopify_subscriptions_answered_by(outbound_double, answer) -> list:
    return _in_front(outbound_double, lambda r: b"webhookSubscriptions(" in r.content, answer)


def _in_front(outbound_double, matches, answer) -> list:
    if not hasattr(outbound_double, "standin"):
        outbound_double.standin = outbound_double.handlers[STANDIN_HOST]
    standin = outbound_double.standin
    asked = []

    def handler(request):
        if matches(request):
            asked.append(request)
            return answer(request, len(asked))
        return standin.handle_request(request)

    outbound_double.serve(STANDIN_HOST, handler)
    return asked


def json_answer(body, *, headers=None) -> httpx.Response:
    return httpx.Response(200, content=json.dumps(body).encode(), headers=headers or {})


def shopify_page(nodes, *, more: bool, cursor: str | None) -> httpx.Response:
    return json_answer(
        {"data": {"orders": {"nodes": nodes, "pageInfo": {"hasNextPage": more, "endCursor": cursor}}}}
    )
