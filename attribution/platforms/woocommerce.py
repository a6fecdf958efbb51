"""WooCommerce as a storefront platform (attribution.platforms.platform.Platform): its order webhooks
(WooCommerce → Settings → Advanced → Webhooks, API version WP REST v3): POST /api/platforms/woocommerce, signed
with X-WC-Webhook-Signature (base64 HMAC-SHA256 of the raw body with the webhook's secret, checked here:
`WooCommerce.signature`), the site named by X-WC-Webhook-Source, the topic by X-WC-Webhook-Topic.

- order.created and order.updated record the order once it is paid (processing or completed), then follow its
  amount; cancelled or refunded cancels it; any other status (pending, on-hold, failed) is `ignored`.
- order.deleted cancels an order this connection delivered, and only when its body is a deletion's: the id
  alone. A body with any order field is another topic's signed body replayed under this one (the topic header
  is not signed), and cancels nothing. Any other topic is `ignored`.
- The ping WooCommerce sends when a webhook is saved (a form body `webhook_id=N`, unsigned) is answered 200.

WooCommerce's delivery id is made of the webhook's id and the second it was sent, so two deliveries in one
second share it: the id kept is the delivery id with the body's digest (a retry sends the same body).
The order's REST shape is read here and nowhere else (docs/integration.md, "WooCommerce").
"""

import base64
import hmac
import re
from decimal import Decimal

from attribution.links import CLICK_ID_NAME
from attribution.orders.lines import (
    NO_LINES,
    ZERO,
    LineProblem,
    OrderLine,
    OrderLines,
    line_amount,
    line_quantity,
    line_text,
    read_lines,
)
from attribution.outcomes import Outcome, say
from attribution.parsing import is_plain_number
from brands.hosts import site_key
from brands.models import PlatformConnection
from brands.privacy import hashed

from .notice import (
    Action,
    OrderNotice,
    PlatformOrder,
    amount_of,
    as_list,
    body_digest,
    email_kept,
    moment,
)
from .platform import Platform, SetupRequest

CLICK_META_KEYS = frozenset(
    {CLICK_ID_NAME, f"_{CLICK_ID_NAME}"}
)  # where a store's checkout keeps the click cookie
# Where WooCommerce's own order attribution (since 8.5, on by default) keeps the page that referred the shopper:
# the code_leak rule reads it as it reads Shopify's referring_site (docs/review.md).
REFERRER_META_KEY = "_wc_order_attribution_referrer"
META_KEYS = CLICK_META_KEYS | {REFERRER_META_KEY}  # the order's meta the log keeps
# What WooCommerce sends for order.deleted (and for an order moved to the trash): the id alone.
DELETION_FIELDS = frozenset({"id"})
TOPICS = frozenset({"order.created", "order.updated", "order.deleted", "order.restored"})
# WooCommerce's order statuses, as its REST API and its exports spell them; the order books' reader reads them
# too (attribution.reconciliation.books.platform_terms). A paid order is recorded, then followed; an undone one cancelled.
PAID = frozenset({"processing", "completed"})
UNDONE = frozenset({"cancelled", "refunded"})
ON_HOLD = "on-hold"  # awaiting a payment the shop confirms by hand
FAILED = "failed"  # its payment failed
# Never paid: such an order earns nothing (and may never have reached the thank-you page).
UNPAID = frozenset({"pending", "pending-payment", "checkout-draft", "draft", "trash"})
# What the outcome log keeps of an order: what is read, and what a person checking the order asks for.
KEPT = (
    "id",
    "number",
    "status",
    "currency",
    "total",
    "discount_total",
    "shipping_total",
    "total_tax",
    "refunds",
    "customer_id",
    "created_via",
    "payment_method",
    "date_created_gmt",
    "date_modified_gmt",
    "date_paid_gmt",
    "shipping_tax",
)
# Of each line item, what is read (issue 56); never its meta_data, which may carry what shoppers type.
LINE_KEPT = ("product_id", "variation_id", "quantity", "sku", "subtotal", "total", "total_tax")
_PING = re.compile(rb"webhook_id=([0-9]{1,20})")


