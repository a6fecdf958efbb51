"""Shopify as a storefront platform (attribution.platforms.platform.Platform): its order webhooks (Settings →
Notifications → Webhooks, format JSON; or an app's subscriptions): POST /api/platforms/shopify, signed with
X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the raw body, checked here: `Shopify.signature`), the shop named
by X-Shopify-Shop-Domain, each delivery by X-Shopify-Webhook-Id (the same on every retry).

- orders/create and orders/paid record the order, whichever comes first; the other is `already_received`.
- orders/updated follows the counted amount, and cancels once the order is cancelled, refunded or voided.
- orders/cancelled cancels. Any other topic is `ignored`.

The order's REST shape is read here and nowhere else (docs/integration.md, "Shopify").
"""

import base64
import hmac
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

from attribution.links import CLICK_ID_NAME, CLICK_ID_PARAM
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
    flag,
    moment,
)
from .platform import Platform, SetupRequest

TOPICS = {
    "orders/create": Action.RECORD,
    "orders/paid": Action.RECORD,
    "orders/updated": Action.FOLLOW,
    "orders/cancelled": Action.CANCEL,
}
# Shopify's financial statuses (its webhooks' financial_status, its order export's Financial Status): an
# order whose money went back, or never came, and the others. The order books' reader reads them too
# (attribution.reconciliation.books.platform_terms).
NOT_PAID_FOR = frozenset({"refunded", "voided"})
PAID_FOR = frozenset({"paid", "partially_paid", "partially_refunded", "authorized", "pending"})
# What the outcome log keeps of an order: what is read, and what a person checking the order asks for.
KEPT = (
    "id",
    "name",
    "order_number",
    "email",
    "contact_email",
    "currency",
    "presentment_currency",
    "subtotal_price",
    "current_subtotal_price",
    "total_price",
    "current_total_price",
    "total_tax",
    "total_discounts",
    "financial_status",
    "cancelled_at",
    "cancel_reason",
    "test",
    "landing_site",
    "referring_site",
    "discount_codes",
    "source_name",
    "created_at",
    "updated_at",
    "taxes_included",
)
# Of each line item and shipping line, what is read (issue 56): never its `properties`, which carry what shoppers
# type (gift messages, names).
LINE_KEPT = ("sku", "product_id", "variant_id", "vendor", "quantity", "price")


