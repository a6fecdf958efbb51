"""Shopify's answers: OAuth (authorize auto-approves; access_token: the code's token, expiring when asked,
the refresh of an expiring pair, the exchange of a non-expiring token) and the Admin GraphQL API's `shop`,
`currentAppInstallation`, `webhookSubscriptions` and `webhookSubscriptionCreate` (the orders query: orders.py).

A query is told apart by the fields it names (this is a stand-in, not a GraphQL server); every query spends
from the shop's cost bucket and answers `extensions.cost` as Shopify does.
"""

import hashlib
import hmac
import re
import secrets
import time
from datetime import UTC, datetime
from urllib.parse import urlencode

from . import orders
from .messages import Answer, Request, json_answer, redirect

# The webhook topics webhookSubscriptionCreate takes here. The compliance topics (customers/data_request,
# customers/redact, shop/redact) are not among them: an app declares those in its configuration.
TOPICS = frozenset(
    {
        "ORDERS_CREATE", "ORDERS_PAID", "ORDERS_UPDATED", "ORDERS_CANCELLED", "ORDERS_FULFILLED",
        "ORDERS_PARTIALLY_FULFILLED", "ORDERS_EDITED", "ORDERS_DELETE", "REFUNDS_CREATE", "APP_UNINSTALLED",
    }
)  # fmt: skip
GRAPHQL_PATH = re.compile(r"^admin/api/(?P<version>\d{4}-\d{2})/graphql\.json$")
INVALID_TOKEN = "[API] Invalid API key or access token (unrecognized login or wrong password)"
# The token endpoint's exchange of a non-expiring offline token for an expiring one (Shopify's migration).
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
OFFLINE_TOKEN = "urn:shopify:params:oauth:token-type:offline-access-token"
QUERY_COST = 2
MUTATION_COST = 10


def answer(world, shop, request: Request) -> Answer:
    if request.path == "admin/oauth/authorize" and request.method == "GET":
        return _authorize(world, shop, request)
    if request.path == "admin/oauth/access_token" and request.method == "POST":
        return _access_token(world, shop, request)
    matched = GRAPHQL_PATH.match(request.path)
    if matched and request.method == "POST":
        return _graphql(world, shop, request, matched["version"])
    return json_answer(404, {"errors": "Not Found"})


def oauth_hmac(params: dict, secret: str) -> str:
    """The `hmac` of an OAuth redirect: hex HMAC-SHA256 of the other parameters, sorted, as `k=v&k=v`."""
    message = "&".join(f"{key}={value}" for key, value in sorted(params.items()) if key != "hmac")
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()


def _authorize(world, shop, request: Request) -> Answer:
    query = request.query
    if query.get("client_id") != world.shopify_client_id:
        return Answer(400, "<h1>Oauth error invalid_request: The client_id is not recognized.</h1>")
    if not query.get("redirect_uri"):
        return Answer(400, "<h1>Oauth error invalid_request: The redirect_uri is missing.</h1>")
    code = secrets.token_hex(16)
    scopes = [s.strip() for s in query.get("scope", "").split(",") if s.strip()]
    with world.lock:
        world.codes[code] = (shop.domain, scopes)
    params = {
        "code": code,
        "shop": shop.domain,
        "state": query.get("state", ""),
        "timestamp": str(int(time.time())),
    }
    params["hmac"] = oauth_hmac(params, world.shopify_client_secret)
    separator = "&" if "?" in query["redirect_uri"] else "?"
    return redirect(query["redirect_uri"] + separator + urlencode(params))


def _access_token(world, shop, request: Request) -> Answer:
    given = request.json() if "json" in request.headers.get("content-type", "") else request.form()
    given = given if isinstance(given, dict) else {}
    if (
        given.get("client_id") != world.shopify_client_id
        or given.get("client_secret") != world.shopify_client_secret
    ):
        return json_answer(
            400, {"error": "invalid_client", "error_description": "Client credentials are invalid"}
        )
    grant = given.get("grant_type") or "authorization_code"
    if grant == "refresh_token":
        pair = world.refresh(shop.domain, str(given.get("refresh_token", "")))
        return json_answer(200, pair) if pair else _invalid_grant("The refresh token is invalid or expired")
    if grant == TOKEN_EXCHANGE:
        if (
            given.get("subject_token_type") != OFFLINE_TOKEN
            or given.get("requested_token_type") != OFFLINE_TOKEN
        ):
            return _invalid_grant("Only an offline access token is exchanged here")
        pair = world.migrate(shop.domain, str(given.get("subject_token", "")))
        return json_answer(200, pair) if pair else _invalid_grant("The subject token is invalid")
    with world.lock:
        issued = world.codes.pop(str(given.get("code", "")), None)
    if issued is None or issued[0] != shop.domain:
        return json_answer(
            400,
            {
                "error": "invalid_request",
                "error_description": "The authorization code was not found or was already used",
            },
        )
    if str(given.get("expiring", "0")) == "1":
        return json_answer(200, world.issue_expiring_token(shop.domain, issued[1]))
    token = world.issue_token(shop.domain, issued[1])
    return json_answer(200, {"access_token": token, "scope": ",".join(issued[1])})


