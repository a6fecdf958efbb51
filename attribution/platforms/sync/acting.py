"""One page of a sync: each platform order, in its webhook's shape, read by its platform module into the same
notice a delivery makes and done through the same service (attribution.platforms.receiving: the decision, the
review rules, the writers), with its outcome row on the platform's sync endpoint (`<name>_sync`).

What the service holds already decides what a platform order asks, read for the whole page in one query: an
order held as the platform has it changes nothing and writes nothing; one never received is recorded (and
cancelled after, when the platform has it cancelled or refunded); a cancel, refund or amount the webhooks
missed is followed. So a page read twice (an overlap, a run resumed after a crash) changes nothing twice.
"""

import logging
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from zoneinfo import ZoneInfo

import orjson
from django.conf import settings

from attribution.models import Order, PlatformDelivery, SyncedOrder, SyncRun
from attribution.outcomes.endpoints import SYNC_ENDPOINT
from attribution.parsing import FieldError, parse_amount, parse_currency, parse_order_id
from brands.models import PlatformConnection
from brands.privacy import keep_platform_body
from health.log.writer import FAULTS, Receipt

from ..notice import Action, OrderNotice, PlatformOrder
from ..platform import Platform
from ..recording import receive

logger = logging.getLogger(__name__)

CANCELLED = "cancelled"
RECORDED = "recorded"  # a new order sent to be recorded, not yet counted


class SyncFault(Exception):
    """The database could not take a change (a fault on our side): the run stops; the next one reads again."""


@dataclass
class Shape:
    """What the sync asks of a platform's order shape beyond its module's reading (sync.shopify_orders,
    sync.woocommerce_orders)."""

    was_paid: object  # (document) -> bool: whether the order was ever paid for
    as_placed: object  # (document) -> document: the order as it was paid, before refunds and cancels


@dataclass
class PageDone:
    counts: dict = field(
        default_factory=lambda: {
            "orders_read": 0,
            "recovered": 0,
            "followed": 0,
            "unchanged": 0,
            "skipped": 0,
        }
    )
    errors: list = field(default_factory=list)
    days: set = field(default_factory=set)  # the shop's days of the paid, non-test orders read