class WooCommerce(Platform):
    name = "woocommerce"
    title = "WooCommerce"
    endpoint_label = "WooCommerce webhook"
    change_label = "WooCommerce webhook: update"
    sync_label = "WooCommerce sync"
    shop_header = "HTTP_X_WC_WEBHOOK_SOURCE"
    signature_header = "HTTP_X_WC_WEBHOOK_SIGNATURE"
    signature_header_name = "X-WC-Webhook-Signature"
    # WooCommerce signs each delivery with the base64 of the HMAC-SHA256 of its raw body under the webhook's
    # secret (`signature`); the receiver compares it in constant time (Platform.signs).
    signature_scheme = "HMAC-SHA256"
    signature_shell = 'printf \'%s\' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64'
    topic_header = "HTTP_X_WC_WEBHOOK_TOPIC"
    delivery_id_header = "HTTP_X_WC_WEBHOOK_DELIVERY_ID"
    topics = TOPICS
    new_order_topic = "order.created"
    kept_headers = (
        ("HTTP_X_WC_WEBHOOK_TOPIC", "X-WC-Webhook-Topic"),
        ("HTTP_X_WC_WEBHOOK_SOURCE", "X-WC-Webhook-Source"),
        ("HTTP_X_WC_WEBHOOK_ID", "X-WC-Webhook-ID"),
        ("HTTP_X_WC_WEBHOOK_DELIVERY_ID", "X-WC-Webhook-Delivery-ID"),
    )

    setup_steps = (
        "Put the tag of step 1 on every page; have your checkout keep the <code>sms_click_id</code> cookie in the "
        "order's meta data under <code>sms_click_id</code>, so the click reaches the order.",
        "In WordPress, open <strong>WooCommerce → Settings → Advanced → Webhooks</strong> and <strong>Add "
        "webhook</strong>: status <em>Active</em>, topic <em>Order created</em>, delivery URL "
        '<code class="break">{webhook_url}</code>, API version <em>WP REST API Integration v3</em>. Copy the '
        "<em>Secret</em> WooCommerce fills in (or type your own) and save: WooCommerce pings the URL, which "
        "answers 200.",
        "Add two more webhooks with the same secret for <em>Order updated</em> and <em>Order deleted</em>.",
        "Paste the secret into <strong>Signing secret</strong> above, with your site's host "
        "(<code>shop.example.com</code>).",
    )
    test_note = (
        "It sends a signed <code>order.created</code> of a pending order: WooCommerce has no test flag, so a "
        "pending order proves the signature and records nothing."
    )

    def shop_key(self, value: str) -> str | None:
        """A WordPress site can live under a path: its connections are keyed by host and path (round six)."""
        return site_key(value)

    def signature(self, body: bytes, secret: str) -> str:
        """The signature check's half that is the platform's: the base64 HMAC-SHA256 of the raw body."""
        return base64.b64encode(hmac.digest(secret.encode(), body, "sha256")).decode()

    def delivery_id_of(self, request, body: bytes) -> str:
        return f"{super().delivery_id_of(request, body)[:200]}:{body_digest(body)}"

    def ping_of(self, request, body: bytes) -> str | None:
        if request.META.get(self.signature_header):
            return None
        found = _PING.fullmatch(body.strip())
        return found.group(1).decode() if found else None

    def kept(self, order: dict) -> dict:
        kept = {name: order[name] for name in KEPT if name in order}
        if isinstance(order.get("coupon_lines"), list):
            kept["coupon_lines"] = [
                {name: c.get(name) for name in ("code", "discount")}
                for c in order["coupon_lines"]
                if isinstance(c, dict)
            ]
        if isinstance(order.get("meta_data"), list):
            kept["meta_data"] = [
                m for m in order["meta_data"] if isinstance(m, dict) and m.get("key") in META_KEYS
            ]
        if isinstance(order.get("line_items"), list):
            kept["line_items"] = [
                {name: line[name] for name in LINE_KEPT if name in line}
                for line in order["line_items"]
                if isinstance(line, dict)
            ]
        email = order["billing"].get("email") if isinstance(order.get("billing"), dict) else None
        if isinstance(email, str) and email.strip():
            kept["billing"] = {"email": hashed(email)}
        return kept

    def read(self, notice: OrderNotice, *, document, connection) -> OrderNotice:
        topic = notice.topic
        if not isinstance(document, dict):
            return notice.asking(
                Action.RECORD, refusal=[Outcome.INVALID_PARAMS, say("platform.not_an_order")]
            )
        order = read_order(document, connection)
        if topic == "order.deleted":
            if set(document) != DELETION_FIELDS:
                return notice.asking(
                    Action.IGNORE, order, note=say("platform.deleted_with_fields", order_id=order.order_id)
                )
            if order.order_id is None:
                # Its body is only {"id": N}: an order known by its number cannot be found from it.
                return notice.asking(Action.IGNORE, order, note=say("platform.deleted_by_number"))
            # Its body proves nothing of the order: only an order this connection delivered is cancelled.
            return notice.asking(Action.CANCEL, order, own_orders_only=True)
        status = document.get("status")
        if status in PAID:
            return notice.asking(
                Action.RECORD if topic == "order.created" else Action.RECORD_OR_FOLLOW, order
            )
        if status in UNDONE:
            return notice.asking(Action.CANCEL, order)
        return notice.asking(
            Action.IGNORE,
            order,
            note=say("platform.ignored_status", order_id=order.order_id, status=status or "without a status"),
        )

    def test_request(self, connection: PlatformConnection) -> SetupRequest:
        """WooCommerce has no test flag: a pending order, which proves the signature and records nothing."""
        return SetupRequest(
            body=(
                """{"id":'"$RUN"',"number":"'"$RUN"'","status":"pending","currency":"USD","total":"10.00","""
                """"shipping_total":"0.00","total_tax":"0.00","coupon_lines":[],"meta_data":[]}"""
            ),
            headers=[
                "Content-Type: application/json",
                "X-WC-Webhook-Topic: order.created",
                f"X-WC-Webhook-Source: https://{connection.shop_domain}/",
            ],
            signed=['"X-WC-Webhook-Signature: $SIG"', '"X-WC-Webhook-Delivery-ID: setup-test-$RUN"'],
        )


