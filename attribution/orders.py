"""Order confirmation (POST /api/order_confirmation): judge one event in the decision order of
docs/decisions.md, one function per step, and store the order (and its commission when tracked).

Expected business results (duplicate, unknown code) are return values, never exceptions; the shared
view records and answers the `Result`.
"""

import dataclasses
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import DatabaseError

from brands.models import Creator, DiscountCode, KnownShopper, Property
from brands.resolution import BrandInfo, Resolution, resolve_host
from config.lib.statements import SelectStatement
from health.log.recording import Receipt

from . import joins, store
from . import trace as why
from .models import Attribution, Click, Order
from .money import commission_amount
from .outcomes import Outcome, Result, say
from .parsing import loads_strict
from .review import holds as review_holds
from .review.rules import click_reuse
from .review.runner import review_decision
from .serializers import OrderConfirmationSerializer

logger = logging.getLogger(__name__)


@dataclass
class _Confirmation:
    """The order confirmation fields after the field rules."""

    order_id: str
    amount: Decimal
    currency: str
    is_test: bool
    is_returning_customer: bool
    click_id: str | None
    code: str | None
    email_hash: str | None
    return_window_closes_at: datetime | None
    warnings: list = field(default_factory=list)
    referring_site: str = ""  # issue 38: a platform's order's referring site (the code_leak rule)


@dataclass
class _Decision:
    outcome: Outcome
    attribution: str = Attribution.NONE
    click: Click | None = None
    discount_code: DiscountCode | None = None
    creator_id: int | None = None
    creator_name: str = ""  # issue 38: the credited creator, as the review rules read her
    creator_email_hash: str = ""
    detail: str = ""
    trace: list = field(default_factory=list)  # attribution.trace: the signals consulted, in order


def _display_order_id(value) -> str:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value).strip()[:255]
    return ""


