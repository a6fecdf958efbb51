"""What every floor does per request: read the body, run one statement (two for a keyed request), answer.

Each event is judged only as far as the bench traffic needs (bench/mixed_orders.lua, bench/changes.lua)
and stored in one data-modifying statement (bench/floor/statements.py), one durable commit before the
answer:

- order confirmation: `order_direct`, `order_by_click`, `order_by_code` store the order (and the
  commission when tracked) and the outcome row; `ON CONFLICT` on the order's unique (brand_id,
  order_id, is_test) decides a duplicate, whose outcome row is still written. A body the floor refuses
  (an unusable amount, say) stores its outcome row alone (`outcome_only`), as the project does.
- cancel and update: `KEY` finds the developer key by its prefix (the SHA-512 hash is compared here, in
  Python, as the project does), then `cancel` or `update` locks and changes the commission, writes its
  history row and the outcome row.
- a tracked order's commission locks its conversion into the brand's reporting currency as the project's
  does (attribution.fx): the rates of the order's Frankfurt date, read once per day per process (one more
  read, as the project's day cache), through the euro, rounded once; an update converts at the locked rate.

Not judged here, because the bench never sends it: paid commissions (adjustments), the optional
`domain` of cancel/update, known shoppers, storefront hand-off, unregistered properties and the
finer click and code outcomes (a click or code that does not qualify leaves the order unattributed).
The decision's trace is stored as the project stores it for this traffic: `[]` for a direct order, one
`attributed` step with its sentence for an order by click or code (built in SQL).

`query(sql, params)` runs one statement and returns its first row: the Django floors pass one over
`django.db.connection.cursor()`, the plain-WSGI floor one over a psycopg connection. `sql` picks the
schema's statements: the project's tables (`SAME_SCHEMA`, the default) or the minimal schema's.
"""

import hashlib
import hmac
import json
import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from functools import cache
from typing import NamedTuple
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import iso4217

from .answers import (
    ALREADY_CANCELLED,
    CANCELLED,
    CANCELLED_NOT_UPDATED,
    DUPLICATE,
    NO_ATTRIBUTION,
    NOT_FOUND,
    STATUS,
    TRACKED_ORDER,
    UPDATED,
    WRONG_CURRENCY,
    Answer,
    envelope,
)
from .statements import KEY, SAME_SCHEMA, SITE, Statements

Query = Callable[[str, Mapping], tuple | None]


def _stored(raw: bytes, data) -> str:
    """The request body as the outcome row keeps it: the text as sent (the project also replaces any email
    address by its hash; the bench's bodies carry none), or a preview of a body that is not JSON."""
    if data is None:
        return raw[:2000].decode(errors="replace")
    return raw.decode()


def _amount(value, *, allow_zero: bool) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        amount = Decimal(value.strip() if isinstance(value, str) else str(value))
    except (InvalidOperation, TypeError, ValueError):
        return None
    if not amount.is_finite() or amount < 0 or (amount == 0 and not allow_zero) or amount >= 10**12:
        return None
    return amount


@cache
def _exponent(currency) -> int | None:
    """The currency's minor units (ISO 4217), None when it is no currency."""
    if not isinstance(currency, str) or len(currency) != 3:
        return None
    try:
        return iso4217.Currency(currency.upper()).exponent
    except ValueError:
        return None


_FRANKFURT = ZoneInfo("Europe/Berlin")  # the ECB dates its rates by Frankfurt's calendar


class Site(NamedTuple):
    property_id: int
    brand_id: int
    window_days: int
    rate: Decimal
    returning_rate: Decimal | None
    reporting_currency: str


_SITE_SECONDS = int(os.environ.get("BRAND_RESOLUTION_CACHE_SECONDS", "60"))
_sites: dict[str, tuple[float, Site | None]] = {}


def _host(data: dict) -> str | None:
    value = data.get("domain") or data.get("page_url")
    if not isinstance(value, str):
        return None
    try:
        return urlsplit(value if "//" in value else "//" + value).hostname
    except ValueError:
        return None


def _site(query: Query, host: str | None) -> Site | None:
    if not host:
        return None
    cached = _sites.get(host)
    if cached is None or cached[0] < time.monotonic():
        row = query(SITE, {"host": host})
        cached = _sites[host] = (time.monotonic() + _SITE_SECONDS, Site(*row) if row else None)
    return cached[1]


def _refuse(
    query: Query,
    sql: Statements,
    endpoint: str,
    outcome: str,
    text: str,
    *,
    raw,
    data,
    received_at,
    request_id,
    brand_id=None,
    order_id="",
    key_prefix="",
) -> Answer:
    body = envelope(outcome, text)
    query(
        sql.outcome_only,
        {
            "brand_id": brand_id,
            "endpoint": endpoint,
            "outcome": outcome,
            "status": STATUS[outcome],
            "order_id": order_id,
            "is_test": False,
            "received_at": received_at,
            "request_id": request_id,
            "key_prefix": key_prefix,
            "request_body": _stored(raw, data) if raw else None,
            "response_body": json.dumps(body),
        },
    )
    return Answer(STATUS[outcome], body)


