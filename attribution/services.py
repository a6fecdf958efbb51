"""The decisions: what an order confirmation, a cancellation or an update does (decisions D3-D8); the
money side of commissions (locking, statements, payment, adjustments) is attribution.billing.

Services take parsed input, own their transactions, and return a `Result`; expected business
results are return values, never exceptions. The shared view records and answers them.
"""

import logging
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.db import DatabaseError, IntegrityError, connection, transaction

from brands.models import Creator, DiscountCode, KnownShopper
from brands.resolution import BrandInfo, Resolution, resolve_host
from config.db.statements import InsertStatement, save_fields

from . import billing, parsing
from .models import Adjustment, AmountChange, Attribution, Click, Commission, Order, Statement
from .outcomes import Outcome, Result

logger = logging.getLogger(__name__)


def commission_amount(order_amount: Decimal, rate_percent: Decimal, currency: str) -> Decimal:
    """Order amount × rate, rounded half-up to the currency's ISO 4217 minor units (decision D8)."""
    quantum = Decimal(1).scaleb(-parsing.currency_exponent(currency))
    return (order_amount * rate_percent / Decimal(100)).quantize(quantum, rounding=ROUND_HALF_UP)


# --- order confirmation -------------------------------------------------------------------------


@dataclass
class _Confirmation:
    """The order confirmation fields after the D4 rules."""

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


@dataclass
class _Decision:
    outcome: Outcome
    attribution: str = Attribution.NONE
    click: Click | None = None
    discount_code: DiscountCode | None = None
    creator_id: int | None = None
    detail: str = ""


def _display_order_id(value) -> str:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value).strip()[:255]
    return ""


def confirm_order(*, payload, received_at: datetime) -> Result:
    """Judge one order confirmation event in the decision order of D3 and store what it decides."""
    if not isinstance(payload, dict):
        return Result(
            Outcome.INVALID_PARAMS, "The request body must be a JSON object with the order's fields."
        )

    resolution = _resolve_event(payload)
    brand = resolution.brand
    test_flag = payload.get("test")
    result = Result(
        Outcome.INVALID_PARAMS,
        "",
        brand_id=brand.id if brand else None,
        order_id=_display_order_id(payload.get("orderId")),
        is_test=test_flag is True or (isinstance(test_flag, str) and test_flag.strip().lower() == "true"),
    )

    fields = _parse_confirmation(payload, result)
    if fields is None:
        return result
    result.order_id, result.is_test, result.warnings = fields.order_id, fields.is_test, fields.warnings

    if brand is None:
        return _set(result, Outcome.UNRESOLVED_DOMAIN, _unresolved_text(payload, resolution))

    decision = _decide(brand=brand, resolution=resolution, fields=fields, received_at=received_at)
    if decision.outcome == Outcome.CLICK_NOT_FOUND:
        # Step 7 comes before step 10: a repeat of a stored order is a duplicate whatever its click.
        if Order.objects.filter(brand_id=brand.id, order_id=fields.order_id, is_test=fields.is_test).exists():
            return _duplicate(result, fields.order_id)
        return _set(
            result,
            Outcome.CLICK_NOT_FOUND,
            "clickId matches no click. Fix: send the sms_click_id cookie value exactly as stored.",
        )
    return _store(
        result=result,
        brand=brand,
        resolution=resolution,
        fields=fields,
        decision=decision,
        received_at=received_at,
    )


