"""The bench traffic in Python for the in-process harness (bench/cost.py): the same requests as
bench/baseline.lua, bench/mixed_orders.lua and bench/changes.lua send, with the same bodies and headers.

wrk draws each order's kind at random (70 % direct, 20 % by click, 5 % by code, 2 % repeats, 3 % with
a template placeholder for the amount); here every block of 100 holds exactly those counts, shuffled
with a fixed seed, so an instruction count is the mix's and nothing of the draw. Order ids are fresh in
every run (the run id), and cancels take the next orders of the cancel pool, as in changes.lua.
"""

import hashlib
import random
from pathlib import Path
from typing import NamedTuple

from bench.world import CANCELS, CHANGES, PLATFORM, WORLD

ORDER_MIX = [("direct", 70), ("click", 20), ("code", 5), ("repeat", 2), ("placeholder", 3)]


class Request(NamedTuple):
    path: str
    headers: dict  # WSGI names: CONTENT_TYPE, HTTP_ORIGIN, HTTP_AUTHORIZATION
    body: bytes


class World(NamedTuple):
    host: str
    code: str
    clicks: list
    key: str
    update_ids: list
    cancel_ids: list

    @classmethod
    def read(cls) -> "World":
        host, code, *clicks = Path(WORLD).read_text().split()
        key, *update_ids = Path(CHANGES).read_text().split()
        return cls(host, code, clicks, key, update_ids, Path(CANCELS).read_text().split())


def baseline(count: int) -> list[Request]:
    body = b'{"orderAmount":"59.90","orderId":"x","currency":"USD","page_url":"https://shop.example/"}'
    return [Request("/api/bench/baseline", {"CONTENT_TYPE": "application/json"}, body)] * count


def orders(world: World, run: str, count: int, *, seed: int = 1) -> list[Request]:
    """`count` order confirmations as mixed_orders.lua sends them (one wrk thread: tid 1)."""
    rng = random.Random(seed)
    kinds: list[str] = []
    while len(kinds) < count:
        block = [kind for kind, share in ORDER_MIX for _ in range(share)]
        rng.shuffle(block)
        kinds += block
    page = f"https://{world.host}/checkout/thank-you"
    headers = {"CONTENT_TYPE": "application/json", "HTTP_ORIGIN": "https://shop.example"}
    requests = []
    for counter, kind in enumerate(kinds[:count], start=1):
        order_id = f"{run}-1-{counter}"
        if kind == "direct":
            body = (
                f'{{"orderAmount":"59.90","orderId":"{order_id}","currency":"USD","page_url":"{page}",'
                f'"code":"","is_returning_customer":false}}'
            )
        elif kind == "click":
            body = (
                f'{{"orderAmount":"59.90","orderId":"{order_id}","currency":"USD","page_url":"{page}",'
                f'"clickId":"{rng.choice(world.clicks)}","code":"","is_returning_customer":false}}'
            )
        elif kind == "code":
            body = (
                f'{{"orderAmount":"120.00","orderId":"{order_id}","currency":"EUR","page_url":"{page}",'
                f'"code":"{world.code}"}}'
            )
        elif kind == "repeat":
            body = f'{{"orderAmount":"59.90","orderId":"{run}-1-1-1","currency":"USD","page_url":"{page}"}}'
        else:
            body = (
                f'{{"orderAmount":"***THE ORDER TOTAL***","orderId":"{order_id}","currency":"USD",'
                f'"page_url":"{page}"}}'
            )
        requests.append(Request("/api/order_confirmation", headers, body.encode()))
    return requests


def changes(world: World, run: str, count: int, *, cancel_from: int, seed: int = 1) -> list[Request]:
    """`count` requests as changes.lua sends them: half cancels (the next orders of the cancel pool
    from `cancel_from`), half amount updates of orders of the update pool; exactly half each, in an
    order fixed by `seed`, the updated orders and amounts drawn afresh for every run."""
    kinds = ["cancel", "update"] * (count // 2) + ["cancel"] * (count % 2)
    random.Random(seed).shuffle(kinds)
    rng = random.Random(run)
    headers = {"CONTENT_TYPE": "application/json", "HTTP_AUTHORIZATION": f"Bearer {world.key}"}
    requests = []
    cancels = cancel_from
    for kind in kinds:
        if kind == "cancel":
            order_id = world.cancel_ids[cancels % len(world.cancel_ids)]
            cancels += 1
            requests.append(
                Request("/api/Affiliates/cancel", headers, f'{{"order_id":"{order_id}"}}'.encode())
            )
        else:
            order_id = rng.choice(world.update_ids)
            amount = f"{rng.randint(10, 99)}.{rng.randint(0, 99):02d}"
            body = f'{{"order_id":"{order_id}","new_order_amount":"{amount}","currency":"USD"}}'
            requests.append(Request("/api/Affiliates/update", headers, body.encode()))
    return requests


def cancels_in(requests: list[Request]) -> int:
    return sum(r.path == "/api/Affiliates/cancel" for r in requests)


# Shopify's orders/create as a shop sends them: 70 % direct, 20 % with the click in the cart's attributes, 10 %
# with a registered discount code; the body is the full REST order the platform tests send too, written by the
# stand-in (attribution.management.demo.standin.webhook_bodies): the bench imports no test module.
DELIVERY_MIX = [("direct", 70), ("click", 20), ("code", 10)]


class Shop(NamedTuple):
    domain: str
    secret: str
    code: str
    clicks: list

    @classmethod
    def read(cls) -> "Shop":
        domain, secret, code, *clicks = Path(PLATFORM).read_text().split()
        return cls(domain, secret, code, clicks)


def deliveries(shop: Shop, run: str, count: int, *, seed: int = 1) -> list[Request]:
    """`count` signed orders/create deliveries of the bench shop, each a new order and webhook id."""
    from attribution.management.demo.standin.webhook_bodies import body_of, shopify_order, signature

    rng = random.Random(seed)
    first_id = int(hashlib.sha256(run.encode()).hexdigest()[:10], 16) * 100_000  # Shopify's ids are integers
    kinds: list[str] = []
    while len(kinds) < count:
        block = [kind for kind, share in DELIVERY_MIX for _ in range(share)]
        rng.shuffle(block)
        kinds += block
    requests = []
    for counter, kind in enumerate(kinds[:count], start=1):
        order_id = first_id + counter
        order = shopify_order(
            order_id=order_id,
            name=f"#{order_id}",
            note_attributes=[("sms_click_id", rng.choice(shop.clicks))] if kind == "click" else (),
            codes=[(shop.code, "5.99")] if kind == "code" else (),
        )
        body = body_of(order)
        headers = {
            "CONTENT_TYPE": "application/json",
            "HTTP_X_SHOPIFY_TOPIC": "orders/create",
            "HTTP_X_SHOPIFY_SHOP_DOMAIN": shop.domain,
            "HTTP_X_SHOPIFY_HMAC_SHA256": signature(body, shop.secret),
            "HTTP_X_SHOPIFY_WEBHOOK_ID": f"bench-{run}-{counter}",
            "HTTP_X_SHOPIFY_API_VERSION": "2025-01",
        }
        requests.append(Request("/api/platforms/shopify", headers, body))
    return requests