def order_confirmation(
    query: Query, raw: bytes, data, request_id: str, *, sql: Statements = SAME_SCHEMA
) -> Answer:
    """POST /api/order_confirmation."""
    received_at = datetime.now(UTC)
    refuse = {"raw": raw, "data": data, "received_at": received_at, "request_id": request_id}
    if not isinstance(data, dict):
        return _refuse(query, sql, "order_confirmation", "invalid_params", "Send a JSON object.", **refuse)
    host = _host(data)
    site = _site(query, host)
    refuse["brand_id"] = site.brand_id if site else None
    order_id = data.get("orderId")
    order_id = (
        str(order_id).strip() if isinstance(order_id, str | int) and not isinstance(order_id, bool) else ""
    )
    if not order_id or len(order_id) > 255:
        return _refuse(query, sql, "order_confirmation", "invalid_order_id", "orderId is missing.", **refuse)
    refuse["order_id"] = order_id
    amount = _amount(data.get("orderAmount"), allow_zero=False)
    if amount is None:
        text = "orderAmount must be a plain number greater than 0, such as 59.90."
        return _refuse(query, sql, "order_confirmation", "invalid_order_amount", text, **refuse)
    currency = data.get("currency")
    exponent = _exponent(currency)
    if exponent is None:
        return _refuse(
            query, sql, "order_confirmation", "invalid_params", "currency is no ISO 4217 code.", **refuse
        )
    if site is None:
        return _refuse(
            query, sql, "order_confirmation", "unresolved_domain", "No registered brand.", **refuse
        )

    returning = data.get("is_returning_customer") is True
    rate = site.returning_rate if returning and site.returning_rate is not None else site.rate
    code = data.get("code")
    code = code.strip() if isinstance(code, str) else ""
    click_id = data.get("clickId")
    params = {
        "endpoint": "order_confirmation",
        "brand_id": site.brand_id,
        "property_id": site.property_id,
        "host": host,
        "order_id": order_id,
        "is_test": data.get("test") is True,
        "amount": amount,
        "currency": currency.upper(),
        "returning": returning,
        "code": code,
        "received_at": received_at,
        "request_id": request_id,
        "key_prefix": "",
        "request_body": _stored(raw, data),
        "duplicate_text": DUPLICATE.format(order_id),
    }
    if click_id or code:
        params["rate"] = rate
        params["commission"] = (amount * rate / 100).quantize(Decimal(1).scaleb(-exponent), ROUND_HALF_UP)
        params.update(_locked_conversion(query, params["commission"], params["currency"], site, received_at))
    if click_id:
        params["click_id"] = str(click_id)
        params["window_start"] = received_at - timedelta(days=site.window_days)
        params["window_days"] = site.window_days
        statement = sql.order_by_click
    elif code:
        statement = sql.order_by_code
    else:
        statement = sql.order_direct
    outcome = query(statement, params)[0]
    text = (
        DUPLICATE.format(order_id)
        if outcome == "duplicate_order"
        else (TRACKED_ORDER if outcome == "tracked" else NO_ATTRIBUTION)
    )
    return Answer(STATUS[outcome], envelope(outcome, text))


_RATES = """
SELECT day, array_agg(currency), array_agg(per_euro), array_agg(source) FROM attribution_fxrate
WHERE day = (SELECT max(day) FROM attribution_fxrate WHERE day <= %(day)s) GROUP BY day"""
_EXACT = Context(prec=80)  # the product before its one rounding (attribution.money.at_rate)
_rates: dict = {}  # day -> (published, {currency: (per euro, source)}): per process, as the project's


def _rates_on(query: Query, day) -> tuple:
    if day not in _rates:  # the bench's days are all published: a day's rates are final once read
        row = query(_RATES, {"day": day})
        rates = {c: (r.normalize(), src) for c, r, src in zip(*row[1:], strict=True)} if row else {}
        _rates[day] = (row[0] if row else None, rates)
    return _rates[day]