def _host_field(payload: dict) -> str | None:
    """Decision D6: the `domain` field, when given, wins over `page_url`; the name of the one used.

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
        return "page_url is missing. Fix: send the URL of the page that sends the event, or your domain in domain."
    if resolution.host is None:
        return f"{field} could not be read as a web address. Fix: send a URL such as https://shop.example/thank-you."
    return (
        f"No registered brand matches {resolution.host}. "
        "Fix: page_url or domain must match your registered domain."
    )


def brand_id_of_order_event(payload) -> int | None:
    """The brand an order confirmation body resolves to, for the outcome record of a failed request."""
    if not isinstance(payload, dict):
        return None
    brand = _resolve_event(payload).brand
    return brand.id if brand else None


def _set(result: Result, outcome: Outcome, text: str) -> Result:
    result.outcome, result.text = outcome, text
    return result


def _duplicate(result: Result, order_id: str) -> Result:
    return _set(
        result,
        Outcome.DUPLICATE_ORDER,
        f"Order {order_id} was already received; this repeat was ignored. Fix: send each order once.",
    )


# Step 4 of D3 and the optional fields whose wrong type would change the decision: invalid_params.
_OTHER_FIELDS = (
    ("currency", parsing.parse_currency, "send the order's three-letter ISO 4217 code, such as USD"),
    ("test", parsing.parse_bool, "send true or false, or leave it out"),
    ("is_returning_customer", parsing.parse_bool, "send true or false, or leave it out"),
    (
        "code",
        lambda value: parsing.parse_optional_text(value, max_length=100),
        "send the discount code as a string, or leave it out",
    ),
    (
        "customer_email",
        parsing.parse_optional_email,
        "send the shopper's address as a string, or leave it out",
    ),
)


def _parse_confirmation(payload: dict, result: Result) -> _Confirmation | None:
    """Steps 2-5 of D3. On a bad field, fill `result` with its outcome and return None."""
    try:
        order_id = parsing.parse_order_id(payload.get("orderId"))
    except parsing.FieldError as exc:
        what = "is missing" if payload.get("orderId") is None else exc
        _set(
            result,
            Outcome.INVALID_ORDER_ID,
            f"orderId {what}. Fix: send your order's id as a string or an integer.",
        )
        return None
    result.order_id = order_id

    try:
        amount = parsing.parse_amount(payload.get("orderAmount"), allow_zero=False)
    except parsing.FieldError as exc:
        what = "is missing" if payload.get("orderAmount") is None else exc
        _set(
            result,
            Outcome.INVALID_ORDER_AMOUNT,
            f"orderAmount {what}. Fix: send a number greater than 0 without symbols or markup, such as 59.90.",
        )
        return None

    parsed = {}
    for name, parse, fix in _OTHER_FIELDS:
        try:
            parsed[name] = parse(payload.get(name))
        except parsing.FieldError as exc:
            what = "is missing" if payload.get(name) is None else exc
            _set(result, Outcome.INVALID_PARAMS, f"{name} {what}. Fix: {fix}.")
            return None
    is_test = parsed["test"]
    result.is_test = is_test

    try:
        click_id = parsing.parse_optional_text(payload.get("clickId"), max_length=255)
    except parsing.FieldError:
        click_id = "<unreadable>"
    if click_id is not None and not parsing.is_click_id(click_id):
        _set(
            result,
            Outcome.MALFORMED_CLICK_ID,
            "clickId could not be read. Fix: send the sms_click_id cookie value exactly as stored "
            "(no quotes, no URL encoding, no cookie name).",
        )
        return None

    warnings = []
    closes_at = None
    if payload.get("returnWindowClosesAt") not in (None, ""):
        try:
            closes_at = parsing.parse_timestamp(payload["returnWindowClosesAt"])
        except parsing.FieldError as exc:
            warnings.append(
                f"returnWindowClosesAt {exc}; the order was kept without it. "
                "Send ISO 8601 such as 2026-12-24T00:00:00Z or Unix epoch seconds."
            )

    return _Confirmation(
        order_id=order_id,
        amount=amount,
        currency=parsed["currency"],
        is_test=is_test,
        is_returning_customer=parsed["is_returning_customer"],
        click_id=click_id,
        code=parsed["code"],
        email_hash=parsing.hash_email(parsed["customer_email"]) if parsed["customer_email"] else None,
        return_window_closes_at=closes_at,
        warnings=warnings,
    )


# The click and code lookups of every attributed order, written out: a queryset with select_related
# costs ~0.5 ms of Python to compile per call, raw() ~0.1 ms and still converts the columns by field.
_CLICK_SQL = f"""
    SELECT click.id, click.brand_id, click.property_id, click.creator_id, click.clicked_at,
           creator.is_active AS creator_is_active
    FROM {Click._meta.db_table} click JOIN {Creator._meta.db_table} creator ON creator.id = click.creator_id
    WHERE click.click_id = %s
