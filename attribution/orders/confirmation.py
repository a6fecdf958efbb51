"""Order confirmation (POST /api/order_confirmation): judge one event in the decision order of
docs/decisions.md and store the order (and its commission when tracked). The field rules (steps 2-5) are
read here; the decision (attribution.orders.decision) takes it from there.

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
from .decision import Decision, Fields, decide, message, rows_to_store
from .lookups import Lookups

logger = logging.getLogger(__name__)


def confirm_order(
    *,
    payload,
    received_at: datetime,
    receipt: Receipt | None = None,
    judged_at: datetime | None = None,
    lookups: Lookups | None = None,
    via: joins.Via | None = None,
) -> Result:
    """Judge one order confirmation in the decision order (docs/decisions.md) and store the order it
    decides on, with the request's outcome row when the API hands its `receipt` (one statement on
    PostgreSQL, attribution.orders.store). Spool replay and the setup page record their own rows.

    A reconciliation creates a missing order with `judged_at`, when the book says it was placed: the
    attribution window is judged then, not at its arrival; and its `lookups`, read for many orders at once.

    A storefront platform's order comes `via` its webhook (attribution.platforms), in this payload's shape:
    decided without the hand-off step, and joined with the brand's order confirmation of the same order."""
    result, rows = _judge(
        payload=payload,
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
        rows.order["click_sent"] = (
            OrderConfirmationSerializer.rules["clickId"].parse(payload.get("clickId")) or ""
        )
        try:
            return joins.write_order(
                rows, result, via=via, receipt=receipt, rejudge=_rejudger(payload, rows, lookups)
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


def _judge(
    *,
    payload,
    received_at: datetime,
    judged_at: datetime | None = None,
    lookups: Lookups | None = None,
    via_platform: bool = False,
) -> tuple[Result, store.OrderRows | None]:
    """Reads only: the result, and the order to store if there is one."""
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

    fields = parse_confirmation(payload, result)
    if fields is None:
        return result, None
    result.order_id, result.is_test, result.warnings = fields.order_id, fields.is_test, fields.warnings
    if (
        via_platform
    ):  # issue 38: only a platform's order names a referring site (attribution.platforms.record)
        fields.referring_site = _referring_site(payload)

    if brand is None:
        return result.set(Outcome.UNRESOLVED_DOMAIN, event_brand.unresolved_text(payload, resolution)), None

    decision = decide(
        brand=brand,
        resolution=resolution,
        fields=fields,
        received_at=judged_at or received_at,
        lookups=lookups,
        via_platform=via_platform,
    )
    if decision.outcome == Outcome.CLICK_NOT_FOUND:
        # Step 7 comes before step 10: a repeat of a stored order is a duplicate whatever its click.
        if Order.objects.filter(brand_id=brand.id, order_id=fields.order_id, is_test=fields.is_test).exists():
            return _duplicate(result, fields.order_id), None
        return result.set(Outcome.CLICK_NOT_FOUND, say("order.click_not_found")), None
    order, commission = rows_to_store(
        brand=brand, resolution=resolution, fields=fields, decision=decision, received_at=received_at
    )
    # Whether the order id was already received is decided when the order is written (its unique key):
    # the answer to a repeat (OrderRows.duplicate) is made then.
    rows = store.OrderRows(order=order, commission=commission, warnings=fields.warnings)
    return result.set(decision.outcome, message(decision)), rows


def _duplicate(result: Result, order_id: str) -> Result:
    return result.set(Outcome.DUPLICATE_ORDER, say("order.duplicate", order_id=order_id))


def parse_confirmation(payload: dict, result: Result) -> Fields | None:
    """Steps 2-5 of the decision order: the field rules of OrderConfirmationSerializer, in its field
    order. On a refusal, fill `result` with its outcome and return None."""
    checked = OrderConfirmationSerializer.check(payload)
    if checked.refused(result, order_id_field="orderId"):
        return None
    values = checked.values
    return Fields(
        order_id=values["orderId"],
        amount=values["orderAmount"],
        currency=values["currency"],
        is_test=values["test"],
        is_returning_customer=values["is_returning_customer"],
        click_id=values["clickId"],
        code=values["code"],
        email_hash=values["customer_email"],
        return_window_closes_at=values["returnWindowClosesAt"],
        warnings=[say("order.unreadable_return_window", problem=problem) for _, problem in checked.warnings],
    )


def _rejudger(payload: dict, rows: store.OrderRows, lookups: Lookups | None) -> joins.Rejudge:
    """How joins decides a joined order again: steps 10-13 with the signals of both paths, the
    shopper as this arrival names them; a click id that matches no click is left out (noted in the trace)."""
    order = rows.order
    email_hash = OrderConfirmationSerializer.rules["customer_email"].parse(payload.get("customer_email"))

    def rejudge(
        *, click_id, code, is_returning_customer, amount, currency, property_id, host, at
    ) -> joins.Judged:
        brand = resolve_host(host).brand
        fields = Fields(
            order_id=order["order_id"],
            amount=amount,
            currency=currency,
            is_test=order["is_test"],
            is_returning_customer=is_returning_customer,
            click_id=click_id,
            code=code,
            email_hash=email_hash,
            return_window_closes_at=order["return_window_closes_at"],
            referring_site=_referring_site(payload),
        )
        resolution = Resolution(host=host, brand=brand, property_id=property_id)

        def decide_joined(fields: Fields) -> Decision:
            return decide(
                brand=brand,
                resolution=resolution,
                fields=fields,
                received_at=at,
                lookups=lookups,
                via_platform=True,
            )

        decision = decide_joined(fields)
        if decision.outcome == Outcome.CLICK_NOT_FOUND:
            unknown = decision.trace
            fields = dataclasses.replace(fields, click_id=None)
            decision = decide_joined(fields)
            decision.trace = [*unknown, *decision.trace]
        decided, commission = rows_to_store(
            brand=brand, resolution=resolution, fields=fields, decision=decision, received_at=at
        )
        decided["click_sent"] = click_id or ""
        return joins.Judged(decision.outcome, message(decision), decided, commission)

    return rejudge


def _referring_site(payload: dict) -> str:
    """The referring site a platform's order names (attribution.platforms.record puts it in the payload)."""
    site = payload.get("referring_site")
    return site[:2048] if isinstance(site, str) else ""
