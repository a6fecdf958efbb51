"""WooCommerce's answers: the wc-auth key handover (auto-approves: the keys are POSTed as JSON to the
callback_url through the platform client, then the administrator is sent to return_url), /wp-json/, and the
wc/v3 webhooks (list, create, update). The orders list: orders.py.

A key authenticates by HTTP Basic, or as the consumer_key and consumer_secret query parameters; a `read` key
may not write (401, as WooCommerce answers).
"""

import base64
import binascii
import re
from datetime import UTC, datetime
from urllib.parse import urlencode

import httpx

from attribution.platforms.apis.errors import PlatformAPIError
from attribution.platforms.apis.http import check_url, platform_client

from . import orders
from .messages import Answer, Request, json_answer, redirect

SCOPES = frozenset({"read", "write", "read_write"})
TOPICS = frozenset(
    {
        "order.created",
        "order.updated",
        "order.deleted",
        "order.restored",
        "product.created",
        "customer.created",
    }
)
STATUSES = frozenset({"active", "paused", "disabled"})
WEBHOOK_PATH = re.compile(r"^wp-json/wc/v3/webhooks/(?P<id>\d+)$")


def answer(world, site, request: Request) -> Answer:
    path = request.path.rstrip("/")
    if path == "wc-auth/v1/authorize" and request.method == "GET":
        return _authorize(world, site, request)
    failure = site.faults.take_failure()
    if failure:
        return json_answer(
            failure, {"code": "internal_server_error", "message": "There has been a critical error."}
        )
    if path == "wp-json" and request.method == "GET":
        return json_answer(200, _index(site))
    if not path.startswith("wp-json/wc/v3/"):
        return json_answer(404, {"code": "rest_no_route", "message": "No route was found matching the URL."})
    key = _key(site, request)
    if key is None:
        return _refused(401, "woocommerce_rest_cannot_view", "Sorry, you cannot list resources.")
    writes = request.method in ("POST", "PUT", "PATCH", "DELETE")
    if writes and key["permissions"] == "read":
        return _refused(401, "woocommerce_rest_authentication_error", "The API key provided does not have write permissions.")  # fmt: skip
    if path == "wp-json/wc/v3/orders" and request.method == "GET":
        try:
            body, headers = orders.woocommerce_orders(world, site, request.query)
        except NotImplementedError as exc:
            return json_answer(501, {"code": "not_implemented", "message": str(exc)})
        return Answer(200, body, headers)
    if path == "wp-json/wc/v3/products" and request.method == "GET":
        wanted = str(request.query.get("include") or "").split(",")
        listed = [
            {"id": int(product), "categories": [{"slug": slug, "name": slug.title()} for slug in slugs]}
            for product, slugs in site.products.items()
            if product in wanted
        ]
        return json_answer(200, listed)
    if path == "wp-json/wc/v3/webhooks" and request.method == "GET":
        return _webhooks(site, request.query)
    if path == "wp-json/wc/v3/webhooks" and request.method == "POST":
        return _create_webhook(world, site, request)
    matched = WEBHOOK_PATH.match(path)
    if matched and request.method in ("PUT", "PATCH", "POST"):
        return _update_webhook(site, int(matched["id"]), request)
    return json_answer(404, {"code": "rest_no_route", "message": "No route was found matching the URL."})


def _index(site) -> dict:
    return {
        "name": site.name,
        "description": "Just another WordPress site",
        "url": site.home,
        "home": site.home,
        "gmt_offset": site.gmt_offset,
        "timezone_string": site.timezone,
        "namespaces": ["wp/v2", "wc/v3", "wc-auth/v1"],
    }


def _refused(status: int, code: str, message: str) -> Answer:
    return json_answer(status, {"code": code, "message": message, "data": {"status": status}})