"""
# LOWER(code) as in the unique constraint code_unique_ci_per_brand, whose index it uses; both sides are
# lowered by the database, so a code matches exactly when the constraint would call it the same code.
_CODE_SQL = f"""
    SELECT code.id, code.creator_id, code.is_blacklisted, creator.is_active AS creator_is_active
    FROM {DiscountCode._meta.db_table} code
    LEFT JOIN {Creator._meta.db_table} creator ON creator.id = code.creator_id
    WHERE code.brand_id = %s AND LOWER(code.code) = LOWER(%s)
"""


def _click(click_id: str) -> Click | None:
    """The click, with `creator_is_active`."""
    return next(iter(Click.objects.raw(_CLICK_SQL, [click_id])), None)


def _discount_code(brand_id: int, code: str) -> DiscountCode | None:
    """The brand's code, matched case-insensitively, with `creator_is_active`."""
    return next(iter(DiscountCode.objects.raw(_CODE_SQL, [brand_id, code])), None)


def _decide(*, brand: BrandInfo, resolution: Resolution, fields: _Confirmation, received_at) -> _Decision:
    """Steps 8-13 of D3: reads only; the order is stored afterwards."""
    if resolution.is_unregistered_property:
        return _Decision(Outcome.UNREGISTERED_PROPERTY, detail=resolution.host or "")
    if brand.storefront_handles_orders:
        return _Decision(Outcome.SHOPIFY_HANDOFF)

    fallback = None
    if fields.click_id:
        click = _click(fields.click_id)
        if click is None:
            return _Decision(Outcome.CLICK_NOT_FOUND)
        if click.brand_id != brand.id:
            fallback = _Decision(Outcome.CROSS_BRAND_CLICK)
        elif click.property_id != resolution.property_id:
            fallback = _Decision(Outcome.PROPERTY_MISMATCH)
        elif received_at - click.clicked_at > timedelta(days=brand.attribution_window_days):
            fallback = _Decision(Outcome.EXPIRED_CLICK)
        elif not click.creator_is_active:
            return _Decision(Outcome.BANNED_USER, attribution=Attribution.CLICK, click=click)
        else:
            return _Decision(Outcome.TRACKED, Attribution.CLICK, click=click, creator_id=click.creator_id)

    if fields.code:
        code = _discount_code(brand.id, fields.code)
        if code is not None and not code.is_blacklisted and code.creator_is_active:
            return _Decision(
                Outcome.TRACKED, Attribution.CODE, discount_code=code, creator_id=code.creator_id
            )
        if fallback is None:
            if code is None:
                return _Decision(Outcome.UNREGISTERED_CODE, detail=fields.code)
            if code.is_blacklisted:
                return _Decision(Outcome.BLACKLISTED_CODE, discount_code=code)
            return _Decision(Outcome.BANNED_USER, Attribution.CODE, discount_code=code)

    if fields.email_hash and (fallback is not None or not fields.code):
        shopper = (
            KnownShopper.objects.select_related("creator")
            .filter(brand_id=brand.id, email_hash=fields.email_hash, creator__is_active=True)
            .first()
        )
        if shopper is not None:
            return _Decision(Outcome.TRACKED, Attribution.SHOPPER, creator_id=shopper.creator_id)

    return fallback or _Decision(Outcome.NO_ATTRIBUTION)


_MESSAGES = {
    Outcome.TRACKED: "Order attributed; a commission was created.",
    Outcome.NO_ATTRIBUTION: "Order recorded; it matched no click, discount code or known shopper.",
    Outcome.SHOPIFY_HANDOFF: "Order recorded and handed off to your storefront-platform integration.",
    Outcome.BLACKLISTED_CODE: "Order recorded; its discount code is excluded from tracking.",
    Outcome.EXPIRED_CLICK: "Order recorded; the click is older than the attribution window, so no commission.",
    Outcome.CROSS_BRAND_CLICK: "Order recorded; the click belongs to another brand, so no commission.",
    Outcome.PROPERTY_MISMATCH: "Order recorded; the click was made on another of your properties, so no commission.",
    Outcome.BANNED_USER: "Order recorded; the attributed account is inactive, so no commission was created.",
}


def _message(decision: _Decision) -> str:
    if decision.outcome == Outcome.UNREGISTERED_PROPERTY:
        return (
            f"Order recorded but not attributed: {decision.detail} is not a registered property. "
            "Fix: ask your account manager to register it, or send page_url from a registered property."
        )
    if decision.outcome == Outcome.UNREGISTERED_CODE:
        return (
            f"Order recorded, but discount code {decision.detail!r} is not registered to a creator. "
            "Fix: register the code to the matching creator's account."
        )
    return _MESSAGES[decision.outcome]