class PageActor:
    """Acts on the pages of one run (`connection` read with its property and brand)."""

    def __init__(self, *, run: SyncRun, connection: PlatformConnection, platform: Platform, shape: Shape):
        self.run, self.connection, self.platform, self.shape = run, connection, platform, shape
        self.endpoint = SYNC_ENDPOINT[platform.name]
        self.zone = _zone(connection)
        self.synced = (
            f"Brought by the {platform.title} sync of {connection.shop_domain} (run {run.pk}): no webhook had "
            "delivered it."
        )

    def act(self, documents: list, *, at: datetime) -> PageDone:
        done = PageDone()
        read = []
        for document in documents:
            done.counts["orders_read"] += 1
            if _over_the_webhook_limit(document):
                # Refused as its webhook would be (413), so nothing of it is kept whole in the outcome log.
                done.counts["skipped"] += 1
                done.errors.append(
                    f"An order over {settings.PLATFORM_BODY_MAX_BYTES // 1024} KB, the most a webhook may carry, "
                    f"was not read (id {str(document.get('id'))[:40]!r})."
                )
                continue
            order = self._read(document)
            try:
                order_id = parse_order_id(order.order_id) if order is not None else None
            except FieldError as exc:
                order_id = None
                done.errors.append(f"An order's {order.names.get('order_id', 'id')} could not be read: {exc}")
            if order_id is None:
                done.counts["skipped"] += 1
                continue
            read.append((document, order, order_id))
        held = self._held({order_id for _, _, order_id in read})
        steps, said = [], {}  # said: what recording each new order answered, by (order id, test)
        for document, order, order_id in read:
            stored = held.get((order_id, order.is_test))
            steps.append(self._act(document, order, order_id, stored, at=at, done=done, said=said))
        # Whether the new orders were kept, read in one query for the page (not one an order): the decision may
        # refuse one (a field its rules refuse), and its outcome row on the sync endpoint says why.
        kept = self._kept({order_id for order_id, _ in said})
        taken = []
        for (document, order, order_id), step in zip(read, steps, strict=True):
            if step == RECORDED:
                step = self._recovered(document, order, order_id, kept, said, at=at, done=done)
            if step != "skipped":
                taken.append((order, order_id, held.get((order_id, order.is_test))))
                if not order.is_test and order.placed_at:
                    done.days.add(self.day_of(order.placed_at))
        self._note_paths(taken, at=at)
        return done

    def _kept(self, order_ids: set) -> set:
        if not order_ids:
            return set()
        rows = Order.objects.filter(brand_id=self.connection.brand_id, order_id__in=order_ids)
        return set(rows.values_list("order_id", "is_test"))

    def _recovered(
        self, document, order: PlatformOrder, order_id: str, kept: set, said: dict, *, at, done
    ) -> str:
        if (order_id, order.is_test) not in kept:
            result = said[(order_id, order.is_test)]
            done.errors.append(f"Order {order_id} was not recorded ({result.outcome}): {result.text}")
            return self._count(done, "skipped")
        if order.cancelled:
            self._follow(document, order_id, Action.CANCEL, at=at)
        return self._count(done, "recovered")

    def _note_paths(self, taken: list, *, at: datetime) -> None:
        """Each order of the page as the sync first saw it (SyncedOrder): recorded by this run, or come by the
        webhook or the order confirmation. This run's records are found by the delivery id each took with its
        order (atomically), so an order recorded just before a crash counts as the sync's when the run, taken
        over, reads its page again."""
        records = {f"sync:{self.run.pk}:record:{order_id}": order_id for _, order_id, _ in taken}
        # platform_delivery_once (brand, connection, delivery id): this run's records among the page's orders.
        recorded = {
            records[delivery]
            for delivery in PlatformDelivery.objects.filter(
                brand_id=self.connection.brand_id,
                connection_id=self.connection.pk,
                delivery_id__in=list(records),
                verified=True,
            ).values_list("delivery_id", flat=True)
        }
        outcomes = self._outcomes(recorded)
        rows = []
        for order, order_id, stored in taken:
            if order_id in recorded:
                path = SyncedOrder.Path.SYNC
            elif stored is None:
                continue  # not recorded (its outcome on the sync endpoint says why)
            else:
                path = SyncedOrder.Path.WEBHOOK if stored["via_platform"] else SyncedOrder.Path.CONFIRMATION
            rows.append(
                SyncedOrder(
                    brand_id=self.connection.brand_id,
                    connection_id=self.connection.pk,
                    run_id=self.run.pk,
                    order_id=order_id,
                    is_test=order.is_test,
                    path=path,
                    day=self.day_of(order.placed_at or at),
                    placed_at=order.placed_at,
                    outcome=outcomes.get((order_id, order.is_test), "")
                    if path == SyncedOrder.Path.SYNC
                    else "",
                    seen_at=at,
                )
            )
        # synced_order_once: the first run to see an order says how it came; a later read changes nothing.
        SyncedOrder.objects.bulk_create(rows, ignore_conflicts=True)

    def _read(self, document) -> PlatformOrder | None:
        if not isinstance(document, dict):
            return None
        return self.platform.read(self._notice(), document=document, connection=self.connection).order

    def _held(self, order_ids: set) -> dict:
        """What the service holds of these orders: {(order id, test): values}."""
        rows = Order.objects.filter(brand_id=self.connection.brand_id, order_id__in=order_ids).values(
            "order_id",
            "is_test",
            "via_platform",
            "platform_changed_at",
            "commission__state",
            "commission__order_amount",
            "commission__currency",
        )
        return {(row["order_id"], row["is_test"]): row for row in rows}

    def _act(
        self, document, order: PlatformOrder, order_id: str, stored, *, at, done: PageDone, said: dict
    ) -> str:
        """What the order asked, done: "followed", "unchanged", "skipped", or RECORDED (then "recovered" or
        "skipped", once the page has found whether the order was kept)."""
        if stored is None:
            if not self.shape.was_paid(document):
                return self._count(done, "skipped")
            placed = self.shape.as_placed(document) if order.cancelled else document
            result = self._send(placed, order_id, Action.RECORD, "record", at=at)
            if result.outcome in FAULTS:
                raise SyncFault(f"order {order_id}: {result.text}")
            said[(order_id, order.is_test)] = result
            return RECORDED  # kept or not, found for the whole page (act)
        if not stored["via_platform"]:
            # The order confirmation brought it and the webhook never did: the platform's order joins it.
            placed = self.shape.as_placed(document) if order.cancelled else document
            self._send(placed, order_id, Action.RECORD, "join", at=at)
            if order.cancelled and stored["commission__state"] not in (None, CANCELLED):
                self._follow(document, order_id, Action.CANCEL, at=at)
            return self._count(done, "followed")
        state = stored["commission__state"]
        if state is None or state == CANCELLED:
            return self._count(done, "unchanged")
        if order.cancelled:
            self._follow(document, order_id, Action.CANCEL, at=at)
            return self._count(done, "followed")
        if self._amount_differs(order, stored) and not _older(order, stored):
            self._follow(document, order_id, Action.FOLLOW, at=at)
            return self._count(done, "followed")
        return self._count(done, "unchanged")

    def _follow(self, document, order_id: str, action: Action, *, at) -> None:
        result = self._send(
            document, order_id, action, "cancel" if action == Action.CANCEL else "follow", at=at
        )
        if result.outcome in FAULTS:
            raise SyncFault(f"order {order_id}: {result.text}")

    def _notice(self, delivery_id: str = "") -> OrderNotice:
        """A notice as a delivery of the platform's new-order topic would make (what its module reads)."""
        return OrderNotice(
            endpoint=self.platform.name,
            platform=self.platform.title,
            connection_id=self.connection.pk,
            brand_id=self.connection.brand_id,
            host=self.connection.property.host,
            delivery_id=delivery_id,
            topic=self.platform.new_order_topic,
            action=Action.IGNORE,
        )

    def _send(self, document: dict, order_id: str, action: Action, what: str, *, at):
        read = self.platform.read(
            self._notice(f"sync:{self.run.pk}:{what}:{order_id}"),
            document=document,
            connection=self.connection,
        )
        # What the sync asks of the order, whatever its status would ask of a delivery (sync.acting decides).
        notice = replace(
            read,
            topic=f"sync:{what}",
            action=action,
            refusal=None,
            note="",
            own_orders_only=False,
            synced=self.synced if what == "record" else "",
        )
        receipt = Receipt(
            endpoint=self.endpoint,
            received_at=at,
            request_id=f"sync-{self.run.pk}",
            body=keep_platform_body(self.platform.kept(document)),
            body_parsed=True,
        )
        # A recovered order is placed on its own day (the shop's placed time), so the charts, the creator page,
        # its rate and its statement count it there; the outcome row keeps when the sync recorded it.
        placed = read.order.placed_at if what == "record" and read.order is not None else None
        order_at = min(placed, at) if placed is not None else at
        # The page's transaction is the savepoint: a fault rolls the page back whole (sync.runner).
        return receive(notice, received_at=order_at, receipt=receipt, savepoint=False)

    def _outcomes(self, ids: set) -> dict:
        if not ids:
            return {}
        rows = Order.objects.filter(brand_id=self.connection.brand_id, order_id__in=ids)
        return {(row[0], row[1]): row[2] for row in rows.values_list("order_id", "is_test", "outcome")}

    def day_of(self, moment: datetime) -> date:
        return moment.astimezone(self.zone).date()

    @staticmethod
    def _count(done: PageDone, what: str) -> str:
        done.counts[what] += 1
        return what

    @staticmethod
    def _amount_differs(order: PlatformOrder, stored: dict) -> bool:
        try:
            amount, currency = parse_amount(order.amount, allow_zero=True), parse_currency(order.currency)
        except FieldError:
            return False
        return amount != stored["commission__order_amount"] or currency != stored["commission__currency"]


def _over_the_webhook_limit(document) -> bool:
    """Whether the order, written as JSON, is over the body a platform's webhook may carry (receiver.py)."""
    if not isinstance(document, dict):
        return False
    try:
        return len(orjson.dumps(document)) > settings.PLATFORM_BODY_MAX_BYTES
    except TypeError:  # orjson.JSONEncodeError included: not from JSON, so not from a platform
        return False


def _older(order: PlatformOrder, stored: dict) -> bool:
    """The platform's version is older than the one applied (a webhook brought a newer one meanwhile)."""
    return bool(
        order.changed_at
        and stored["platform_changed_at"]
        and order.changed_at < stored["platform_changed_at"]
    )


def _zone(connection: PlatformConnection) -> ZoneInfo:
    name = getattr(connection, "shop_timezone", "") or "UTC"
    try:
        return ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        return ZoneInfo("UTC")
