"""Shopify's Admin GraphQL API on a pinned version: a shop's identity (the proof of ownership), the app's
webhook subscriptions, and the query mechanics the sync pages orders with.

The cost-based throttle is respected: every answer's `extensions.cost.throttleStatus` is kept, and a
THROTTLED answer (HTTP 200, or 429) waits `(requested - currentlyAvailable) / restoreRate` seconds through
the injected `sleep` before asking again. Better still, a query is not sent to be throttled: when the bucket as
last seen, refilled since at its restore rate, holds less than the same query cost last time, the wait comes
first (Shopify's advice: pace by the throttle status rather than by the errors). A 5xx or a timeout is retried
with backoff, a few times. A 401 is asked again once with a renewed token when the caller can renew it (an
expiring offline token: connect.shopify_tokens).
"""

import time
from collections.abc import Callable

import httpx

from .errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable, UnreadableAnswer
from .http import check_url, send, shopify_origin

# Versions are named YYYY-MM, one a quarter, each supported at least 12 months; a retired one is served as the
# oldest supported, and X-Shopify-API-Version names what was served (kept in `served_version`).
API_VERSION = "2026-10"
THROTTLE_WAITS = 8  # THROTTLED answers in a row before giving up on a query
SERVER_RETRIES = 3  # 5xx answers or timeouts in a row before PlatformUnavailable
BACKOFF_SECONDS = 1.0  # doubled on each retry
# An app makes a few dozen subscriptions: a list longer than this many pages of 100 is a hostile answer (an endless
# list made a connect's callback call the shop 518 times, docs/threat-model.md "Round six").
MAX_SUBSCRIPTION_PAGES = 10
REVOKED_STATUSES = frozenset({401, 403})
# 402: the shop is frozen (unpaid); 423: locked. Not the credential's fault: the shop is out of reach for now.
SHOP_UNAVAILABLE_STATUSES = {402: "the shop is frozen (its plan is unpaid)", 423: "the shop is locked"}

IDENTITY_QUERY = """
{ shop { id name myshopifyDomain currencyCode ianaTimezone }
  currentAppInstallation { accessScopes { handle } } }
"""
SUBSCRIPTIONS_QUERY = """
query ($after: String) {
  webhookSubscriptions(first: 100, after: $after) {
    nodes { id topic uri format createdAt updatedAt }
    pageInfo { hasNextPage endCursor }
  }
}
"""
SUBSCRIBE_MUTATION = """
mutation ($topic: WebhookSubscriptionTopic!, $subscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $subscription) {
    webhookSubscription { id topic uri format createdAt updatedAt }
    userErrors { field message }
  }
}
"""


def topic_enum(topic: str) -> str:
    """A webhook topic as GraphQL names it: orders/create → ORDERS_CREATE (an enum value is kept as it is)."""
    return topic.strip().upper().replace("/", "_")


def topic_name(enum: str) -> str:
    """A GraphQL topic as the webhooks' X-Shopify-Topic names it: ORDERS_CREATE → orders/create."""
    head, _, tail = enum.lower().partition("_")
    return f"{head}/{tail}" if tail else head