# The rows order events write, by statements built once (config/db/statements.py).
_insert_order = InsertStatement(Order)
_insert_commission = InsertStatement(Commission)
_insert_amount_change = InsertStatement(AmountChange)


def _store(*, result, brand, resolution, fields, decision, received_at) -> Result:
    """Store the order (and its commission when tracked) in one transaction.

    The unique constraint on (brand, order id, test) decides duplicates, so two racing requests
    for one order give one stored order and one duplicate_order.
    """
    rate = brand.rate_for(is_returning_customer=fields.is_returning_customer)
    tracked = decision.outcome == Outcome.TRACKED
    try:
        # Most orders are a single INSERT, atomic on its own in autocommit: the transaction's two
        # extra round trips are paid only when a commission is written with the order. Inside an
        # outer transaction (spool replay) a savepoint keeps a duplicate from aborting it.
        with transaction.atomic() if tracked or connection.in_atomic_block else nullcontext():
            order_pk = _insert_order(
                brand_id=brand.id,
                order_id=fields.order_id,
                is_test=fields.is_test,
                amount=fields.amount,
                currency=fields.currency,
                is_returning_customer=fields.is_returning_customer,
                return_window_closes_at=fields.return_window_closes_at,
                property_id=resolution.property_id,
                page_host=resolution.host or "",
                outcome=decision.outcome,
                attribution=decision.attribution,
                click_id=decision.click.pk if decision.click else None,
                discount_code_id=decision.discount_code.pk if decision.discount_code else None,
                code_sent=fields.code or "",
                creator_id=decision.creator_id,
                received_at=received_at,
            )
            if tracked:
                _insert_commission(
                    brand_id=brand.id,
                    order_id=order_pk,
                    creator_id=decision.creator_id,
                    is_test=fields.is_test,
                    order_amount=fields.amount,
                    currency=fields.currency,
                    rate_percent=rate,
                    amount=commission_amount(fields.amount, rate, fields.currency),
                    created_at=received_at,
                    updated_at=received_at,
                )
    except IntegrityError:
        if Order.objects.filter(brand_id=brand.id, order_id=fields.order_id, is_test=fields.is_test).exists():
            return _duplicate(result, fields.order_id)
        logger.exception("order insert violated a constraint", extra={"brand_id": brand.id})
        return _insert_failed(result)
    except DatabaseError:
        logger.exception("order insert failed", extra={"brand_id": brand.id})
        return _insert_failed(result)
    return _set(result, decision.outcome, _message(decision))


INSERT_FAILED_TEXT = (
    "Event received; saving it failed on our side and it is kept for processing. Nothing to change."
)
HANDLER_ERROR_TEXT = "Event received; a processing error occurred on our side and it is kept for processing. Nothing to change."


def _insert_failed(result: Result) -> Result:
    return _set(result, Outcome.INSERT_FAILED, INSERT_FAILED_TEXT)


# --- cancel and update (authenticated by developer key) ----------------------------------------


@dataclass
class _Change:
    """Fields of a cancel or update event after the D4 rules."""

    order_id: str
    is_test: bool
    new_order_amount: Decimal | None = None
    currency: str | None = None


def _brand_of_key(*, key, payload: dict, result: Result) -> int | None:
    """The key's brand (D6), if active and the optional `domain` is one of its properties."""
    if not key.brand_is_active:
        _set(
            result,
            Outcome.UNRESOLVED_DOMAIN,
            "The brand of this developer key is inactive. Fix: contact your account manager.",
        )
        return None
    domain = payload.get("domain")
    if domain not in (None, ""):
        resolution = resolve_host(domain) if isinstance(domain, str) else Resolution(host=None)
        if resolution.property_id is None or resolution.brand.id != key.brand_id:
            shown = resolution.host or "domain"
            _set(
                result,
                Outcome.UNRESOLVED_DOMAIN,
                f"{shown} is not a registered property of your brand. "
                "Fix: send one of your registered domains, or leave domain out.",
            )
            return None
    return key.brand_id


