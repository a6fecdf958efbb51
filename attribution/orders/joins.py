"""One order, two paths (docs/decisions.md, "One order, two paths"): a brand whose storefront platform handles
its orders receives each order by the platform's webhook and by its order confirmation (the thank-you page's
snippet), in either order or at once. Whichever arrives first stores the order; the second joins it.

- The platform's order is the order: its amount counts, and its own click id, codes and shopper decide.
  The order confirmation's click id and code count where the platform's order carried none.
- The order confirmation is answered `shopify_handoff` whatever the order; it never makes a commission
  alone. A second order confirmation of the order is a `duplicate_order`, as for any brand; a second
  platform order of it (orders/paid after orders/create) is `already_received` and changes nothing.
- One order and one commission: the unique key (brand, order id, test) decides who stores the order (a
  second insert waits for the first and is refused), the joining arrival takes the order's row lock, and
  the commission is created only while the order has none, under that lock.

The decision itself is attribution.orders.decision's: confirm_order hands `write_order` a `rejudge` that
decides the joined order again with the signals of both paths.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction

from config.lib.sql import InsertStatement
from health.log.writer import Receipt, record

from ..models import Commission, Order
from ..outcomes import Outcome, Result, say
from ..review import holds as review_holds
from . import store
from . import trace as why
from .store import OrderRows


@dataclass(frozen=True)
class Via:
    """A platform's order arriving by its webhook: which platform, and its time of last change."""

    platform: str  # "Shopify", "WooCommerce": as the trace and the answers name it
    changed_at: datetime | None = None
    # The delivery's row to claim with a new order in one statement, outside any transaction (PostgreSQL;
    # attribution.platforms.recording): write_order raises NotFirst instead of joining when the order is there.
    claim: dict | None = None
    # A step to put first in the order's trace: the platform's sync brought it (attribution.platforms.sync).
    first_step: dict | None = None


class NotFirst(Exception):
    """The order id was already taken: nothing was written, and the caller decides in a transaction."""


@dataclass(frozen=True)
class Judged:
    """A joined order decided again: the answer's outcome and sentence, and the order's new values."""

    outcome: Outcome
    text: str
    order: dict  # Order values by attribute name (attribution.orders.decision.rows_to_store)
    commission: dict | None


# rejudge(click_id=, code=, is_returning_customer=, amount=, currency=, property_id=, host=, at=) -> Judged
Rejudge = Callable[..., Judged]


# The order's INSERT that yields to the unique key (brand, order id, test): None when another arrival holds it.
_insert_order = InsertStatement(Order, unless_taken=("brand_id", "order_id", "is_test"))
_insert_commission = InsertStatement(Commission)


def write_order(
    rows: OrderRows, result: Result, *, via: Via | None, receipt: Receipt | None = None, rejudge: Rejudge
) -> Result:
    """Store an order that one path brings, or join it to the order the other path stored; with the
    request's outcome row when `receipt` is given. Returns the answer: `result` for a new order (and for an
    order confirmation that joins), the joined decision for a platform's order that joins, `already_received`
    or `duplicate_order` for a repeat of the same path.

    `via` names the platform when the order comes by its webhook; None for an order confirmation.

    Raises DatabaseError when the database cannot take it; nothing is half-written then."""
    via_platform, platform = via is not None, via.platform if via else ""
    order = rows.order
    order["via_api"], order["via_platform"] = not via_platform, via_platform
    if via is not None:
        order["platform_changed_at"] = via.changed_at
        if via.first_step is not None:
            order["trace"] = [via.first_step, *order.get("trace", [])]
    if via is not None and via.claim is not None:
        if receipt is None or connection.vendor != "postgresql" or connection.in_atomic_block:
            raise ValueError(
                "a delivery is claimed with its order in one statement of its own, with its receipt"
            )
        pk = store.insert_in_one_statement(connection, rows, receipt.event(result), claim=via.claim)
        if pk is None:
            raise NotFirst
        result.recorded = True
        return result
    # No savepoint inside a platform delivery's transaction (attribution.platforms): a fault rolls it all back.
    with transaction.atomic(savepoint=False):
        if connection.vendor == "postgresql":
            event = receipt.event(result) if receipt is not None else None
            # The outcome row only with a new order: a second arrival's answer is decided below.
            pk = store.insert_in_one_statement(connection, rows, event)
            if pk is not None:
                result.recorded = receipt is not None
                return result
        else:
            pk = _insert_order(**order)
            if pk is not None and rows.commission is not None:
                commission_pk = _insert_commission(order_id=pk, **rows.commission)
                if review_holds.is_held(rows.commission):  # issue 38: a held commission's holds
                    review_holds.write(commission_pk, order, rows.commission)
        answer = (
            result
            if pk is not None
            else _join(rows, result, via_platform=via_platform, platform=platform, rejudge=rejudge)
        )
        if receipt is not None:
            record(receipt.event(answer))
            answer.recorded = True
    return answer


