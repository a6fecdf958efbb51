"""Which brand and property an event belongs to (docs/decisions.md, "Brand and property resolution"), cached per registrable domain.
A brand with an enabled platform connection resolves as one whose storefront platform handles its orders.

Each cache entry holds every property under one registrable domain, so any host under it resolves
from one cache read. Saving or deleting a Property or Brand deletes the entries it touches
(brands/signals.py); with the default per-process cache, other processes see an edit after
BRAND_RESOLUTION_CACHE_SECONDS, with REDIS_URL after BRAND_RESOLUTION_LOCAL_SECONDS.

In front of that cache, each process keeps the entries it read in memory for
BRAND_RESOLUTION_LOCAL_SECONDS (a bounded LRU): a cache read costs 8 µs with the local-memory cache
(which unpickles the entry) and a network round trip with Redis, on every order; the LRU costs a dict
lookup (docs/performance.md, "Brand resolution in the process"). The process that saves an edit forgets
its own copy at once.
"""

import time
from collections import OrderedDict
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, OuterRef

from .hosts import normalize_host, registrable_domain
from .models import Brand, PlanVersion, PlatformConnection, ProductCollections, Property, connection_of_shop


@dataclass(frozen=True)
class BrandInfo:
    """The brand settings the order path needs, small enough to cache."""

    id: int
    name: str
    is_active: bool
    attribution_window_days: int
    commission_rate_percent: Decimal
    returning_commission_rate_percent: Decimal | None
    storefront_handles_orders: bool
    reporting_currency: str = "USD"  # its commissions are converted into it (attribution.fx)
    # Its platforms' sync keeps its products' collections (brands.models.ProductCollections): only then does
    # a platform's order read them, in one query (attribution.platforms.recording).
    keeps_collections: bool = False
    # Its commission plan's versions, newest first: (version, effective_from). Empty: the brand has stored
    # none, and its rates above are its version 1. The documents are read once per process and version
    # (attribution.plans.cache), not carried here: every order reads this entry.
    plans: tuple = ()

    @classmethod
    def of(
        cls,
        brand: Brand,
        *,
        connected: bool = False,
        connections=None,
        keeps_collections: bool = False,
        plans=(),
    ) -> "BrandInfo":
        """`connected`: the brand has an enabled platform connection, which hands its orders off too;
        `connections`: those connections, when read (the shop's currency is the reporting default);
        `plans`: its plan versions, newest first."""
        return cls(
            id=brand.id,
            name=brand.name,
            is_active=brand.is_active,
            attribution_window_days=brand.attribution_window_days,
            commission_rate_percent=brand.commission_rate_percent,
            returning_commission_rate_percent=brand.returning_commission_rate_percent,
            storefront_handles_orders=brand.storefront_handles_orders or connected,
            reporting_currency=brand.reporting_currency_now(connections or ()),
            keeps_collections=keeps_collections,
            plans=tuple(plans),
        )

    def plan_at(self, at) -> tuple[int, bool]:
        """The version of its plan in effect at `at`, and whether it is stored; (1, False) when it stored none
        (its rates are version 1)."""
        for version, effective_from in self.plans:
            if effective_from <= at:
                return version, True
        return 1, False

    def rate_for(self, *, is_returning_customer: bool) -> Decimal:
        if is_returning_customer and self.returning_commission_rate_percent is not None:
            return self.returning_commission_rate_percent
        return self.commission_rate_percent


@dataclass(frozen=True)
class Resolution:
    host: str | None
    brand: BrandInfo | None = None
    property_id: int | None = None

    @property
    def is_registered_property(self) -> bool:
        return self.property_id is not None

    @property
    def is_unregistered_property(self) -> bool:
        return self.brand is not None and self.property_id is None


def _cache_key(domain: str) -> str:
    return f"resolution:v4:{domain}"  # v4: BrandInfo.keeps_collections and plans


def _load(domain: str) -> dict:
    hosts, brands = {}, {}
    connected = PlatformConnection.objects.filter(
        brand_id=OuterRef("brand_id"), is_enabled=True, approved_at__isnull=False
    )
    kept = ProductCollections.objects.filter(brand_id=OuterRef("brand_id"))
    props = list(
        Property.objects.filter(registrable_domain=domain)
        .select_related("brand")
        .annotate(connected=Exists(connected), keeps_collections=Exists(kept))
    )
    # The shops' currencies, for brands that name no reporting currency and have a connection (rare: one read).
    shops: dict[int, list] = {}
    asked = {p.brand_id for p in props if p.connected and not p.brand.reporting_currency}
    if asked:
        for connection in PlatformConnection.objects.filter(
            brand_id__in=asked, is_enabled=True, approved_at__isnull=False
        ).order_by("id"):
            shops.setdefault(connection.brand_id, []).append(connection)
    plans: dict[int, list] = {}
    # plan_version_brand_version_unique: the brands' versions, newest first (a few per brand).
    for brand_id, version, effective_from in (
        PlanVersion.objects.filter(brand_id__in={p.brand_id for p in props})
        .order_by("brand_id", "-version")
        .values_list("brand_id", "version", "effective_from")
    ):
        plans.setdefault(brand_id, []).append((version, effective_from))
    for prop in props:
        hosts[prop.host] = (prop.brand_id, prop.id)
        brands[prop.brand_id] = BrandInfo.of(
            prop.brand,
            connected=prop.connected,
            connections=shops.get(prop.brand_id, ()),
            keeps_collections=prop.keeps_collections,
            plans=plans.get(prop.brand_id, ()),
        )
    return {"hosts": hosts, "brands": brands}