class ShopifyAdmin:
    """One shop's Admin API with one access token. `sleep` is injected so that tests never wait."""

    def __init__(
        self,
        shop_domain: str,
        token: str | Callable[[], str],
        *,
        sleep=time.sleep,
        renew: Callable[[str], str | None] | None = None,
    ):
        """`token` is the access token, or what gives it before each call (an expiring one is renewed ahead of
        its expiry: connect.shopify_tokens); `renew(refused)` is asked once for a new one after a 401."""
        self.shop_domain = shop_domain
        self.url = check_url(f"{shopify_origin(shop_domain)}/admin/api/{API_VERSION}/graphql.json")
        self._token = token
        self._renew = renew
        self._sent = ""  # the token of the last call, which a 401 refused
        self._sleep = sleep
        self.served_version: str | None = None
        self.last_cost: dict | None = None
        self._cost_seen_at = 0.0  # time.monotonic() of last_cost
        self._costs: dict[str, float] = {}  # what each query document cost when last asked

    def __repr__(self):  # never the token
        return f"ShopifyAdmin({self.shop_domain!r})"

    def query(self, document: str, variables: dict | None = None) -> dict:
        """The query's `data`; waits out THROTTLED, retries 5xx, raises CredentialRevoked or PlatformAPIError."""
        throttled = failures = 0
        renewed = False
        self._wait_for_the_bucket(document)  # once: a THROTTLED answer's own wait covers its retry
        while True:
            try:
                response = self._post({"query": document, "variables": variables or {}})
            except httpx.TransportError as exc:  # a timeout, a refused connection
                failures += 1
                if failures > SERVER_RETRIES:
                    raise PlatformUnavailable(f"Shopify did not answer ({type(exc).__name__})") from exc
                self._sleep(BACKOFF_SECONDS * 2 ** (failures - 1))
                continue
            self.served_version = response.headers.get("X-Shopify-API-Version") or self.served_version
            status = response.status_code
            if status == 401 and self._renew is not None and not renewed:
                renewed = True  # once: a token refused right after its renewal is not renewed again
                if self._renew(self._sent):
                    continue
            if status in REVOKED_STATUSES:
                raise CredentialRevoked(
                    f"Shopify answered {status}: the access token no longer opens the shop"
                )
            if status in SHOP_UNAVAILABLE_STATUSES:
                raise PlatformAPIError(f"Shopify answered {status}: {SHOP_UNAVAILABLE_STATUSES[status]}")
            if status >= 500:
                failures += 1
                if failures > SERVER_RETRIES:
                    raise PlatformUnavailable(f"Shopify answered {status} {SERVER_RETRIES + 1} times")
                self._sleep(BACKOFF_SECONDS * 2 ** (failures - 1))
                continue
            body = _json_of(response)
            cost = (body.get("extensions") or {}).get("cost") if isinstance(body, dict) else None
            if isinstance(cost, dict):
                self.last_cost, self._cost_seen_at = cost, time.monotonic()
                if isinstance(cost.get("requestedQueryCost"), int | float):
                    self._costs[document] = float(cost["requestedQueryCost"])
            if status == 429 or _error_codes(body) & {"THROTTLED"}:
                throttled += 1
                if throttled > THROTTLE_WAITS:
                    raise PlatformUnavailable(f"Shopify kept throttling ({THROTTLE_WAITS} waits)")
                self._sleep(_throttle_wait(cost, response))
                continue
            if status >= 400:
                raise PlatformAPIError(f"Shopify answered {status}: {_errors_text(body)}")
            if _error_codes(body) & {"ACCESS_DENIED"}:
                raise CredentialRevoked(f"Shopify denied access: {_errors_text(body)}")
            if body.get("errors") and not body.get("data"):
                raise PlatformAPIError(f"Shopify refused the query: {_errors_text(body)}")
            return body.get("data") or {}

    def _wait_for_the_bucket(self, document: str) -> None:
        """Wait until the bucket, as last seen and refilled since, holds what `document` cost last time."""
        expected = self._costs.get(document)
        status = (self.last_cost or {}).get("throttleStatus")
        if expected is None or not isinstance(status, dict):
            return
        try:
            rate = max(float(status["restoreRate"]), 1.0)
            available = min(
                float(status["maximumAvailable"]),
                float(status["currentlyAvailable"]) + rate * (time.monotonic() - self._cost_seen_at),
            )
        except (KeyError, TypeError, ValueError):
            return
        if expected > available:  # a point more: the bucket's figures are whole points
            self._sleep((expected - available + 1) / rate)

    def identity(self) -> dict:
        """`{"shop": {id, name, myshopifyDomain, currencyCode, ianaTimezone}, "currentAppInstallation":
        {"accessScopes": [{"handle": ...}]}}`: which shop the token opens and what it may read."""
        return self.query(IDENTITY_QUERY)

    def webhook_subscriptions(self) -> list[dict]:
        """The subscriptions this app made on the shop (those of the app's configuration file are not listed), at
        most MAX_SUBSCRIPTION_PAGES pages; UnreadableAnswer for a list longer, a cursor given twice, or a shape
        that is not the documented one."""
        found, after, seen = [], None, set()
        for _ in range(MAX_SUBSCRIPTION_PAGES):
            page = self.query(SUBSCRIPTIONS_QUERY, {"after": after}).get("webhookSubscriptions")
            nodes = page.get("nodes") if isinstance(page, dict) else None
            info = page.get("pageInfo") if isinstance(page, dict) else None
            if not isinstance(nodes, list) or not isinstance(info, dict):
                raise UnreadableAnswer("Shopify's webhook subscriptions answer is not the documented list")
            found.extend(n for n in nodes if isinstance(n, dict) and isinstance(n.get("topic"), str))
            if not info.get("hasNextPage"):
                return found
            after = info.get("endCursor")
            if not isinstance(after, str) or after in seen:
                raise UnreadableAnswer("Shopify gave a webhook subscriptions cursor it had given before")
            seen.add(after)
        raise UnreadableAnswer(
            f"Shopify listed more than {MAX_SUBSCRIPTION_PAGES} pages of webhook subscriptions: stopped reading"
        )

    def subscribe(self, topic: str, callback_url: str) -> dict:
        """Subscribe `topic` (orders/paid or ORDERS_PAID) to `callback_url` in JSON; the subscription made."""
        answer = self.query(
            SUBSCRIBE_MUTATION,
            {"topic": topic_enum(topic), "subscription": {"uri": callback_url, "format": "JSON"}},
        )["webhookSubscriptionCreate"]
        if answer.get("userErrors"):
            raise PlatformAPIError(
                "Shopify refused the subscription: "
                + "; ".join(e.get("message", "") for e in answer["userErrors"])
            )
        return answer["webhookSubscription"]

    def _post(self, payload: dict) -> httpx.Response:
        self._sent = self._token() if callable(self._token) else self._token
        headers = {"X-Shopify-Access-Token": self._sent, "Content-Type": "application/json"}
        return send("POST", self.url, json=payload, headers=headers)