def confirm_order(
    *,
    payload,
    received_at: datetime,
    receipt: Receipt | None = None,
    judged_at: datetime | None = None,
    lookups: "Lookups | None" = None,
    via: joins.Via | None = None,
) -> Result:
    """Judge one order confirmation in the decision order (docs/decisions.md) and store the order it
    decides on, with the request's outcome row when the API hands its `receipt` (one statement on
    PostgreSQL, attribution.store). Spool replay and the setup page record their own rows.

    A reconciliation creates a missing order with `judged_at`, when the book says it was placed: the
    attribution window is judged then, not at its arrival; and its `lookups`, read for many orders at once.

    A storefront platform's order comes `via` its webhook (attribution.deliveries), in this payload's shape:
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
        # One order, two paths: the platform's webhook and the order confirmation (attribution.joins), which
        # keeps the click id sent for the other path.
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
    answered = result if stored else rows.duplicate
    answered.recorded = receipt is not None
    return answered


def _judge(
    *,
    payload,
    received_at: datetime,
    judged_at: datetime | None = None,
    lookups: "Lookups | None" = None,
    via_platform: bool = False,
) -> tuple[Result, store.OrderRows | None]:
    """Reads only: the result, and the order to store if there is one."""
    if not isinstance(payload, dict):
        return Result(Outcome.INVALID_PARAMS, say("order.not_an_object")), None

    resolution = _resolve_event(payload)
    brand = resolution.brand
    result = Result(
        Outcome.INVALID_PARAMS,
        "",
        brand_id=brand.id if brand else None,
        order_id=_display_order_id(payload.get("orderId")),
        is_test=OrderConfirmationSerializer.asks_for_test(payload),
    )

    fields = _parse_confirmation(payload, result)
    if fields is None:
        return result, None
    result.order_id, result.is_test, result.warnings = fields.order_id, fields.is_test, fields.warnings
    if via_platform:  # issue 38: only a platform's order names a referring site (attribution.deliveries)
        fields.referring_site = _referring_site(payload)

    if brand is None:
        return result.set(Outcome.UNRESOLVED_DOMAIN, _unresolved_text(payload, resolution)), None

    decision = _decide(
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
    order, commission = _rows(
        brand=brand, resolution=resolution, fields=fields, decision=decision, received_at=received_at
    )
    # Whether the order id was already received is decided when the order is written (its unique key), so
    # the answer to a repeat is made ready: the same brand, order and namespace, and the same warnings.
    repeat = Result(
        Outcome.DUPLICATE_ORDER,
        "",
        brand_id=brand.id,
        order_id=fields.order_id,
        is_test=fields.is_test,
        warnings=fields.warnings,
    )
    duplicate = _duplicate(repeat, fields.order_id)
    rows = store.OrderRows(order=order, commission=commission, duplicate=duplicate)
    return result.set(decision.outcome, _message(decision)), rows


def _host_field(payload: dict) -> str | None:
    """The `domain` field, when given, wins over `page_url` (docs/decisions.md, "Brand and property
    resolution"); the name of the one used.

    A domain that is null or blank is not given; one of another type is given, and unreadable.
    """
    domain = payload.get("domain")
    if domain is not None and not (isinstance(domain, str) and not domain.strip()):
        return "domain"
    page_url = payload.get("page_url")
    return "page_url" if page_url is not None and page_url != "" else None


def _resolve_event(payload: dict) -> Resolution:
    source = payload.get(_host_field(payload) or "page_url")
    return resolve_host(source) if isinstance(source, str) else Resolution(host=None)


def _unresolved_text(payload: dict, resolution: Resolution) -> str:
    field = _host_field(payload)
    if field is None:
        return say("order.page_url_missing")
    if resolution.host is None:
        return say("order.host_unreadable", field=field)
    return say("order.no_brand", host=resolution.host)


def brand_id_of_order_event(payload) -> int | None:
    """The brand an order confirmation body resolves to, for the outcome record of a failed request."""
    if not isinstance(payload, dict):
        return None
    brand = _resolve_event(payload).brand
    return brand.id if brand else None


def host_of_order_event(payload) -> str:
    """The host an order confirmation body names (its domain or page_url), normalized; "" when none."""
    return (_resolve_event(payload).host or "") if isinstance(payload, dict) else ""


def _duplicate(result: Result, order_id: str) -> Result:
    return result.set(Outcome.DUPLICATE_ORDER, say("order.duplicate", order_id=order_id))


def _parse_confirmation(payload: dict, result: Result) -> _Confirmation | None:
    """Steps 2-5 of the decision order: the field rules of OrderConfirmationSerializer, in its field
    order. On a refusal, fill `result` with its outcome and return None."""
    checked = OrderConfirmationSerializer.check(payload)
    if checked.refused(result, order_id_field="orderId"):
        return None
    values = checked.values
    return _Confirmation(
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


# The click and code lookups of every attributed order, written out (config.lib.statements): a queryset
# with select_related costs ~0.5 ms of Python to compile per call.
_click = SelectStatement(
    Click,
    "click",
    f"FROM {Click._meta.db_table} click JOIN {Creator._meta.db_table} creator ON creator.id = click.creator_id "
    "WHERE click.click_id = %s",
    extra={
        "creator_is_active": "creator.is_active",
        "creator_name": "creator.name",
        "creator_email_hash": "creator.email_hash",
        # issue 38, the click_reuse rule: the click's orders of the last hour, read with the click (no round
        # trip of its own), on the order's click index; its one parameter comes before the click id.
        "orders_in_hour": click_reuse.ORDERS_IN_HOUR,
    },
)
# LOWER(code) as in the unique constraint code_unique_ci_per_brand, whose index it uses; both sides are
# lowered by the database, so a code matches exactly when the constraint would call it the same code.
_discount_code = SelectStatement(
    DiscountCode,
    "code",
    f"FROM {DiscountCode._meta.db_table} code "
    f"LEFT JOIN {Creator._meta.db_table} creator ON creator.id = code.creator_id "
    "WHERE code.brand_id = %s AND LOWER(code.code) = LOWER(%s)",
    extra={
        "creator_is_active": "creator.is_active",
        "creator_name": "creator.name",
        "creator_email_hash": "creator.email_hash",
    },
)


class Lookups:
    """What the decision reads besides the brand: a click, a discount code and a known shopper, one query
    each. A reconciliation hands a subclass that read them for many book orders at once."""

    def click(self, click_id: str) -> Click | None:
        """The click, with creator_is_active, creator_name, creator_email_hash and orders_in_hour."""
        return _click([click_reuse.hour_before_now(), click_id])

    def code(self, brand_id: int, code: str) -> DiscountCode | None:
        """The brand's code, case-insensitively, with creator_is_active and creator_name."""
        return _discount_code([brand_id, code])

    def shopper(self, brand_id: int, email_hash: str) -> KnownShopper | None:
        return (
            KnownShopper.objects.select_related("creator")
            .filter(brand_id=brand_id, email_hash=email_hash, creator__is_active=True)
            .first()
        )


_DATABASE = Lookups()


def _decide(
    *,
    brand: BrandInfo,
    resolution: Resolution,
    fields: _Confirmation,
    received_at,
    lookups: Lookups | None = None,
    via_platform: bool = False,
) -> _Decision:
    """Steps 8-13 of the decision order: reads only; the order is stored afterwards. Each signal consulted
    adds its step to the trace (attribution.trace), which is stored with the order. The click window is
    judged at `received_at`. A platform's order (`via_platform`) is the one the hand-off step hands off to."""
    lookups = lookups or _DATABASE
    if resolution.is_unregistered_property:
        return _Decision(Outcome.UNREGISTERED_PROPERTY, detail=resolution.host or "")
    if brand.storefront_handles_orders and not via_platform:
        return _Decision(Outcome.SHOPIFY_HANDOFF)

    trace: list[dict] = []
    fallback = None
    if fields.click_id:
        click = lookups.click(fields.click_id)  # with creator_is_active, creator_name
        if click is None:
            trace.append(why.click_not_found(fields.click_id))
            return _Decision(Outcome.CLICK_NOT_FOUND, trace=trace)
        elapsed = received_at - click.clicked_at
        window = brand.attribution_window_days
        if click.brand_id != brand.id:
            trace.append(why.cross_brand_click(click.click_id))
            fallback = Outcome.CROSS_BRAND_CLICK
        elif click.property_id != resolution.property_id:
            trace.append(why.property_mismatch(click.click_id, _host_of(click.property_id), resolution.host))
            fallback = Outcome.PROPERTY_MISMATCH
        elif elapsed > timedelta(days=window):
            trace.append(why.expired_click(click.click_id, elapsed, window))
            fallback = Outcome.EXPIRED_CLICK
        elif not click.creator_is_active:
            trace.append(why.click_banned(click.click_id, click.creator_name))
            return _Decision(Outcome.BANNED_USER, attribution=Attribution.CLICK, click=click, trace=trace)
        else:
            trace.append(why.click_attributed(click.click_id, click.creator_name, elapsed, window))
            return _Decision(
                Outcome.TRACKED,
                Attribution.CLICK,
                click=click,
                creator_id=click.creator_id,
                creator_name=click.creator_name,
                creator_email_hash=getattr(click, "creator_email_hash", "") or "",
                trace=trace,
            )

    if fields.code:
        code = lookups.code(brand.id, fields.code)  # with creator_is_active, creator_name
        if code is None:
            trace.append(why.unregistered_code(fields.code))
        elif code.is_blacklisted:
            trace.append(why.blacklisted_code(code.code))
        elif not code.creator_is_active:
            trace.append(why.code_banned(code.code, has_creator=code.creator_id is not None))
        else:
            trace.append(why.code_attributed(code.code, code.creator_name))
            return _Decision(
                Outcome.TRACKED,
                Attribution.CODE,
                discount_code=code,
                creator_id=code.creator_id,
                creator_name=code.creator_name,
                creator_email_hash=getattr(code, "creator_email_hash", "") or "",
                trace=trace,
            )
        if fallback is None:
            if code is None:
                return _Decision(Outcome.UNREGISTERED_CODE, detail=fields.code, trace=trace)
            if code.is_blacklisted:
                return _Decision(Outcome.BLACKLISTED_CODE, discount_code=code, trace=trace)
            return _Decision(Outcome.BANNED_USER, Attribution.CODE, discount_code=code, trace=trace)

    if fields.email_hash and (fallback is not None or not fields.code):
        shopper = lookups.shopper(brand.id, fields.email_hash)
        if shopper is not None:
            trace.append(why.shopper_attributed(shopper.creator.name))
            return _Decision(
                Outcome.TRACKED,
                Attribution.SHOPPER,
                creator_id=shopper.creator_id,
                creator_name=shopper.creator.name,
                creator_email_hash=shopper.creator.email_hash,
                trace=trace,
            )
        trace.append(why.shopper_not_known())

    return _Decision(fallback or Outcome.NO_ATTRIBUTION, trace=trace)


def _rejudger(payload: dict, rows: store.OrderRows, lookups: Lookups | None) -> joins.Rejudge:
    """How attribution.joins decides a joined order again: steps 10-13 with the signals of both paths, the
    shopper as this arrival names them; a click id that matches no click is left out (noted in the trace)."""
    order = rows.order
    email_hash = OrderConfirmationSerializer.rules["customer_email"].parse(payload.get("customer_email"))

    def rejudge(
        *, click_id, code, is_returning_customer, amount, currency, property_id, host, at
    ) -> joins.Judged:
        brand = resolve_host(host).brand
        fields = _Confirmation(
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

        def decide(fields: _Confirmation) -> _Decision:
            return _decide(
                brand=brand,
                resolution=resolution,
                fields=fields,
                received_at=at,
                lookups=lookups,
                via_platform=True,
            )

        decision = decide(fields)
        if decision.outcome == Outcome.CLICK_NOT_FOUND:
            unknown = decision.trace
            fields = dataclasses.replace(fields, click_id=None)
            decision = decide(fields)
            decision.trace = [*unknown, *decision.trace]
        decided, commission = _rows(
            brand=brand, resolution=resolution, fields=fields, decision=decision, received_at=at
        )
        decided["click_sent"] = click_id or ""
        return joins.Judged(decision.outcome, _message(decision), decided, commission)

    return rejudge


def _referring_site(payload: dict) -> str:
    """The referring site a platform's order names (attribution.deliveries puts it in the payload)."""
    site = payload.get("referring_site")
    return site[:2048] if isinstance(site, str) else ""


def _host_of(property_id: int | None) -> str:
    """The host a click's property serves (only a property mismatch asks, so it is not on the hot path)."""
    if property_id is None:
        return ""
    return Property.objects.filter(pk=property_id).values_list("host", flat=True).first() or ""


def decide_again(body: str, *, at: datetime) -> tuple[str, list[dict]] | None:
    """What-if: the decision an order confirmation `body` (its text as the outcome log keeps it) would get
    at `at`, under today's codes, clicks, creators and window. Reads only; None when the body is not JSON,
    no longer resolves to a brand or fails the field rules."""
    try:
        payload = loads_strict(body.encode())
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    resolution = _resolve_event(payload)
    if resolution.brand is None:
        return None
    fields = _parse_confirmation(payload, Result(Outcome.INVALID_PARAMS, ""))
    if fields is None:
        return None
    decision = _decide(brand=resolution.brand, resolution=resolution, fields=fields, received_at=at)
    return str(decision.outcome), decision.trace


@dataclass(frozen=True)
class Estimate:
    """What an order not received would get: its outcome and, when tracked, its commission."""

    outcome: str
    commission: Decimal | None
    currency: str
    creator_id: int | None


def would_earn(payload: dict, *, at: datetime, lookups: Lookups | None = None) -> Estimate | None:
    """The decision an order confirmation `payload` would get at `at` under today's rules, and the
    commission it would create: reads only. None when it does not resolve to a brand or fails the field
    rules (the caller says why)."""
    resolution = _resolve_event(payload)
    if resolution.brand is None:
        return None
    fields = _parse_confirmation(payload, Result(Outcome.INVALID_PARAMS, ""))
    if fields is None:
        return None
    decision = _decide(
        brand=resolution.brand, resolution=resolution, fields=fields, received_at=at, lookups=lookups
    )
    amount = None
    if decision.outcome == Outcome.TRACKED:
        rate = resolution.brand.rate_for(is_returning_customer=fields.is_returning_customer)
        amount = commission_amount(fields.amount, rate, fields.currency)
    return Estimate(str(decision.outcome), amount, fields.currency, decision.creator_id)


def _message(decision: _Decision) -> str:
    """The answer to a stored order: the outcome's sentence (TEXTS "order.<outcome>")."""
    if decision.outcome == Outcome.UNREGISTERED_PROPERTY:
        return say("order.unregistered_property", host=decision.detail)
    if decision.outcome == Outcome.UNREGISTERED_CODE:
        return say("order.unregistered_code", code=decision.detail)
    return say(f"order.{decision.outcome}")


def _rows(*, brand, resolution, fields, decision, received_at) -> tuple[dict, dict | None]:
    """The order (and its commission when tracked) to store; its unique key (brand, order id, test)
    decides duplicates when it is written, so two racing requests give one order and one duplicate_order."""
    order = {
        "brand_id": brand.id,
        "order_id": fields.order_id,
        "is_test": fields.is_test,
        "amount": fields.amount,
        "currency": fields.currency,
        "is_returning_customer": fields.is_returning_customer,
        "return_window_closes_at": fields.return_window_closes_at,
        "property_id": resolution.property_id,
        "page_host": resolution.host or "",
        "outcome": decision.outcome.value,
        "attribution": decision.attribution,
        "click_id": decision.click.pk if decision.click else None,
        "discount_code_id": decision.discount_code.pk if decision.discount_code else None,
        "code_sent": fields.code or "",
        "creator_id": decision.creator_id,
        "received_at": received_at,
        "trace": decision.trace,
    }
    commission = None
    if decision.outcome == Outcome.TRACKED:
        rate = brand.rate_for(is_returning_customer=fields.is_returning_customer)
        commission = {
            "brand_id": brand.id,
            "creator_id": decision.creator_id,
            "is_test": fields.is_test,
            "order_amount": fields.amount,
            "currency": fields.currency,
            "rate_percent": rate,
            "amount": commission_amount(fields.amount, rate, fields.currency),
            "created_at": received_at,
            "updated_at": received_at,
        }
        # issue 38: the review rules, in the decision of every way in (docs/review.md); a flagged commission
        # is created held, with each hold's evidence in the order's trace.
        holds = review_decision(brand_id=brand.id, fields=fields, decision=decision, at=received_at)
        if holds:
            review_holds.mark(order, commission, holds)
    return order, commission