class Shopify(Platform):
    name = "shopify"
    title = "Shopify"
    endpoint_label = "Shopify webhook"
    change_label = "Shopify webhook: update"
    sync_label = "Shopify sync"
    shop_header = "HTTP_X_SHOPIFY_SHOP_DOMAIN"
    signature_header = "HTTP_X_SHOPIFY_HMAC_SHA256"
    signature_header_name = "X-Shopify-Hmac-Sha256"
    # Shopify signs each delivery with the base64 of the HMAC-SHA256 of its raw body under the webhook's
    # secret (`signature`); the receiver compares it in constant time (Platform.signs).
    signature_scheme = "HMAC-SHA256"
    signature_shell = 'printf \'%s\' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64'
    topic_header = "HTTP_X_SHOPIFY_TOPIC"
    delivery_id_header = "HTTP_X_SHOPIFY_WEBHOOK_ID"
    topics = frozenset(TOPICS)
    new_order_topic = "orders/create"
    kept_headers = (
        ("HTTP_X_SHOPIFY_TOPIC", "X-Shopify-Topic"),
        ("HTTP_X_SHOPIFY_SHOP_DOMAIN", "X-Shopify-Shop-Domain"),
        ("HTTP_X_SHOPIFY_WEBHOOK_ID", "X-Shopify-Webhook-Id"),
        ("HTTP_X_SHOPIFY_API_VERSION", "X-Shopify-API-Version"),
        ("HTTP_X_SHOPIFY_TRIGGERED_AT", "X-Shopify-Triggered-At"),
    )
    setup_steps = (
        "Put the tag of step 1 in your theme's <code>theme.liquid</code>, in the <code>&lt;head&gt;</code>. On a "
        "Shopify storefront it also writes the creator's click into the cart's attributes, so the click reaches "
        "the order.",
        "In your Shopify admin, open <strong>Settings → Notifications → Webhooks</strong> (at the bottom of the "
        "page).",
        "<strong>Create webhook</strong>: event <em>Order payment</em>, format <em>JSON</em>, URL "
        '<code class="break">{webhook_url}</code>, the latest API version. Create two more the same way for '
        "<em>Order update</em> and <em>Order cancellation</em>.",
        "Under the list, Shopify shows <em>“Your webhooks will be signed with …”</em>: copy that key into "
        "<strong>Signing secret</strong> above, with your shop's <code>name.myshopify.com</code> domain.",
    )
    test_note = (
        "It sends a signed <code>orders/create</code> of a test order: counted apart, never billed, and shown in "
        "your events."
    )

    def signature(self, body: bytes, secret: str) -> str:
        """The signature check's half that is the platform's: the base64 HMAC-SHA256 of the raw body."""
        return base64.b64encode(hmac.digest(secret.encode(), body, "sha256")).decode()

    def shop_domain_problem(self, domain: str) -> str:
        if domain.endswith(".myshopify.com"):
            return ""
        return (
            "Enter the shop's myshopify.com domain (Settings → Domains in Shopify), such as name.myshopify.com: "
            "Shopify names the shop by it on every webhook."
        )

    def delivery_id_of(self, request, body: bytes) -> str:
        return super().delivery_id_of(request, body) or f"sha256:{body_digest(body)}"

    def kept(self, order: dict) -> dict:
        kept = {name: order[name] for name in KEPT if name in order}
        # Of the cart's attributes, only the one read: the others carry gift messages, names, phone numbers.
        if isinstance(order.get("note_attributes"), list):
            kept["note_attributes"] = [
                attribute
                for attribute in order["note_attributes"]
                if isinstance(attribute, dict) and attribute.get("name") == CLICK_ID_NAME
            ]
        for name in ("line_items", "shipping_lines"):
            if isinstance(order.get(name), list):
                kept[name] = [_kept_line(line) for line in order[name] if isinstance(line, dict)]
        customer = order.get("customer")
        if isinstance(customer, dict):
            kept["customer"] = {name: customer[name] for name in ("id", "email") if name in customer}
        # Shopify names one address in all three fields: each address is hashed once (~10k instructions a hash).
        hashes: dict[str, str] = {}
        for holder, name in ((kept, "email"), (kept, "contact_email"), (kept.get("customer", {}), "email")):
            address = holder.get(name)
            if isinstance(address, str) and address.strip():
                if address not in hashes:
                    hashes[address] = hashed(address)
                holder[name] = hashes[address]
        return kept

    def read(self, notice: OrderNotice, *, document, connection) -> OrderNotice:
        topic = notice.topic
        if not isinstance(document, dict):
            return notice.asking(
                TOPICS[topic], refusal=[Outcome.INVALID_PARAMS, say("platform.not_an_order")]
            )
        order = read_order(document, connection)
        if TOPICS[topic] == Action.CANCEL and not order.cancelled:
            # The topic header is not signed: a signed orders/create body sent again as orders/cancelled must
            # not cancel. What the body says decides.
            note = say("platform.not_cancelled", order_id=order.order_id, topic=topic)
            return notice.asking(Action.IGNORE, order, note=note)
        return notice.asking(TOPICS[topic], order)

    def test_request(self, connection: PlatformConnection) -> SetupRequest:
        """A `test: true` order (counted apart, never billed)."""
        return SetupRequest(
            body=(
                """{"id":'"$RUN"',"name":"#T'"$RUN"'","currency":"USD","subtotal_price":"10.00","""
                """"total_price":"10.00","test":true,"email":null,"discount_codes":[],"note_attributes":[]}"""
            ),
            headers=[
                "Content-Type: application/json",
                "X-Shopify-Topic: orders/create",
                f"X-Shopify-Shop-Domain: {connection.shop_domain}",
            ],
            signed=['"X-Shopify-Hmac-Sha256: $SIG"', '"X-Shopify-Webhook-Id: setup-test-$RUN"'],
        )


SHOPIFY = Shopify()


def read_order(order: dict, connection: PlatformConnection) -> PlatformOrder:
    """Shopify's order (REST shape) as the service reads it."""
    by_name = connection.order_id_source == PlatformConnection.OrderId.NAME
    if connection.amount_counted == PlatformConnection.Amount.TOTAL:
        amount_name = _first_given(order, "current_total_price", "total_price")
    else:
        amount_name = _first_given(order, "current_subtotal_price", "subtotal_price")
    customer = order.get("customer") if isinstance(order.get("customer"), dict) else {}
    orders_count = customer.get("orders_count")  # gone from the order's customer since API 2022-04
    return PlatformOrder(
        order_id=order.get("name") if by_name else order.get("id"),
        amount=amount_of(order.get(amount_name)),
        currency=order.get("currency"),
        is_test=flag(order.get("test")),
        is_returning_customer=isinstance(orders_count, int) and orders_count > 1,
        codes=[c.get("code") for c in as_list(order.get("discount_codes")) if isinstance(c, dict)],
        clicks=_clicks(order),
        email=email_kept(order.get("email"), order.get("contact_email"), customer.get("email")),
        cancelled=bool(order.get("cancelled_at")) or order.get("financial_status") in NOT_PAID_FOR,
        placed_at=moment(order.get("created_at")),
        changed_at=moment(order.get("updated_at")),
        names={"order_id": "name" if by_name else "id", "amount": amount_name},
        referring_site=order.get("referring_site") if isinstance(order.get("referring_site"), str) else "",
        lines=lines_of(order),
    )