def _parse_change(payload, result: Result, *, required: tuple[str, ...]) -> _Change | None:
    if not isinstance(payload, dict):
        _set(
            result,
            Outcome.INVALID_PARAMS,
            'The request body must be a JSON object. Fix: send {"order_id": ...}.',
        )
        return None
    try:  # a test event rejected below is still counted apart from live ones (D5)
        result.is_test = parsing.parse_bool(payload.get("test"))
    except parsing.FieldError:
        pass
    missing = [name for name in required if payload.get(name) is None]
    if missing:
        _set(
            result,
            Outcome.INVALID_PARAMS,
            f"Missing required field(s): {', '.join(missing)}. Fix: send {', '.join(required)}.",
        )
        return None
    try:
        order_id = parsing.parse_order_id(payload["order_id"])
    except parsing.FieldError as exc:
        _set(result, Outcome.INVALID_PARAMS, f"order_id {exc}. Fix: send the orderId of the original order.")
        return None
    result.order_id = order_id
    change = _Change(order_id=order_id, is_test=False)
    if "new_order_amount" in required:
        try:
            change.new_order_amount = parsing.parse_amount(payload["new_order_amount"], allow_zero=True)
        except parsing.FieldError as exc:
            _set(
                result,
                Outcome.INVALID_ORDER_AMOUNT,
                f"new_order_amount {exc}. Fix: send the order's new total as a plain number such as 49.90.",
            )
            return None
        try:
            change.currency = parsing.parse_currency(payload["currency"])
        except parsing.FieldError as exc:
            _set(
                result,
                Outcome.INVALID_PARAMS,
                f"currency {exc}. Fix: send the order's currency, such as USD.",
            )
            return None
    try:
        change.is_test = parsing.parse_bool(payload.get("test"))
    except parsing.FieldError as exc:
        _set(result, Outcome.INVALID_PARAMS, f"test {exc}. Fix: send true or false, or leave it out.")
        return None
    result.is_test = change.is_test
    return change


# Every cancel and update locks its commission through the order's unique index (the scalar subquery
# keeps the planner from walking all of a brand's commissions when its statistics are stale). Written
# out because a select_for_update queryset with a subquery costs ~0.6 ms of Python to compile per call.
_LOCKED_COMMISSION_SQL = f"""
    SELECT * FROM {Commission._meta.db_table}
    WHERE brand_id = %s AND order_id = (
        SELECT id FROM {Order._meta.db_table} WHERE brand_id = %s AND order_id = %s AND is_test = %s
    )
"""


def _locked_commission(*, brand_id: int, change: _Change) -> Commission | None:
    """The commission of a brand's order, row-locked until the transaction ends (where the database can)."""
    sql = _LOCKED_COMMISSION_SQL
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    params = [brand_id, brand_id, change.order_id, change.is_test]
    return next(iter(Commission.objects.raw(sql, params)), None)


def _not_found(result: Result, change: _Change) -> Result:
    namespace = "test" if change.is_test else "live"
    return _set(
        result,
        Outcome.ORDER_NOT_FOUND,
        f"No commission for {namespace} order {change.order_id} (usually the order was not attributed).",
    )


def _change_time(commission: Commission, received_at: datetime) -> datetime:
    """When a change happened: its arrival, but never before the commission's previous change.

    Racing requests are applied in lock order, not arrival order (and workers' clocks differ), so
    the history's order by time stays the order in which the changes were applied.
    """
    return max(received_at, commission.updated_at)


def move_commission(
    commission: Commission, state: Commission.State, *, at: datetime, statement: Statement | None = None
) -> None:
    """The one way a commission changes state: checks the allowed moves; the caller holds the row lock.

    A lock puts the commission on `statement` (and only a lock does); a payment freezes the amount paid.
    """
    if not commission.can_move_to(state):
        raise ValueError(f"commission {commission.pk}: {commission.state} -> {state} is not allowed")
    if (state == Commission.State.LOCKED) != (statement is not None):
        raise ValueError(f"commission {commission.pk}: a commission locks onto a statement, and only then")
    commission.state = state
    commission.updated_at = at
    stamp = {
        Commission.State.CANCELLED: "cancelled_at",
        Commission.State.LOCKED: "locked_at",
        Commission.State.PAID: "paid_at",
    }[state]
    setattr(commission, stamp, at)
    fields = ["state", "updated_at", stamp]
    if state == Commission.State.LOCKED:
        commission.statement = statement
        fields.append("statement")
    if state == Commission.State.PAID:
        commission.paid_amount = commission.amount
        fields.append("paid_amount")
    save_fields(commission, fields)


