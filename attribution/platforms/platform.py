"""What a storefront platform declares: `Platform`, the interface a platform module (shopify.py, woocommerce.py)
implements to plug into the receiver (attribution.platforms.receiver, which only runs these hooks): its name and
labels, its signature (computed by the module itself; compared here in constant time), which headers name the
shop, the topic and the delivery, the topics it acts on, how its order reads into the delivery's notice
(attribution.platforms.notice), what a shop's domain must look like, and the setup page's part (its steps and the
signed request that tests a connection). attribution.platforms.registry lists them.

No database here.
"""

import hmac
from dataclasses import dataclass

from brands.hosts import normalize_host
from brands.models import PlatformConnection

from .notice import OrderNotice


@dataclass(frozen=True)
class SetupRequest:
    """The signed request the setup page's shell snippet sends to test a connection (health.pages.setup).

    `body` goes between single quotes in the shell, so '"$RUN"' puts the run's number in it; `headers` are
    sent as they are; `signed` are double-quoted, so $SIG (the body's signature) and $RUN are filled in."""

    body: str
    headers: list[str]
    signed: list[str]


class Platform:
    """One storefront platform. Subclasses set the names and headers, sign as their platform does and read
    their own order shape."""

    # As connections (PlatformConnection.platform), the receiver's path (/api/platforms/<name>, reversed as
    # "platforms:<name>") and the outcome log's endpoint name it; `<name>_change` is the endpoint of the
    # deliveries that change an order. At most 17 characters: the log's endpoint holds 24.
    name = ""
    title = ""  # as answers name it: "Shopify"
    endpoint_label = ""  # the outcome log's endpoint as the pages show it: "Shopify webhook"
    change_label = ""  # and its change endpoint: "Shopify webhook: update"
    sync_label = ""  # and its sync's endpoint (`<name>_sync`): "Shopify sync"
    # Outcomes this platform words its own way on its endpoints (attribution.outcomes.endpoints.add_platform).
    words: dict = {}
    signature_scheme = ""  # how a refusal's WWW-Authenticate names the signature: "HMAC-SHA256"
    # A shell pipeline that signs $BODY with $SECRET as `signature` does (the setup page's test request).
    signature_shell = ""
    shop_header = ""  # the header naming the shop (its META key)
    signature_header = ""  # the header carrying the signature (its META key)
    signature_header_name = ""  # as the answers name it
    topic_header = ""  # the header naming the topic (its META key)
    delivery_id_header = ""  # the header naming the delivery (its META key)
    topics: frozenset = frozenset()  # the topics this service acts on; any other is ignored
    new_order_topic = ""  # the topic that brings a new order (the what-if reads a kept order as it does)
    # The headers a refused delivery's row keeps, as (META key, name): what tells which delivery it was.
    kept_headers: tuple = ()
    # The setup page (health.pages.setup, templates/health/setup.html) shows these under the title: each step is
    # one item of HTML as written here, with {webhook_url} filled in (escaped); no other braces.
    setup_steps: tuple[str, ...] = ()
    # What the setup page says of the test request (`test_request`) before its shell snippet, as HTML.
    test_note = ""

    def signature(self, body: bytes, secret: str) -> str:
        """The signature the platform puts on `body` under the connection's `secret`."""
        raise NotImplementedError

    def signs(self, body: bytes, secret: str, given: str) -> bool:
        """Whether `given` is the body's signature under `secret`, compared in constant time."""
        return hmac.compare_digest(self.signature(body, secret).encode(), given.encode("utf-8", "replace"))

    def shop_domain_problem(self, domain: str) -> str:
        """What is wrong with a shop's domain (normalized) for this platform, as a connection form says it;
        empty when nothing is (brands.known_platforms asks it when a connection is made)."""
        return ""

    def shop_key(self, value: str) -> str | None:
        """How a connection of this platform keys its shop (brands.known_platforms asks it): the host."""
        return normalize_host(value)

    def shop_of(self, request) -> str:
        """The shop's domain as the delivery names it (keyed by the caller with `shop_key`)."""
        return request.META.get(self.shop_header, "")

    def topic_of(self, request) -> str:
        return request.META.get(self.topic_header, "").strip()

    def delivery_id_of(self, request, body: bytes) -> str:
        """The id a verified delivery is kept under: the same on every retry of one delivery."""
        return request.META.get(self.delivery_id_header, "").strip()

    def refused_delivery_id(self, request) -> str:
        """The id a delivery whose signature failed is counted under (it never takes the id)."""
        return request.META.get(self.delivery_id_header, "")

    def ping_of(self, request, body: bytes) -> str | None:
        """The webhook id when this is the platform's ping (no order, no signature); None otherwise."""
        return None

    def kept(self, order: dict) -> dict:
        """What the outcome log keeps of the platform's order: the fields read, as sent (addresses hashed by
        brands.privacy.keep_platform_body); nothing of the shopper's details, which are not read."""
        raise NotImplementedError

    def read(self, notice: OrderNotice, *, document, connection: PlatformConnection) -> OrderNotice:
        """The delivery's `notice` asking what the platform's order says, for a topic of `topics`
        (`notice.topic`; no database here). `document` is any JSON value: a body that is not an order is a
        refusal."""
        raise NotImplementedError

    def test_request(self, connection: PlatformConnection) -> SetupRequest:
        """A test order for the setup page to send to `connection`, which records nothing that counts."""
        raise NotImplementedError
