"""The stand-in's world: Shopify shops and WooCommerce sites held in memory, and the fault knobs tests turn
(revoke a credential, fail the next calls with 5xx, throttle the next queries, remove a subscription, disable a
webhook). Nothing here talks HTTP; app.py answers from it."""

import secrets
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Faults:
    """What the next calls to one shop or site answer instead of their answer."""

    fail_next: int = 0  # the next N calls answer `fail_status`
    fail_status: int = 503
    throttle_next: int = 0  # Shopify: the next N queries answer THROTTLED (HTTP `throttle_status`)
    throttle_status: int = 200

    def take_failure(self) -> int | None:
        if self.fail_next > 0:
            self.fail_next -= 1
            return self.fail_status
        return None

    def take_throttle(self) -> int | None:
        if self.throttle_next > 0:
            self.throttle_next -= 1
            return self.throttle_status
        return None


@dataclass
class ShopifyShop:
    domain: str  # name.myshopify.com
    id: int
    name: str = "Demo shop"
    currency: str = "USD"
    timezone: str = "America/New_York"
    tokens: dict = field(default_factory=dict)  # access token → granted scopes (list)
    # Expiring offline tokens: access token → when it stops opening the shop (the world's clock); refresh token →
    # {"scopes", "expires_at", "replaces": the refresh token it replaced, retired once this one is used}.
    token_expiry: dict = field(default_factory=dict)
    refresh_tokens: dict = field(default_factory=dict)
    migrated: dict = field(default_factory=dict)  # a non-expiring token exchanged → the pair it was worth
    # The app's webhook subscriptions: {id, topic (ORDERS_PAID), uri, format, createdAt, updatedAt}.
    subscriptions: list = field(default_factory=list)
    orders: list = field(default_factory=list)  # GraphQL shape (standin/orders.py reads them)
    products: dict = field(default_factory=dict)  # product id → its collections' handles
    faults: Faults = field(default_factory=Faults)
    # The cost bucket (Standard plan): its size, what it holds, and its refill per second.
    bucket_size: float = 2000.0
    bucket_available: float = 2000.0
    restore_rate: float = 100.0
    bucket_at: float | None = None  # the world's clock when `bucket_available` was read
    served_version: str | None = None  # X-Shopify-API-Version answered (None: the version asked for)
    # The shop whose identity the API answers (None: this one): a token of another shop, as a misrouted origin
    # or a forged answer would give.
    answers_as: str | None = None

    @property
    def gid(self) -> str:
        return f"gid://shopify/Shop/{self.id}"


@dataclass
class WooSite:
    slug: str  # served under /woo/{slug}/
    home: str  # what /wp-json/ answers as `home` and `url` (the site's own address)
    name: str = "Demo WooCommerce shop"
    timezone: str = "Europe/Berlin"
    gmt_offset: float = 1
    keys: dict = field(default_factory=dict)  # consumer key → {"secret", "permissions", "key_id", "user_id"}
    webhooks: list = field(default_factory=list)  # REST shape, with the secret kept apart in `secrets`
    webhook_secrets: dict = field(default_factory=dict)  # webhook id → secret
    orders: list = field(default_factory=list)  # REST shape (standin/orders.py reads them)
    products: dict = field(default_factory=dict)  # product id → its categories' slugs
    faults: Faults = field(default_factory=Faults)