def cancel_commission(*, key, payload, received_at: datetime, request_id: str = "") -> Result:
    """Cancel the commission of an order (section 4.2); a second cancel is already_cancelled.

    A paid commission is cancelled too, and its amount clawed back on the next open statement.
    """
    result = Result(Outcome.INVALID_PARAMS, "", brand_id=key.brand_id)
    change = _parse_change(payload, result, required=("order_id",))
    if change is None:
        return result
    brand_id = _brand_of_key(key=key, payload=payload, result=result)
    if brand_id is None:
        return result
    try:
        with transaction.atomic():
            commission = _locked_commission(brand_id=brand_id, change=change)
            if commission is None:
                return _not_found(result, change)
            if commission.state == Commission.State.CANCELLED:
                return _set(
                    result,
                    Outcome.ALREADY_CANCELLED,
                    f"The commission of order {change.order_id} was already cancelled.",
                )
            was_paid = commission.state == Commission.State.PAID
            cancelled_at = _change_time(commission, received_at)
            move_commission(commission, Commission.State.CANCELLED, at=cancelled_at)
            clawback = None
            if was_paid:
                clawback = billing.carry_adjustment(
                    commission,
                    amount=-commission.amount,
                    reason=Adjustment.Reason.CANCEL,
                    at=cancelled_at,
                    request_id=request_id,
                )
    except DatabaseError:
        # Section 4.2 lists no insert_failed for cancel: its service-side fault is handler_error.
        logger.exception("cancel failed", extra={"brand_id": brand_id})
        return _set(
            result,
            Outcome.HANDLER_ERROR,
            "Event received; cancelling failed on our side and the event is kept for processing. "
            "Nothing to change.",
        )
    if was_paid:
        return _set(
            result,
            Outcome.TRACKED,
            f"The commission of order {change.order_id} was cancelled after it was paid"
            + (f"; {_clawback_text(clawback)}." if clawback else "; nothing was left to claw back."),
        )
    return _set(result, Outcome.TRACKED, f"The commission of order {change.order_id} was cancelled.")


def _clawback_text(adjustment: Adjustment) -> str:
    what = "clawed back" if adjustment.amount < 0 else "added"
    return (
        f"{_money(abs(adjustment.amount), adjustment.currency)} {adjustment.currency} is {what} "
        f"on your statement of {adjustment.statement.label}"
    )


def update_commission(*, key, payload, received_at: datetime, request_id: str = "") -> Result:
    """Set a commission's order amount (section 4.3), keeping the old and new amounts in its history.

    Once paid, the difference is billed as an adjustment on the next open statement.
    """
    result = Result(Outcome.INVALID_PARAMS, "", brand_id=key.brand_id)
    change = _parse_change(payload, result, required=("order_id", "new_order_amount", "currency"))
    if change is None:
        return result
    brand_id = _brand_of_key(key=key, payload=payload, result=result)
    if brand_id is None:
        return result
    try:
        with transaction.atomic():
            commission = _locked_commission(brand_id=brand_id, change=change)
            if commission is None:
                return _not_found(result, change)
            if commission.state == Commission.State.CANCELLED:
                return _set(
                    result,
                    Outcome.ALREADY_CANCELLED,
                    f"The commission of order {change.order_id} is cancelled; its amount was not changed.",
                )
            if change.currency != commission.currency:
                return _set(
                    result,
                    Outcome.INVALID_PARAMS,
                    f"currency {change.currency} differs from the order's {commission.currency}. "
                    "Fix: send the new total in the order's currency.",
                )
            new_amount = commission_amount(
                change.new_order_amount, commission.rate_percent, commission.currency
            )
            changed_at = _change_time(commission, received_at)
            _insert_amount_change(
                commission_id=commission.pk,
                brand_id=brand_id,
                old_order_amount=commission.order_amount,
                new_order_amount=change.new_order_amount,
                old_amount=commission.amount,
                new_amount=new_amount,
                changed_at=changed_at,
                request_id=request_id,
            )
            adjustment = None
            if commission.state == Commission.State.PAID:
                adjustment = billing.carry_adjustment(
                    commission,
                    amount=new_amount - commission.amount,
                    reason=Adjustment.Reason.UPDATE,
                    at=changed_at,
                    request_id=request_id,
                )
            commission.order_amount, commission.amount = change.new_order_amount, new_amount
            commission.updated_at = changed_at
            save_fields(commission, ["order_amount", "amount", "updated_at"])
    except DatabaseError:
        logger.exception("update failed", extra={"brand_id": brand_id})
        return _insert_failed(result)
    text = (
        f"The commission of order {change.order_id} now follows the new total "
        f"{_total(change.new_order_amount, change.currency)} {change.currency}."
    )
    if commission.state == Commission.State.PAID:
        text += (
            f" It was already paid: {_clawback_text(adjustment)}."
            if adjustment
            else " It was already paid; the amount is unchanged, so nothing is billed."
        )
    return _set(result, Outcome.TRACKED, text)