WOOCOMMERCE = WooCommerce()


def read_order(order: dict, connection: PlatformConnection) -> PlatformOrder:
    """WooCommerce's order (REST v3 shape) as the service reads it."""
    by_number = connection.order_id_source == PlatformConnection.OrderId.NAME
    billing = order.get("billing") if isinstance(order.get("billing"), dict) else {}
    return PlatformOrder(
        order_id=order.get("number") if by_number else order.get("id"),
        amount=_counted(order, connection),
        currency=order.get("currency"),
        codes=[c.get("code") for c in as_list(order.get("coupon_lines")) if isinstance(c, dict)],
        clicks=[
            [f"the order's meta_data {m.get('key')}", m.get("value")]
            for m in as_list(order.get("meta_data"))
            if isinstance(m, dict) and m.get("key") in CLICK_META_KEYS
        ],
        email=email_kept(billing.get("email")),
        cancelled=order.get("status") in UNDONE,
        placed_at=moment(order.get("date_created_gmt")),
        changed_at=moment(order.get("date_modified_gmt")),
        names={"order_id": "number" if by_number else "id", "amount": "total"},
        referring_site=_referrer(order),
        lines=lines_of(order),
    )


def lines_of(order: dict) -> OrderLines:
    """The order's `line_items` (`subtotal` before discounts, `total` after, `total_tax`) and its shipping
    (`shipping_total`, `shipping_tax`); none when it names none, or none and why when one cannot be read (the
    order keeps its amount). WooCommerce's line amounts leave tax out whether or not its prices include it."""
    items = order.get("line_items")
    if not items:
        return NO_LINES
    try:
        lines = read_lines(items, _line, where="line_items")
        shipping = _optional_amount(order.get("shipping_total"), "shipping_total")
        shipping_tax = _optional_amount(order.get("shipping_tax"), "shipping_tax")
    except LineProblem as problem:
        return OrderLines(ignored=str(problem))
    return OrderLines(lines=lines, shipping=shipping, shipping_tax=shipping_tax)


def _line(item, where: str) -> OrderLine:
    if not isinstance(item, dict):
        raise LineProblem(f"{where} must be an object")
    subtotal = line_amount(item.get("subtotal"), f"{where}.subtotal")
    total = line_amount(item.get("total"), f"{where}.total")
    variation = item.get("variation_id")
    return OrderLine(
        gross=subtotal,
        quantity=line_quantity(item.get("quantity"), f"{where}.quantity"),
        discount=max(subtotal - total, ZERO),
        tax=_optional_amount(item.get("total_tax"), f"{where}.total_tax"),
        sku=line_text(item.get("sku"), f"{where}.sku"),
        product_id=line_text(item.get("product_id"), f"{where}.product_id"),
        variant_id="" if variation in (0, "0") else line_text(variation, f"{where}.variation_id"),
    )


def _optional_amount(value, where: str) -> Decimal:
    return ZERO if value in (None, "") else line_amount(value, where)


def _referrer(order: dict) -> str:
    """The referring page WooCommerce's order attribution recorded, as sent; empty without one."""
    for m in as_list(order.get("meta_data")):
        if isinstance(m, dict) and m.get("key") == REFERRER_META_KEY and isinstance(m.get("value"), str):
            return m["value"]
    return ""


def _counted(order: dict, connection: PlatformConnection):
    """The amount the connection counts, less what was refunded: the total, or the total without shipping and
    taxes (WooCommerce's total already has the discounts off). A part that is not a plain decimal number, as the
    API reads one ("1e6" is not: issue 55, finding 10), is returned as sent, for the field rule to refuse."""
    total = order.get("total")
    parts = [total]
    if connection.amount_counted == PlatformConnection.Amount.SUBTOTAL:
        parts += [_negated(order.get("shipping_total")), _negated(order.get("total_tax"))]
    parts += [
        r.get("total") for r in as_list(order.get("refunds")) if isinstance(r, dict)
    ]  # negative already
    given = [amount_of(part) for part in parts if part not in (None, "")]
    for part in given:
        if not is_plain_number(part):
            return part
    amount = sum((Decimal(str(part).strip()) for part in given), Decimal(0))
    if not isinstance(total, str | int) or not amount.is_finite():
        return total
    return str(max(amount, Decimal(0)))


def _negated(value):
    return (
        f"-{value}"
        if isinstance(value, str) and value.strip() and not value.strip().startswith("-")
        else value
    )