class World:
    """Everything the stand-in knows. `origin` is where it is served (http://standin.test in tests); the
    Shopify app's client id and secret are the ones the service is configured with."""

    def __init__(
        self,
        *,
        origin: str,
        shopify_client_id: str,
        shopify_client_secret: str,
        clock=time.monotonic,
        plain_callbacks: bool = False,
        access_token_seconds: float = 3600,
        refresh_token_seconds: float = 90 * 24 * 3600,
    ):
        self.origin = origin.rstrip("/")
        # The platforms send keys and webhooks to https only; the demo's service listens on plain http.
        self.plain_callbacks = plain_callbacks
        self.shopify_client_id = shopify_client_id
        self.shopify_client_secret = shopify_client_secret
        self.clock = clock
        # Shopify's lifetimes of an expiring offline pair (an hour, 90 days); tests shorten them.
        self.access_token_seconds = access_token_seconds
        self.refresh_token_seconds = refresh_token_seconds
        self.shops: dict[str, ShopifyShop] = {}
        self.sites: dict[str, WooSite] = {}
        self.codes: dict[str, tuple[str, list[str]]] = {}  # OAuth code → (shop, scopes); single use
        self.calls: list[tuple[str, str]] = []  # (method, path) of every call, for tests to read
        self.lock = threading.RLock()  # the demo serves from several threads
        self._ids = 1000

    def next_id(self) -> int:
        with self.lock:
            self._ids += 1
            return self._ids

    # -- building the world

    def add_shop(self, domain: str, **kwargs) -> ShopifyShop:
        shop = ShopifyShop(domain=domain, id=kwargs.pop("id", None) or self.next_id(), **kwargs)
        self.shops[domain] = shop
        return shop

    def add_site(self, slug: str, **kwargs) -> WooSite:
        site = WooSite(slug=slug, home=kwargs.pop("home", None) or self.site_url(slug), **kwargs)
        self.sites[slug] = site
        return site

    def site_url(self, slug: str) -> str:
        """The address a site is served at by the stand-in (what the brand types as its site)."""
        return f"{self.origin}/woo/{slug}"

    def issue_token(self, domain: str, scopes: list[str]) -> str:
        """A Shopify access token for `domain` holding `scopes` (what a custom app's admin would show)."""
        token = "shpat_" + secrets.token_hex(16)
        self.shops[domain].tokens[token] = list(scopes)
        return token

    def issue_expiring_token(self, domain: str, scopes: list[str], *, replaces: str | None = None) -> dict:
        """An expiring offline pair for `domain`, as the token endpoint answers it. Only one expiring access token
        of an app opens a shop: acquiring one revokes the others."""
        shop, now = self.shops[domain], self.clock()
        with self.lock:
            for old in [token for token in shop.token_expiry]:
                shop.tokens.pop(old, None)
                shop.token_expiry.pop(old)
            token, refresh = "shpat_" + secrets.token_hex(16), "shprt_" + secrets.token_hex(16)
            shop.tokens[token] = list(scopes)
            shop.token_expiry[token] = now + self.access_token_seconds
            shop.refresh_tokens[refresh] = {
                "scopes": list(scopes),
                "expires_at": now + self.refresh_token_seconds,
                "replaces": replaces,
            }
        return {
            "access_token": token,
            "scope": ",".join(scopes),
            "expires_in": int(self.access_token_seconds),
            "refresh_token": refresh,
            "refresh_token_expires_in": int(self.refresh_token_seconds),
        }

    def refresh(self, domain: str, refresh_token: str) -> dict | None:
        """A new pair for `refresh_token` (None when unknown, retired or expired). The refresh token used stays
        usable until the app uses its replacement (Shopify, since 2026-08): then it is retired."""
        shop = self.shops[domain]
        with self.lock:
            held = shop.refresh_tokens.get(refresh_token)
            if held is None or self.clock() >= held["expires_at"]:
                return None
            if held["replaces"]:
                shop.refresh_tokens.pop(held["replaces"], None)
                held["replaces"] = None
            return self.issue_expiring_token(domain, held["scopes"], replaces=refresh_token)

    def migrate(self, domain: str, token: str) -> dict | None:
        """The expiring pair a non-expiring token is exchanged for, once (a retry answers the same pair while it
        has not been refreshed); the non-expiring token stops opening the shop. None for any other token."""
        shop = self.shops[domain]
        with self.lock:
            done = shop.migrated.get(token)
            if done is not None:
                return done if done["refresh_token"] in shop.refresh_tokens else None
            if token not in shop.tokens or token in shop.token_expiry:
                return None
            scopes = shop.tokens.pop(token)
            shop.migrated[token] = self.issue_expiring_token(domain, scopes)
            return shop.migrated[token]

    def expired(self, shop: ShopifyShop, token: str) -> bool:
        """Whether an expiring access token has passed its hour."""
        return token in shop.token_expiry and self.clock() >= shop.token_expiry[token]

    def issue_keys(
        self, slug: str, permissions: str = "read_write", user_id: str = ""
    ) -> tuple[str, str, int]:
        key, secret, key_id = "ck_" + secrets.token_hex(20), "cs_" + secrets.token_hex(20), self.next_id()
        self.sites[slug].keys[key] = {
            "secret": secret,
            "permissions": permissions,
            "key_id": key_id,
            "user_id": user_id,
        }
        return key, secret, key_id

    # -- the fault knobs

    def revoke(self, name: str) -> None:
        """Every credential of a shop (by domain) or site (by slug) stops opening it."""
        if name in self.shops:
            self.shops[name].tokens.clear()
            self.shops[name].token_expiry.clear()
            self.shops[name].refresh_tokens.clear()
        else:
            self.sites[name].keys.clear()

    def fail_next(self, name: str, count: int, status: int = 503) -> None:
        faults = (self.shops.get(name) or self.sites[name]).faults
        faults.fail_next, faults.fail_status = count, status

    def throttle_next(self, domain: str, count: int, status: int = 200) -> None:
        faults = self.shops[domain].faults
        faults.throttle_next, faults.throttle_status = count, status

    def remove_subscription(self, domain: str, topic: str) -> None:
        """As Shopify does after 8 failed deliveries: the app's subscription of `topic` (ORDERS_PAID) is gone."""
        shop = self.shops[domain]
        shop.subscriptions = [s for s in shop.subscriptions if s["topic"] != topic]

    def disable_webhook(self, slug: str, topic: str) -> None:
        """As WooCommerce does after failed deliveries: the site's webhooks of `topic` become `disabled`."""
        for webhook in self.sites[slug].webhooks:
            if webhook["topic"] == topic:
                webhook["status"] = "disabled"

    # -- the cost bucket, shared by every query of a shop

    def spend(self, shop: ShopifyShop, cost: float) -> bool:
        """Take `cost` points from the shop's bucket after refilling it; False (nothing taken) when it lacks them."""
        now = self.clock()
        if shop.bucket_at is not None:
            shop.bucket_available = min(
                shop.bucket_size, shop.bucket_available + (now - shop.bucket_at) * shop.restore_rate
            )
        shop.bucket_at = now
        if cost > shop.bucket_available:
            return False
        shop.bucket_available -= cost
        return True

    def cost_extension(self, shop: ShopifyShop, requested: float, actual: float | None) -> dict:
        return {
            "cost": {
                "requestedQueryCost": requested,
                "actualQueryCost": actual,
                "throttleStatus": {
                    "maximumAvailable": shop.bucket_size,
                    "currentlyAvailable": int(shop.bucket_available),
                    "restoreRate": shop.restore_rate,
                },
            }
        }