def order_for_reconciliation(*, brand_id: int, order_id: str, is_test: bool) -> dict | None:
    """The read API's view of a brand's own order (decision D14); None for another brand's or unknown."""
    order = (
        Order.objects.select_related("commission__statement")
        .filter(brand_id=brand_id, order_id=order_id, is_test=is_test)
        .first()
    )
    if order is None:
        return None
    commission = getattr(order, "commission", None)
    body = {
        "order": {
            "order_id": order.order_id,
            "amount": _plain(order.amount),
            "currency": order.currency,
            "is_test": order.is_test,
            "outcome": order.outcome,
            "received_at": order.received_at.isoformat(),
        },
        "commission": None,
    }
    if commission is not None:
        body["commission"] = {
            "state": commission.state,
            "amount": _money(commission.amount, commission.currency),
            "currency": commission.currency,
            "rate_percent": str(commission.rate_percent),
            "order_amount": _plain(commission.order_amount),
            "created_at": commission.created_at.isoformat(),
            "cancelled_at": commission.cancelled_at.isoformat() if commission.cancelled_at else None,
            "locked_at": commission.locked_at.isoformat() if commission.locked_at else None,
            "paid_at": commission.paid_at.isoformat() if commission.paid_at else None,
            "paid_amount": _money(commission.paid_amount, commission.currency)
            if commission.paid_amount is not None
            else None,
            "statement": f"{billed.month:%Y-%m}" if (billed := commission.billed_statement) else None,
            "history": [
                {
                    "changed_at": c.changed_at.isoformat(),
                    "old_order_amount": _plain(c.old_order_amount),
                    "new_order_amount": _plain(c.new_order_amount),
                    "old_amount": _money(c.old_amount, commission.currency),
                    "new_amount": _money(c.new_amount, commission.currency),
                    "request_id": c.request_id,
                }
                for c in commission.amount_changes.all()
            ],
            # Only a paid commission has adjustments: other reads skip the query.
            "adjustments": [
                {
                    "created_at": a.created_at.isoformat(),
                    "reason": a.reason,
                    "amount": _money(a.amount, a.currency),
                    "currency": a.currency,
                    "statement": f"{a.statement.month:%Y-%m}",
                    "request_id": a.request_id,
                }
                for a in commission.adjustments.select_related("statement")
            ]
            if commission.paid_at is not None
            else [],
        }
    return body


def _plain(value: Decimal) -> str:
    """A stored amount without the storage's trailing zeros: 59.900000 -> "59.9", 100 -> "100"."""
    return format(value.normalize() + 0, "f")  # + 0: a zero sent as -0.0 reads 0


def _total(value: Decimal, currency: str) -> str:
    """An order total as a person writes it: 49.90 and 1000000.00 USD, 59.905 USD kept whole."""
    exact = _plain(value)
    if "." in exact and len(exact.partition(".")[2]) > parsing.currency_exponent(currency):
        return exact
    return _money(value, currency)


def _money(value: Decimal, currency: str) -> str:
    """A commission amount in the currency's minor units: "5.99" USD, "599" JPY."""
    return str(value.quantize(Decimal(1).scaleb(-parsing.currency_exponent(currency))))