def _locked_conversion(
    query: Query, commission: Decimal, currency: str, site: Site, received_at: datetime
) -> dict:
    """The conversion a new commission locks, as the project's (attribution.fx): at the rates in force on the
    order's Frankfurt date, through the euro at 28 digits, rounded once, half up; rate 1 in its own currency."""
    day, to = received_at.astimezone(_FRANKFURT).date(), site.reporting_currency
    empty = dict(reporting_currency=to, reporting_amount=None, fx_rate="", fx_rate_date=None, fx_source="")
    if currency == to:
        return dict(
            empty,
            reporting_amount=commission,
            fx_rate="1",
            fx_rate_date=day,
            fx_source="same currency",
            fx_reason="",
        )
    published, rates = _rates_on(query, day)
    euro = (Decimal(1), "")
    sides = [euro if code == "EUR" else rates.get(code) for code in (currency, to)]
    if published is None or None in sides:
        return dict(empty, fx_reason="No rate.")  # the bench's currencies all have rates
    (from_rate, from_source), (to_rate, to_source) = sides
    rate = _CROSS.divide(to_rate, from_rate)
    exponent = _exponent(to)
    amount = _EXACT.multiply(commission, rate).quantize(Decimal(1).scaleb(-exponent), ROUND_HALF_UP)
    return dict(
        reporting_currency=to,
        reporting_amount=amount,
        fx_rate=format(rate, "f"),
        fx_rate_date=published,
        fx_source=from_source or to_source,
        fx_reason="",
    )


_CROSS = Context(prec=28)


def _key(query: Query, authorization: str) -> tuple[str, int, bool] | None:
    """The key's (prefix, brand_id, brand is active), or None when it is unknown, revoked or expired."""
    scheme, _, key = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not key:
        return None
    prefix = key.partition(".")[0]
    row = query(KEY, {"prefix": prefix})
    if row is None:
        return None
    hashed_key, brand_id, expiry_date, brand_is_active = row
    if not hmac.compare_digest(hashed_key, "sha512$$" + hashlib.sha512(key.encode()).hexdigest()):
        return None
    if expiry_date is not None and expiry_date < datetime.now(UTC):
        return None
    return prefix, brand_id, brand_is_active


def change(
    query: Query,
    endpoint: str,
    raw: bytes,
    data,
    authorization: str,
    request_id: str,
    *,
    sql: Statements = SAME_SCHEMA,
) -> Answer:
    """POST /api/Affiliates/cancel (endpoint "cancel") and /api/Affiliates/update ("update")."""
    received_at = datetime.now(UTC)
    refuse = {"raw": raw, "data": data, "received_at": received_at, "request_id": request_id}
    key = _key(query, authorization)
    if key is None:
        return _refuse(
            query, sql, endpoint, "unauthorized", "The developer key is unknown or revoked.", **refuse
        )
    prefix, brand_id, brand_is_active = key
    refuse.update(brand_id=brand_id, key_prefix=prefix)
    order_id = data.get("order_id") if isinstance(data, dict) else None
    order_id = (
        str(order_id).strip() if isinstance(order_id, str | int) and not isinstance(order_id, bool) else ""
    )
    if not order_id:
        return _refuse(
            query, sql, endpoint, "invalid_params", "Missing required field(s): order_id.", **refuse
        )
    refuse["order_id"] = order_id
    if not brand_is_active:
        return _refuse(
            query, sql, endpoint, "unresolved_domain", "The brand of this key is inactive.", **refuse
        )
    is_test = data.get("test") is True
    params = {
        "endpoint": endpoint,
        "brand_id": brand_id,
        "order_id": order_id,
        "is_test": is_test,
        "received_at": received_at,
        "request_id": request_id,
        "key_prefix": prefix,
        "request_body": _stored(raw, data),
        "not_found_text": NOT_FOUND.format("test" if is_test else "live", order_id),
    }
    if endpoint == "cancel":
        params["done_text"] = CANCELLED.format(order_id)
        params["cancelled_text"] = ALREADY_CANCELLED.format(order_id)
        statement = sql.cancel
    else:
        amount = _amount(data.get("new_order_amount"), allow_zero=True)
        if amount is None:
            text = "new_order_amount must be a plain number such as 49.90."
            return _refuse(query, sql, endpoint, "invalid_order_amount", text, **refuse)
        currency = data.get("currency")
        exponent = _exponent(currency)
        if exponent is None:
            return _refuse(query, sql, endpoint, "invalid_params", "currency is no ISO 4217 code.", **refuse)
        currency = currency.upper()
        params["new_order_amount"] = amount
        params["exponent"] = exponent
        params["currency"] = currency
        params["done_text"] = UPDATED.format(order_id, amount, currency)
        params["cancelled_text"] = CANCELLED_NOT_UPDATED.format(order_id)
        params["currency_text"] = WRONG_CURRENCY.format(currency)
        statement = sql.update
    outcome = query(statement, params)[0]
    text = {
        "tracked": params["done_text"],
        "already_cancelled": params["cancelled_text"],
        "order_not_found": params["not_found_text"],
    }.get(outcome) or params.get("currency_text", "")
    return Answer(STATUS[outcome], envelope(outcome, text))