def _join(rows: OrderRows, result: Result, *, via_platform: bool, platform: str, rejudge: Rejudge) -> Result:
    incoming = rows.order
    stored = (
        Order.objects.select_for_update()
        .filter(brand_id=incoming["brand_id"], order_id=incoming["order_id"], is_test=incoming["is_test"])
        .get()
    )
    if stored.via_platform if via_platform else stored.via_api:
        if not via_platform:
            return rows.duplicate()
        return result.set(
            Outcome.ALREADY_RECEIVED, say("platform.already_received", order_id=stored.order_id)
        )

    # The platform's order is the order; the order confirmation adds what the platform's did not carry.
    platforms, confirmations = (incoming, _sent(stored)) if via_platform else (_sent(stored), incoming)
    taken = [
        words
        for words, key in (("its click id", "click_sent"), ("its discount code", "code_sent"))
        if not platforms[key] and confirmations[key]
    ]
    first = "order confirmation" if via_platform else f"{platform or 'platform'} order"
    join_step = why.joined(platform=platform or "platform", first=first, taken=taken)
    changes: dict = {"via_platform": True} if via_platform else {"via_api": True}
    if via_platform:
        changes.update({name: incoming[name] for name in _PLATFORMS_OWN})
    answer = result
    if Commission.objects.filter(order_id=stored.pk).exists():
        # Made before the brand handed its orders off: it stands, and the platform follows it from now on.
        changes["trace"] = [join_step, *stored.trace]
        if via_platform:
            answer = result.set(Outcome.TRACKED, say("platform.joined_commission", order_id=stored.order_id))
    elif taken or via_platform:
        judged = rejudge(
            click_id=platforms["click_sent"] or confirmations["click_sent"] or None,
            code=platforms["code_sent"] or confirmations["code_sent"] or None,
            is_returning_customer=bool(
                platforms["is_returning_customer"] or confirmations["is_returning_customer"]
            ),
            amount=changes.get("amount", stored.amount),
            currency=changes.get("currency", stored.currency),
            property_id=changes.get("property_id", stored.property_id),
            host=changes.get("page_host", stored.page_host),
            at=stored.received_at,
        )
        changes.update({name: judged.order[name] for name in _DECIDED})
        changes["trace"] = [join_step, *judged.order["trace"]]
        if judged.commission is not None:
            made = {
                **judged.commission,
                "created_at": incoming["received_at"],
                "updated_at": incoming["received_at"],
            }
            commission_pk = _insert_commission(order_id=stored.pk, **made)
            if review_holds.is_held(made):  # issue 38: a held commission's holds
                review_holds.write(commission_pk, judged.order, made)
        if via_platform:
            answer = result.set(judged.outcome, judged.text)
    else:
        # The order confirmation brought nothing the platform's order lacked: its decision stands.
        changes["trace"] = [join_step, *stored.trace]
    Order.objects.filter(pk=stored.pk).update(**changes)
    return answer


# What a platform's order that joins an order confirmation brings as the order's own.
_PLATFORMS_OWN = ("amount", "currency", "property_id", "page_host", "platform_changed_at")
# What a joined order takes from its new decision (attribution.orders.decision.rows_to_store's keys).
_DECIDED = (
    "outcome",
    "attribution",
    "click_id",
    "discount_code_id",
    "code_sent",
    "click_sent",
    "creator_id",
    "is_returning_customer",
)


def _sent(order: Order) -> dict:
    return {
        "click_sent": order.click_sent,
        "code_sent": order.code_sent,
        "is_returning_customer": order.is_returning_customer,
    }