def scopes_of(identity: dict) -> list[str]:
    """The scopes an identity answer says the token holds."""
    installation = identity.get("currentAppInstallation") or {}
    return [
        s["handle"] for s in installation.get("accessScopes") or [] if isinstance(s, dict) and "handle" in s
    ]


def _json_of(response: httpx.Response) -> dict:
    try:
        body = response.json()
    except ValueError as exc:
        if response.status_code == 429:
            return {}
        raise PlatformAPIError(f"Shopify answered {response.status_code} with no JSON") from exc
    return body if isinstance(body, dict) else {}


def _error_codes(body: dict) -> set[str]:
    errors = body.get("errors")
    if not isinstance(errors, list):
        return set()
    return {
        str((error.get("extensions") or {}).get("code"))
        for error in errors
        if isinstance(error, dict) and isinstance(error.get("extensions"), dict)
    }


def _errors_text(body: dict) -> str:
    errors = body.get("errors")
    if isinstance(errors, list):
        return "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors)[:300]
    return str(errors)[:300] if errors else "no detail"


def _throttle_wait(cost: dict | None, response: httpx.Response) -> float:
    """Seconds until the bucket holds what the query asks: from throttleStatus, else Retry-After, else 1."""
    if isinstance(cost, dict) and isinstance(cost.get("throttleStatus"), dict):
        status = cost["throttleStatus"]
        try:
            missing = float(cost.get("requestedQueryCost") or 0) - float(status["currentlyAvailable"])
            return max(missing, 1.0) / max(float(status["restoreRate"]), 1.0)
        except (KeyError, TypeError, ValueError):
            pass
    try:
        return max(float(response.headers.get("Retry-After", "1")), 0.1)
    except ValueError:
        return 1.0
