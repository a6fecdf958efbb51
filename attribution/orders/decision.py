"""The decision of an order confirmation (docs/decisions.md, "Decision order of an order confirmation"),
steps 8-13: which signal credits which creator, each signal consulted noted in the trace; then the
order (and its commission when tracked) it decides to store, and the sentence it answers.

Reads only: attribution.orders.confirmation writes what it decides.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from brands.models import DiscountCode, Property
from brands.resolution import BrandInfo, Resolution

from ..fx import conversion
from ..models import Attribution, Click
from ..outcomes import Outcome, say
from ..plans.store import price_order
from ..review import holds as review_holds
from ..review.runner import review_decision
from . import trace as why
from .incoming import IncomingOrder
from .lookups import Lookups

# The typed order every way in builds once (attribution.orders.incoming). `Fields` is its former name, kept
# until the branches that still say it are merged.
Fields = IncomingOrder


@dataclass
class Decision:
    outcome: Outcome
    attribution: str = Attribution.NONE
    click: Click | None = None
    discount_code: DiscountCode | None = None
    creator_id: int | None = None
    creator_name: str = ""  # issue 38: the credited creator, as the review rules read her
    creator_email_hash: str = ""
    detail: str = ""
    trace: list = field(default_factory=list)  # attribution.orders.trace: the signals consulted, in order


_DATABASE = Lookups()


def decide(
    *,
    brand: BrandInfo,
    resolution: Resolution,
    fields: IncomingOrder,
    received_at,
    lookups: Lookups | None = None,
    via_platform: bool = False,
) -> Decision:
    """Steps 8-13 of the decision order: reads only; the order is stored afterwards. Each signal consulted
    adds its step to the trace (attribution.orders.trace), which is stored with the order. The click window
    is judged at `received_at`. A platform's order (`via_platform`) is the one the hand-off step hands off
    to."""
    lookups = lookups or _DATABASE
    if resolution.is_unregistered_property:
        return Decision(Outcome.UNREGISTERED_PROPERTY, detail=resolution.host or "")
    if brand.storefront_handles_orders and not via_platform:
        return Decision(Outcome.SHOPIFY_HANDOFF)

    trace: list[dict] = []
    fallback = None
    if fields.click_id:
        click = lookups.click(fields.click_id)  # with creator_is_active, creator_name
        if click is None:
            trace.append(why.click_not_found(fields.click_id))
            return Decision(Outcome.CLICK_NOT_FOUND, trace=trace)
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
            return Decision(Outcome.BANNED_USER, attribution=Attribution.CLICK, click=click, trace=trace)
        else:
            trace.append(why.click_attributed(click.click_id, click.creator_name, elapsed, window))
            return Decision(
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
            return Decision(
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
                return Decision(Outcome.UNREGISTERED_CODE, detail=fields.code, trace=trace)
            if code.is_blacklisted:
                return Decision(Outcome.BLACKLISTED_CODE, discount_code=code, trace=trace)
            return Decision(Outcome.BANNED_USER, Attribution.CODE, discount_code=code, trace=trace)

    if fields.email_hash and (fallback is not None or not fields.code):
        shopper = lookups.shopper(brand.id, fields.email_hash)
        if shopper is not None:
            trace.append(why.shopper_attributed(shopper.creator.name))
            return Decision(
                Outcome.TRACKED,
                Attribution.SHOPPER,
                creator_id=shopper.creator_id,
                creator_name=shopper.creator.name,
                creator_email_hash=shopper.creator.email_hash,
                trace=trace,
            )
        trace.append(why.shopper_not_known())

    return Decision(fallback or Outcome.NO_ATTRIBUTION, trace=trace)


def _host_of(property_id: int | None) -> str:
    """The host a click's property serves (only a property mismatch asks, so it is not on the hot path)."""
    if property_id is None:
        return ""
    return Property.objects.filter(pk=property_id).values_list("host", flat=True).first() or ""


def message(decision: Decision) -> str:
    """The answer to a stored order: the outcome's sentence (TEXTS "order.<outcome>")."""
    if decision.outcome == Outcome.UNREGISTERED_PROPERTY:
        return say("order.unregistered_property", host=decision.detail)
    if decision.outcome == Outcome.UNREGISTERED_CODE:
        return say("order.unregistered_code", code=decision.detail)
    return say(f"order.{decision.outcome}")


def rows_to_store(
    *, brand, resolution, fields, decision, received_at, ordered_at=None
) -> tuple[dict, dict | None]:
    """The order (and its commission when tracked) to store; its unique key (brand, order id, test)
    decides duplicates when it is written, so two racing requests give one order and one duplicate_order.
    The commission is converted into the brand's reporting currency at the rates of `ordered_at`, when the
    order was placed (a platform's or a book's date), else of `received_at` (docs/currencies.md)."""
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
        # issue 56: the brand's plan in effect when the order was placed prices it, line by line when it
        # names lines; the calculation is kept with the commission (attribution.plans).
        priced = price_order(
            brand=brand, fields=fields, creator_id=decision.creator_id, at=ordered_at or received_at
        )
        rate, amount = priced.rate_percent, priced.amount
        if priced.version != 1:  # a plan of the brand's own: the trace names its rules
            order["trace"] = [*decision.trace, why.plan_priced(priced.calculation)]
        converted = conversion.convert(
            amount, fields.currency, to=brand.reporting_currency, ordered_at=ordered_at or received_at
        )
        commission = {
            "brand_id": brand.id,
            "creator_id": decision.creator_id,
            "is_test": fields.is_test,
            "order_amount": fields.amount,
            "currency": fields.currency,
            "rate_percent": rate,
            "amount": amount,
            "plan_version": priced.version,
            "calculation": priced.kept,  # None when it follows from the row (attribution.plans.shown)
            "created_at": received_at,
            "updated_at": received_at,
            # The order's, kept on the commission for the Creators page (attribution.models.Commission).
            "attribution": decision.attribution,
            "is_returning_customer": fields.is_returning_customer,
            **conversion.columns(converted),
        }
        # issue 38: the review rules, in the decision of every way in (docs/review.md); a flagged commission
        # is created held, with each hold's evidence in the order's trace.
        holds = review_decision(brand_id=brand.id, fields=fields, decision=decision, at=received_at)
        if holds:
            review_holds.mark(order, commission, holds)
    return order, commission