def _key(site, request: Request) -> dict | None:
    given, secret = request.query.get("consumer_key"), request.query.get("consumer_secret")
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("basic "):
        try:
            given, _, secret = base64.b64decode(authorization[6:]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
    key = site.keys.get(given or "")
    return key if key is not None and secret == key["secret"] else None


def _authorize(world, site, request: Request) -> Answer:
    query = request.query
    missing = [
        name for name in ("app_name", "scope", "user_id", "return_url", "callback_url") if not query.get(name)
    ]
    if missing:
        return Answer(400, f"<h1>Error: Missing parameter {missing[0]}</h1>")
    if query["scope"] not in SCOPES:
        return Answer(400, "<h1>Error: Invalid scope</h1>")
    callback = query["callback_url"]
    if not (callback.startswith("https://") or (world.plain_callbacks and callback.startswith("http://"))):
        return Answer(400, "<h1>Error: The callback_url needs to be over SSL</h1>")
    key, secret, key_id = world.issue_keys(site.slug, query["scope"], query["user_id"])
    keys = {
        "key_id": key_id,
        "user_id": query["user_id"],
        "consumer_key": key,
        "consumer_secret": secret,
        "key_permissions": query["scope"],
    }
    try:
        with platform_client() as client:
            delivered = client.post(check_url(callback), json=keys, timeout=60)
    except (httpx.HTTPError, PlatformAPIError):
        delivered = None
    if delivered is None or delivered.status_code != 200:
        site.keys.pop(key, None)  # WooCommerce deletes the keys it could not hand over
        return Answer(
            401,
            "<h1>Error: An error occurred in the request and at the time were unable to send the consumer data</h1>",
        )
    separator = "&" if "?" in query["return_url"] else "?"
    return redirect(query["return_url"] + separator + urlencode({"success": 1, "user_id": query["user_id"]}))


def _webhooks(site, query: dict) -> Answer:
    chosen = [w for w in site.webhooks if not query.get("status") or w["status"] == query["status"]]
    per_page = min(max(_int(query.get("per_page"), 10), 1), 100)
    page = max(_int(query.get("page"), 1), 1)
    pages = max((len(chosen) + per_page - 1) // per_page, 1)
    shown = chosen[(page - 1) * per_page : page * per_page]
    return Answer(
        200, [dict(w) for w in shown], {"X-WP-Total": str(len(chosen)), "X-WP-TotalPages": str(pages)}
    )


def _create_webhook(world, site, request: Request) -> Answer:
    given = request.json()
    if not isinstance(given, dict) or given.get("topic") not in TOPICS:
        return _refused(400, "rest_invalid_param", "Invalid parameter(s): topic")
    url = str(given.get("delivery_url") or "")
    if not (url.startswith("https://") or (world.plain_callbacks and url.startswith("http://"))):
        return _refused(400, "rest_invalid_param", "Invalid parameter(s): delivery_url")
    now = datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
    resource, _, event = given["topic"].partition(".")
    webhook = {
        "id": world.next_id(),
        "name": str(given.get("name") or f"Webhook created on {now}"),
        "status": given.get("status") if given.get("status") in STATUSES else "active",
        "topic": given["topic"],
        "resource": resource,
        "event": event,
        "hooks": [f"woocommerce_{resource}_{event}"],
        "delivery_url": url,
        "date_created": now,
        "date_created_gmt": now,
        "date_modified": now,
        "date_modified_gmt": now,
    }
    site.webhooks.append(webhook)
    site.webhook_secrets[webhook["id"]] = str(given.get("secret") or "")
    return json_answer(201, dict(webhook))


def _update_webhook(site, webhook_id: int, request: Request) -> Answer:
    found = next((w for w in site.webhooks if w["id"] == webhook_id), None)
    if found is None:
        return _refused(404, "woocommerce_rest_webhook_invalid_id", "Invalid ID.")
    given = request.json()
    given = given if isinstance(given, dict) else {}
    if "status" in given:
        if given["status"] not in STATUSES:
            return _refused(400, "rest_invalid_param", "Invalid parameter(s): status")
        found["status"] = given["status"]
    if given.get("delivery_url"):
        found["delivery_url"] = str(given["delivery_url"])
    if given.get("secret"):
        site.webhook_secrets[webhook_id] = str(given["secret"])
    return json_answer(200, dict(found))


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