def _invalid_grant(description: str) -> Answer:
    return json_answer(400, {"error": "invalid_grant", "error_description": description})


def _graphql(world, shop, request: Request, version: str) -> Answer:
    headers = {"X-Shopify-API-Version": shop.served_version or version}
    failure = shop.faults.take_failure()
    if failure:
        return Answer(failure, "<h1>Internal Server Error</h1>", headers)
    token = request.headers.get("x-shopify-access-token", "")
    scopes = shop.tokens.get(token)
    if scopes is None or world.expired(shop, token):
        return Answer(401, {"errors": INVALID_TOKEN}, headers)
    body = request.json()
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return Answer(400, {"errors": {"query": "Required parameter missing or invalid"}}, headers)
    text, variables = body["query"], body.get("variables") or {}
    throttled = shop.faults.take_throttle()
    if throttled:
        return Answer(throttled, _throttled(world, shop, QUERY_COST, available=0), headers)
    if "orders(" in text:
        try:
            return Answer(200, orders.shopify_orders(world, shop, variables, text), headers)
        except NotImplementedError as exc:
            return Answer(501, {"errors": [{"message": str(exc)}]}, headers)
    cost = MUTATION_COST if text.lstrip().startswith("mutation") else QUERY_COST
    with world.lock:
        if not world.spend(shop, cost):
            return Answer(200, _throttled(world, shop, cost), headers)
        if "nodes(ids:" in text:
            data = _products(shop, variables)
        elif "webhookSubscriptionCreate" in text:
            data = _subscribe(world, shop, variables)
        elif "webhookSubscriptions" in text:
            data = _subscriptions(shop, variables)
        elif "shop" in text or "currentAppInstallation" in text:
            data = _identity(world, shop, scopes)
        else:
            return Answer(200, {"errors": [{"message": "The stand-in does not answer this query."}]}, headers)
        if "errors" in data:
            return Answer(200, data, headers)
        return Answer(200, {"data": data, "extensions": world.cost_extension(shop, cost, cost)}, headers)


def _products(shop, variables: dict) -> dict:
    """`nodes(ids:)` of products, each with its collections' handles (null for an id the shop has not)."""
    nodes = []
    for gid in variables.get("ids") or []:
        product = str(gid).rsplit("/", 1)[-1]
        handles = shop.products.get(product)
        nodes.append(
            None
            if handles is None
            else {"legacyResourceId": product, "collections": {"nodes": [{"handle": h} for h in handles]}}
        )
    return {"nodes": nodes}


def _throttled(world, shop, requested: float, available: float | None = None) -> dict:
    extensions = world.cost_extension(shop, requested, None)
    if available is not None:
        extensions["cost"]["throttleStatus"]["currentlyAvailable"] = available
    return {
        "errors": [
            {
                "message": "Throttled",
                "extensions": {
                    "code": "THROTTLED",
                    "documentation": "https://shopify.dev/api/usage/rate-limits",
                },
            }
        ],
        "extensions": extensions,
    }


def _identity(world, shop, scopes: list[str]) -> dict:
    shown = world.shops.get(shop.answers_as) if shop.answers_as else shop
    return {
        "shop": {
            "id": shown.gid,
            "name": shown.name,
            "myshopifyDomain": shown.domain,
            "currencyCode": shown.currency,
            "ianaTimezone": shown.timezone,
        },
        "currentAppInstallation": {"accessScopes": [{"handle": scope} for scope in scopes]},
    }


def _subscriptions(shop, variables: dict) -> dict:
    after = variables.get("after")
    start = int(after) if isinstance(after, str) and after.isdigit() else 0
    first = 100
    nodes = shop.subscriptions[start : start + first]
    more = start + first < len(shop.subscriptions)
    return {
        "webhookSubscriptions": {
            "nodes": [dict(node) for node in nodes],
            "pageInfo": {"hasNextPage": more, "endCursor": str(start + len(nodes)) if nodes else None},
        }
    }


def _subscribe(world, shop, variables: dict) -> dict:
    topic = variables.get("topic")
    given = variables.get("subscription") or {}
    if topic not in TOPICS:
        return {"errors": [{"message": f"Variable $topic of type WebhookSubscriptionTopic! was provided invalid value {topic!r}"}]}  # fmt: skip
    uri = str(given.get("uri") or "")

    def refused(message: str) -> dict:
        errors = [{"field": ["webhookSubscription", "callbackUrl"], "message": message}]
        return {"webhookSubscriptionCreate": {"webhookSubscription": None, "userErrors": errors}}

    if not (uri.startswith("https://") or (world.plain_callbacks and uri.startswith("http://"))):
        return refused("Address protocol http:// is not supported")
    if any(s["topic"] == topic and s["uri"] == uri for s in shop.subscriptions):
        return refused("Address for this topic has already been taken")
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    made = {
        "id": f"gid://shopify/WebhookSubscription/{world.next_id()}",
        "topic": topic,
        "uri": uri,
        "format": given.get("format") or "JSON",
        "createdAt": now,
        "updatedAt": now,
    }
    shop.subscriptions.append(made)
    return {"webhookSubscriptionCreate": {"webhookSubscription": dict(made), "userErrors": []}}