LOCAL_MAX_DOMAINS = 2048
_local: OrderedDict[str, tuple[float, dict]] = OrderedDict()  # domain -> (expires, entry), oldest first


def clock() -> float:
    return time.monotonic()


def _entry(domain: str) -> dict:
    now = clock()
    held = _local.get(domain)
    if held is not None and held[0] > now:
        return held[1]
    key = _cache_key(domain)
    entry = cache.get(key)
    if entry is None:
        entry = _load(domain)
        cache.set(key, entry, settings.BRAND_RESOLUTION_CACHE_SECONDS)
    _local[domain] = (now + settings.BRAND_RESOLUTION_LOCAL_SECONDS, entry)
    _local.move_to_end(domain)
    if len(_local) > LOCAL_MAX_DOMAINS:
        _local.popitem(last=False)
    return entry


def resolve_host(raw: str | None) -> Resolution:
    """Resolve a URL or domain to brand and property; an inactive brand resolves to nothing."""
    host = normalize_host(raw) if raw else None
    if not host:
        return Resolution(host=None)
    entry = _entry(registrable_domain(host))
    hit = entry["hosts"].get(host)
    if hit is not None:
        brand = entry["brands"][hit[0]]
        return Resolution(host=host, brand=brand, property_id=hit[1]) if brand.is_active else Resolution(host)
    active = {b for b, _ in entry["hosts"].values() if entry["brands"][b].is_active}
    if len(active) == 1:
        return Resolution(host=host, brand=entry["brands"][active.pop()])
    return Resolution(host=host)


def resolve_known(host: str | None, brand_id: int) -> Resolution:
    """The resolution of a way in that already knows the order's brand (a platform's connection, a book's
    upload): the brand's settings and the host's property from the same cache as `resolve_host`, without
    choosing the brand by the host. An inactive brand, or one the host's domain does not hold, resolves to
    nothing."""
    host = normalize_host(host) if host else None
    if not host:
        return Resolution(host=None)
    entry = _entry(registrable_domain(host))
    brand = entry["brands"].get(brand_id)
    if brand is None or not brand.is_active:
        return Resolution(host=host)
    hit = entry["hosts"].get(host)
    return Resolution(host=host, brand=brand, property_id=hit[1] if hit and hit[0] == brand_id else None)


def forget_domain(domain: str) -> None:
    _local.pop(domain, None)
    cache.delete(_cache_key(domain))


# A storefront platform's connection by its shop (attribution/platforms/): every delivery of a shop reads the
# same one, so each process keeps what it read for BRAND_RESOLUTION_LOCAL_SECONDS, as the hosts above. An edit
# (a new secret, a disabled connection, an inactive brand) applies at once in the process that saved it, and
# within those seconds everywhere else.
_connections: OrderedDict[tuple[str, str], tuple[float, PlatformConnection | None]] = OrderedDict()


def connection_for(platform: str, shop: str) -> PlatformConnection | None:
    """The approved connection of `platform`'s `shop`, with its brand's active flag and its property's host;
    None if there is none (a connection waiting for approval is none: brands.models.PlatformConnection)."""
    now, key = clock(), (platform, shop)
    held = _connections.get(key)
    if held is not None and held[0] > now:
        return held[1]
    found = connection_of_shop([platform, shop])
    _connections[key] = (now + settings.BRAND_RESOLUTION_LOCAL_SECONDS, found)
    _connections.move_to_end(key)
    if len(_connections) > LOCAL_MAX_DOMAINS:
        _connections.popitem(last=False)
    return found


PENDING_CLAIMS_READ = 20  # a shop's waiting claims a delivery is checked against


def pending_connections(platform: str, shop: str) -> list[PlatformConnection]:
    """The shop's connections waiting for approval (asked only when no approved one has it): one per brand that
    claimed it, a few at most."""
    # platform_conn_pending_idx (platform, shop_domain) WHERE approved_at IS NULL.
    return list(
        PlatformConnection.objects.filter(
            platform=platform, shop_domain=shop, approved_at__isnull=True
        ).order_by("pk")[:PENDING_CLAIMS_READ]
    )


def forget_connections() -> None:
    _connections.clear()


def forget_all_locally() -> None:
    """Drop this process's copies (tests start from an empty cache; a clear of the shared cache needs it)."""
    _local.clear()
    _connections.clear()