def lines_of(order: dict) -> OrderLines:
    """The order's `line_items` (price x quantity, less the line's `discount_allocations`; its `tax_lines`),
    its `shipping_lines` (price less their discounts, their tax) and `taxes_included`; none when it names
    none, or none and why when one cannot be read (the order keeps its amount)."""
    items = order.get("line_items")
    if not items:
        return NO_LINES
    if isinstance(order.get("lines_cut"), str):  # the sync read only the first of many (sync.shopify_orders)
        return OrderLines(ignored=order["lines_cut"])
    try:
        lines = read_lines(items, _line, where="line_items")
        shipping = shipping_tax = ZERO
        for index, charge in enumerate(as_list(order.get("shipping_lines"))):
            where = f"shipping_lines[{index}]"
            if not isinstance(charge, dict):
                raise LineProblem(f"{where} must be an object")
            shipping += line_amount(charge.get("price"), f"{where}.price") - _allocated(charge, where)
            shipping_tax += _taxes(charge, where)
    except LineProblem as problem:
        return OrderLines(ignored=str(problem))
    return OrderLines(
        lines=lines,
        shipping=shipping,
        shipping_tax=shipping_tax,
        taxes_included=flag(order.get("taxes_included")),
    )


def _kept_line(line: dict) -> dict:
    kept = {name: line[name] for name in LINE_KEPT if name in line}
    for name, amount in (("discount_allocations", "amount"), ("tax_lines", "price")):
        if isinstance(line.get(name), list):
            kept[name] = [{amount: part.get(amount)} for part in line[name] if isinstance(part, dict)]
    return kept


def _line(item, where: str) -> OrderLine:
    if not isinstance(item, dict):
        raise LineProblem(f"{where} must be an object")
    quantity = line_quantity(item.get("quantity"), f"{where}.quantity")
    return OrderLine(
        gross=line_amount(item.get("price"), f"{where}.price") * quantity,
        quantity=quantity,
        discount=_allocated(item, where),
        tax=_taxes(item, where),
        sku=line_text(item.get("sku"), f"{where}.sku"),
        product_id=line_text(item.get("product_id"), f"{where}.product_id"),
        variant_id=line_text(item.get("variant_id"), f"{where}.variant_id"),
        vendor=line_text(item.get("vendor"), f"{where}.vendor"),
    )


def _allocated(line: dict, where: str) -> Decimal:
    """What the order's discounts took off a line (its `discount_allocations`)."""
    if not line.get("discount_allocations"):
        return ZERO
    return sum(
        (
            line_amount(allocation.get("amount"), f"{where}.discount_allocations[{index}].amount")
            for index, allocation in enumerate(as_list(line.get("discount_allocations")))
            if isinstance(allocation, dict)
        ),
        ZERO,
    )


def _taxes(line: dict, where: str) -> Decimal:
    if not line.get("tax_lines"):
        return ZERO
    return sum(
        (
            line_amount(tax.get("price"), f"{where}.tax_lines[{index}].price")
            for index, tax in enumerate(as_list(line.get("tax_lines")))
            if isinstance(tax, dict)
        ),
        ZERO,
    )


def _clicks(order: dict) -> list:
    """The click id candidates, the most trusted first: the cart attribute sms-click.js set from the click
    cookie, then the first page of the shopper's visit (Shopify's landing_site)."""
    found = [
        [f"the cart attribute {CLICK_ID_NAME}", attribute.get("value")]
        for attribute in as_list(order.get("note_attributes"))
        if isinstance(attribute, dict) and attribute.get("name") == CLICK_ID_NAME
    ]
    landing = order.get("landing_site")
    if isinstance(landing, str) and CLICK_ID_PARAM in landing:
        query = dict(parse_qsl(urlsplit(landing).query, keep_blank_values=True))
        if query.get(CLICK_ID_PARAM):
            found.append(["landing_site", query[CLICK_ID_PARAM]])
    return found


def _first_given(order: dict, current: str, original: str) -> str:
    """The name of the amount to read: its current value (after edits and refunds), else the original."""
    return current if order.get(current) is not None else original
