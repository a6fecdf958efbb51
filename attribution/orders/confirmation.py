"""Order confirmation (POST /api/order_confirmation), and the judging of every typed order: an order
confirmation body is read once into the typed order (attribution.orders.incoming) by the API's field rules
(steps 2-5); `confirm` judges a typed order from any way in in the decision order of docs/decisions.md
(attribution.orders.decision) and stores the order (and its commission when tracked).

Expected business results (duplicate, unknown code) are return values, never exceptions; the shared
view records and answers the `Result`.
"""

import dataclasses
import logging
from datetime import datetime

from django.db import DatabaseError

from brands.resolution import Resolution, resolve_host
from health.log.writer import Receipt

from ..contract.serializers import OrderConfirmationSerializer
from ..models import Order
from ..outcomes import Outcome, Result, say
from ..parsing import shown_order_id
from . import event_brand, joins, store
from . import trace as why
from .decision import Decision, decide, message, rows_to_store
from .incoming import IncomingOrder
from .lines import read_items
from .lookups import Lookups

logger = logging.getLogger(__name__)


def confirm_order(
    *,
    payload,
    received_at: datetime,
    receipt: Receipt | None = None,
) -> Result:
    """Judge one order confirmation body in the decision order (docs/decisions.md): read once into the typed
    order by the API's field rules, then judged and stored as `confirm` does."""
    result, order = read_confirmation(payload)
    if order is None:
        return result
    return confirm(order, result=result, received_at=received_at, receipt=receipt)


def confirm(
    order: IncomingOrder,
    *,
    received_at: datetime,
    result: Result | None = None,
    receipt: Receipt | None = None,
    judged_at: datetime | None = None,
    lookups: Lookups | None = None,
    via: joins.Via | None = None,
) -> Result:
    """Judge one typed order (attribution.orders.incoming), whatever its way in, and store the order it decides
    on, with the request's outcome row when the caller hands its `receipt` (one statement on PostgreSQL,
    attribution.orders.store). Spool replay and the setup page record their own rows.

    A reconciliation creates a missing order with `judged_at`, when the book says it was placed: the
    attribution window is judged then, not at its arrival; and its `lookups`, read for many orders at once.

    A storefront platform's order comes `via` its webhook (attribution.platforms): decided without the hand-off
    step, and joined with the brand's order confirmation of the same order."""
    if order.brand is None:  # a brand gone inactive since its way in named it
        host = order.resolution.host if order.resolution else None
        return Result(
            Outcome.UNRESOLVED_DOMAIN,
            say("order.no_brand", host=host or ""),
            order_id=order.order_id,
            is_test=order.is_test,
            warnings=order.warnings,
        )
    if result is None:
        result = Result(
            Outcome.INVALID_PARAMS,
            "",
            brand_id=order.brand.id,
            order_id=order.order_id,
            is_test=order.is_test,
            warnings=order.warnings,
        )
    result, rows = _judge(
        order,
        result,
        received_at=received_at,
        judged_at=judged_at,
        lookups=lookups,
        via_platform=via is not None,
    )
    if rows is None:
        return result
    if via is not None or result.outcome == Outcome.SHOPIFY_HANDOFF:
        # One order, two paths: the platform's webhook and the order confirmation (joins), which keeps the
        # click id sent for the other path.
        rows.order["click_sent"] = order.click_id or ""
        try:
            return joins.write_order(
                rows, result, via=via, receipt=receipt, rejudge=_rejudger(order, rows, lookups)
            )
        except DatabaseError:
            logger.exception("order insert failed", extra={"brand_id": result.brand_id})
            return result.set(Outcome.INSERT_FAILED, say("insert_failed"))
    try:
        stored = store.write_order(rows, event=receipt.event(result) if receipt else None)
    except DatabaseError:
        logger.exception("order insert failed", extra={"brand_id": result.brand_id})
        return result.set(Outcome.INSERT_FAILED, say("insert_failed"))
    answered = result if stored else rows.duplicate()
    answered.recorded = receipt is not None
    return answered


def read_confirmation(payload) -> tuple[Result, IncomingOrder | None]:
    """An order confirmation body as the typed order, its brand resolved from the host it names (steps 1-6):
    the order, or None with the refusal in the result. Reads only."""
    if not isinstance(payload, dict):
        return Result(Outcome.INVALID_PARAMS, say("order.not_an_object")), None
    resolution = event_brand.resolve_event(payload)
    brand = resolution.brand
    result = Result(
        Outcome.INVALID_PARAMS,
        "",
        brand_id=brand.id if brand else None,
        order_id=shown_order_id(payload.get("orderId")),
        is_test=OrderConfirmationSerializer.asks_for_test(payload),
    )
    order = parse_confirmation(payload, result, resolution=resolution)
    if order is None:
        return result, None
    result.order_id, result.is_test, result.warnings = order.order_id, order.is_test, order.warnings
    if brand is None:
        return result.set(Outcome.UNRESOLVED_DOMAIN, event_brand.unresolved_text(payload, resolution)), None
    return result, order


def _judge(
    order: IncomingOrder,
    result: Result,
    *,
    received_at: datetime,
    judged_at: datetime | None = None,
    lookups: Lookups | None = None,
    via_platform: bool = False,
) -> tuple[Result, store.OrderRows | None]:
    """Reads only: the result, and the order to store if there is one."""
    resolution = order.resolution
    brand = resolution.brand
    decision = decide(
        brand=brand,
        resolution=resolution,
        fields=order,
        received_at=judged_at or received_at,
        lookups=lookups,
        via_platform=via_platform,
    )
    if order.lines.ignored:
        decision.trace.insert(0, why.lines_ignored(order.lines.ignored))
    if decision.outcome == Outcome.CLICK_NOT_FOUND:
        # Step 7 comes before step 10: a repeat of a stored order is a duplicate whatever its click.
        if Order.objects.filter(brand_id=brand.id, order_id=order.order_id, is_test=order.is_test).exists():
            return _duplicate(result, order.order_id), None
        return result.set(Outcome.CLICK_NOT_FOUND, say("order.click_not_found")), None
    stored, commission = rows_to_store(
        brand=brand,
        resolution=resolution,
        fields=order,
        decision=decision,
        received_at=received_at,
        ordered_at=judged_at,
    )
    # Whether the order id was already received is decided when the order is written (its unique key):
    # the answer to a repeat (OrderRows.duplicate) is made then.
    rows = store.OrderRows(order=stored, commission=commission, warnings=order.warnings)
    return result.set(decision.outcome, message(decision)), rows


def _duplicate(result: Result, order_id: str) -> Result:
    return result.set(Outcome.DUPLICATE_ORDER, say("order.duplicate", order_id=order_id))


def parse_confirmation(
    payload: dict, result: Result, *, resolution: Resolution | None = None
) -> IncomingOrder | None:
    """Steps 2-5 of the decision order: the field rules of OrderConfirmationSerializer, in its field
    order. On a refusal, fill `result` with its outcome and return None."""
    checked = OrderConfirmationSerializer.check(payload)
    if checked.refused(result, order_id_field="orderId"):
        return None
    values = checked.values
    warnings = [say("order.unreadable_return_window", problem=problem) for _, problem in checked.warnings]
    lines = read_items(values["items"])
    if lines.ignored:  # issue 56: items never refuse the order
        warnings.append(say("order.items_ignored", problem=lines.ignored))
    return IncomingOrder(
        order_id=values["orderId"],
        amount=values["orderAmount"],
        currency=values["currency"],
        is_test=values["test"],
        is_returning_customer=values["is_returning_customer"],
        click_id=values["clickId"],
        code=values["code"],
        email_hash=values["customer_email"],
        return_window_closes_at=values["returnWindowClosesAt"],
        warnings=warnings,
        lines=lines,
        resolution=resolution,
    )


def _rejudger(order: IncomingOrder, rows: store.OrderRows, lookups: Lookups | None) -> joins.Rejudge:
    """How joins decides a joined order again: steps 10-13 with the signals of both paths, the
    shopper as this arrival names them; a click id that matches no click is left out (noted in the trace)."""
    stored = rows.order

    def rejudge(
        *, click_id, code, is_returning_customer, amount, currency, property_id, host, at
    ) -> joins.Judged:
        brand = resolve_host(host).brand
        resolution = Resolution(host=host, brand=brand, property_id=property_id)
        joined = dataclasses.replace(
            order,
            amount=amount,
            currency=currency,
            is_returning_customer=is_returning_customer,
            click_id=click_id,
            code=code,
            return_window_closes_at=stored["return_window_closes_at"],
            warnings=[],
            resolution=resolution,
        )

        def decide_joined(fields: IncomingOrder) -> Decision:
            return decide(
                brand=brand,
                resolution=resolution,
                fields=fields,
                received_at=at,
                lookups=lookups,
                via_platform=True,
            )

        decision = decide_joined(joined)
        if decision.outcome == Outcome.CLICK_NOT_FOUND:
            unknown = decision.trace
            joined = dataclasses.replace(joined, click_id=None)
            decision = decide_joined(joined)
            decision.trace = [*unknown, *decision.trace]
        decided, commission = rows_to_store(
            brand=brand,
            resolution=resolution,
            fields=joined,
            decision=decision,
            received_at=at,
            ordered_at=at,
        )
        decided["click_sent"] = click_id or ""
        return joins.Judged(decision.outcome, message(decision), decided, commission)

    return rejudge
