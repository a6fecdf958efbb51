"""What both floors do per request: read the body, run one statement (two for a keyed request), answer.

Each event is judged only as far as the bench traffic needs (bench/mixed_orders.lua, bench/changes.lua)
and stored as the project stores it: the same tables, the same rows with the same columns filled, the
same indexes hit, one durable commit before the answer. Everything the statements need is decided in
the database, in one data-modifying statement per event:

- order confirmation: `ORDER_DIRECT`, `ORDER_BY_CLICK`, `ORDER_BY_CODE` store the order (and the
  commission when tracked) and the outcome row; `ON CONFLICT` on the order's unique (brand_id,
  order_id, is_test) decides a duplicate, whose outcome row is still written. A body the floor refuses
  (an unusable amount, say) stores its outcome row alone (`OUTCOME_ONLY`), as the project does.
- cancel and update: `KEY` finds the developer key by its prefix (the SHA-512 hash is compared here, in
  Python, as the project does), then `CANCEL` or `UPDATE` locks and changes the commission, writes its
  history row and the outcome row.

Not judged here, because the bench never sends it: paid commissions (adjustments), the optional
`domain` of cancel/update, known shoppers, storefront hand-off, unregistered properties and the
finer click and code outcomes (a click or code that does not qualify leaves the order unattributed).
The decision's trace is stored as the project stores it for this traffic: `[]` for a direct order, one
`attributed` step with its sentence for an order by click or code (built here in SQL).

`query(sql, params)` runs one statement and returns its first row: the Django floor passes one over
`django.db.connection.cursor()`, the plain-WSGI floor one over a psycopg connection.
"""

import hashlib
import hmac
import json
import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache
from typing import NamedTuple
from urllib.parse import urlsplit

import iso4217

Query = Callable[[str, Mapping], tuple | None]

STATUS = {
    "tracked": 200,
    "no_attribution": 200,
    "already_cancelled": 200,
    "order_not_found": 200,
    "duplicate_order": 400,
    "invalid_order_amount": 400,
    "invalid_order_id": 400,
    "invalid_params": 400,
    "unresolved_domain": 400,
    "unauthorized": 401,
}

# The sentences the project answers (attribution/services.py), so the outcome rows weigh the same.
TRACKED_ORDER = "Order attributed; a commission was created."
NO_ATTRIBUTION = "Order recorded; it matched no click, discount code or known shopper."
DUPLICATE = "Order {} was already received; this repeat was ignored. Fix: send each order once."
CANCELLED = "The commission of order {} was cancelled."
ALREADY_CANCELLED = "The commission of order {} was already cancelled."
CANCELLED_NOT_UPDATED = "The commission of order {} is cancelled; its amount was not changed."
UPDATED = "The commission of order {} now follows the new total {} {}."
NOT_FOUND = "No commission for {} order {} (usually the order was not attributed)."
WRONG_CURRENCY = "currency {} differs from the order's. Fix: send the new total in the order's currency."


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# --- order confirmation -------------------------------------------------------------------------

_ORDER_COLUMNS = """brand_id, order_id, is_test, amount, currency, is_returning_customer,
        return_window_closes_at, property_id, page_host, outcome, attribution, click_id,
        discount_code_id, code_sent, creator_id, received_at, trace"""

_OUTCOME_COLUMNS = """brand_id, endpoint, outcome, http_status, order_id, is_test, received_at,
    recorded_at, request_id, key_prefix, request_body, response_body, warnings, has_warnings, answered_outcome"""

# The outcome row of what `decided` (outcome, http_status, text) says; its response body is the answer.
_RECORD = f"""
INSERT INTO health_outcomeevent ({_OUTCOME_COLUMNS})
SELECT %(brand_id)s::bigint, %(endpoint)s::varchar, decided.outcome, decided.status, %(order_id)s::varchar,
       %(is_test)s::boolean, %(received_at)s::timestamptz, now(), %(request_id)s::varchar,
       %(key_prefix)s::varchar, %(request_body)s::text,
       jsonb_build_object('success', decided.status < 400, 'outcome', decided.outcome,
                          CASE WHEN decided.status < 400 THEN 'message' ELSE 'error' END, decided.text),
       '[]'::jsonb, false, ''
FROM decided
RETURNING outcome"""

ORDER_DIRECT = f"""
WITH new_order AS (
    INSERT INTO attribution_order ({_ORDER_COLUMNS})
    VALUES (%(brand_id)s, %(order_id)s, %(is_test)s, %(amount)s, %(currency)s, %(returning)s,
            NULL, %(property_id)s, %(host)s, 'no_attribution', 'none', NULL,
            NULL, %(code)s, NULL, %(received_at)s, '[]'::jsonb)
    ON CONFLICT (brand_id, order_id, is_test) DO NOTHING
    RETURNING outcome
), decided (outcome, status, text) AS (
    SELECT outcome::varchar, 200, {_sql_text(NO_ATTRIBUTION)} FROM new_order
    UNION ALL
    SELECT 'duplicate_order', 400, %(duplicate_text)s::text WHERE NOT EXISTS (SELECT FROM new_order)
){_RECORD}"""


def _attributed(lookup: str, column: str, attribution: str) -> str:
    """An order tracked through `lookup` (one indexed read yielding id and creator_id, or no row)."""
    return f"""
WITH source AS ({lookup}
), new_order AS (
    INSERT INTO attribution_order ({_ORDER_COLUMNS})
    SELECT %(brand_id)s::bigint, %(order_id)s::varchar, %(is_test)s::boolean, %(amount)s::numeric,
           %(currency)s::varchar, %(returning)s::boolean, NULL, %(property_id)s::bigint, %(host)s::varchar,
           CASE WHEN source.id IS NULL THEN 'no_attribution' ELSE 'tracked' END,
           CASE WHEN source.id IS NULL THEN 'none' ELSE '{attribution}' END,
           {"source.id" if column == "click_id" else "NULL"},
           {"source.id" if column == "discount_code_id" else "NULL"},
           %(code)s::varchar, source.creator_id, %(received_at)s::timestamptz,
           CASE WHEN source.id IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object(
               'signal', '{attribution}', 'result', 'attributed', 'detail', source.detail)) END
    FROM (VALUES (1)) AS one LEFT JOIN source ON true
    ON CONFLICT (brand_id, order_id, is_test) DO NOTHING
    RETURNING id, outcome, creator_id
), new_commission AS (
    INSERT INTO attribution_commission (brand_id, order_id, creator_id, is_test, state, order_amount,
        amount, currency, rate_percent, created_at, updated_at)
    SELECT %(brand_id)s::bigint, id, creator_id, %(is_test)s::boolean, 'pending', %(amount)s::numeric,
           %(commission)s::numeric, %(currency)s::varchar, %(rate)s::numeric,
           %(received_at)s::timestamptz, %(received_at)s::timestamptz
    FROM new_order WHERE outcome = 'tracked'
), decided (outcome, status, text) AS (
    SELECT outcome::varchar, 200,
           CASE outcome WHEN 'tracked' THEN {_sql_text(TRACKED_ORDER)} ELSE {_sql_text(NO_ATTRIBUTION)} END
    FROM new_order
    UNION ALL
    SELECT 'duplicate_order', 400, %(duplicate_text)s::text WHERE NOT EXISTS (SELECT FROM new_order)
){_RECORD}"""


# The click must be the brand's, made on this property, within the window, by an active creator.
ORDER_BY_CLICK = _attributed(
    """
    SELECT click.id, click.creator_id,
           'click ' || click.click_id || ' on ' || creator.name || '''s link, ' || (
               SELECT CASE WHEN d >= 1 THEN d || ' day' || CASE WHEN d = 1 THEN '' ELSE 's' END
                           WHEN h >= 1 THEN h || ' hour' || CASE WHEN h = 1 THEN '' ELSE 's' END
                           ELSE 'less than an hour' END
               FROM (SELECT extract(day FROM age)::int AS d, extract(hour FROM age)::int AS h
                     FROM (SELECT %(received_at)s::timestamptz - click.clicked_at AS age) AS elapsed) AS parts
           ) || ' before the order; the window is ' || %(window_days)s::int || ' days' AS detail
    FROM attribution_click click JOIN brands_creator creator ON creator.id = click.creator_id
    WHERE click.click_id = %(click_id)s AND click.brand_id = %(brand_id)s
      AND click.property_id = %(property_id)s AND click.clicked_at >= %(window_start)s
      AND creator.is_active""",
    "click_id",
    "click",
)
# LOWER(code) within the brand: the unique index code_unique_ci_per_brand, as the project's lookup.
ORDER_BY_CODE = _attributed(
    """
    SELECT code.id, code.creator_id, 'code ' || code.code || ' belongs to ' || creator.name AS detail
    FROM brands_discountcode code JOIN brands_creator creator ON creator.id = code.creator_id
    WHERE code.brand_id = %(brand_id)s AND LOWER(code.code) = LOWER(%(code)s)
      AND NOT code.is_blacklisted AND creator.is_active""",
    "discount_code_id",
    "code",
)

OUTCOME_ONLY = f"""
INSERT INTO health_outcomeevent ({_OUTCOME_COLUMNS})
VALUES (%(brand_id)s, %(endpoint)s, %(outcome)s, %(status)s, %(order_id)s, %(is_test)s, %(received_at)s,
        now(), %(request_id)s, %(key_prefix)s, %(request_body)s::text, %(response_body)s::jsonb, '[]'::jsonb,
        false, '')
RETURNING outcome"""

# Brand resolution: cached per process like the project's (BRAND_RESOLUTION_CACHE_SECONDS), so a
# request reads it from memory; a miss is one read by the property's unique host.
SITE = """
SELECT property.id, property.brand_id, brand.attribution_window_days, brand.commission_rate_percent,
       brand.returning_commission_rate_percent
FROM brands_property property JOIN brands_brand brand ON brand.id = property.brand_id
WHERE property.host = %(host)s AND brand.is_active"""

# --- cancel and update --------------------------------------------------------------------------

KEY = """
SELECT developer_key.hashed_key, developer_key.brand_id, developer_key.expiry_date, brand.is_active
FROM brands_developerkey developer_key JOIN brands_brand brand ON brand.id = developer_key.brand_id
WHERE developer_key.prefix = %(prefix)s AND NOT developer_key.revoked"""

# The brand's commission of the order, found through the order's unique index and row-locked.
_LOCKED = """
    SELECT id, state, currency, order_amount, amount, rate_percent, updated_at
    FROM attribution_commission
    WHERE brand_id = %(brand_id)s AND order_id = (
        SELECT id FROM attribution_order
        WHERE brand_id = %(brand_id)s AND order_id = %(order_id)s AND is_test = %(is_test)s
    )
    FOR UPDATE"""

CANCEL = f"""
WITH old AS ({_LOCKED}
), changed AS (
    UPDATE attribution_commission commission
    SET state = 'cancelled',
        cancelled_at = GREATEST(%(received_at)s::timestamptz, old.updated_at),
        updated_at = GREATEST(%(received_at)s::timestamptz, old.updated_at)
    FROM old WHERE commission.id = old.id AND old.state <> 'cancelled'
    RETURNING commission.id, old.state AS from_state, commission.updated_at
), history AS (
    INSERT INTO attribution_commissionstatechange (brand_id, commission_id, from_state, to_state,
        changed_at, request_id, cause)
    SELECT %(brand_id)s::bigint, id, from_state, 'cancelled', updated_at, %(request_id)s::varchar, 'cancel'
    FROM changed
), decided (outcome, status, text) AS (
    SELECT 'tracked', 200, %(done_text)s::text FROM changed
    UNION ALL
    SELECT 'already_cancelled', 200, %(cancelled_text)s::text FROM old
    WHERE NOT EXISTS (SELECT FROM changed)
    UNION ALL
    SELECT 'order_not_found', 200, %(not_found_text)s::text WHERE NOT EXISTS (SELECT FROM old)
){_RECORD}"""

UPDATE = f"""
WITH old AS ({_LOCKED}
), changed AS (
    UPDATE attribution_commission commission
    SET order_amount = %(new_order_amount)s::numeric,
        amount = ROUND(%(new_order_amount)s::numeric * old.rate_percent / 100, %(exponent)s::int),
        updated_at = GREATEST(%(received_at)s::timestamptz, old.updated_at)
    FROM old
    WHERE commission.id = old.id AND old.state <> 'cancelled' AND old.currency = %(currency)s::varchar
    RETURNING commission.id, old.order_amount AS old_order_amount, old.amount AS old_amount,
              commission.amount AS new_amount, commission.updated_at
), history AS (
    INSERT INTO attribution_amountchange (brand_id, commission_id, old_order_amount, new_order_amount,
        old_amount, new_amount, changed_at, request_id)
    SELECT %(brand_id)s::bigint, id, old_order_amount, %(new_order_amount)s::numeric, old_amount,
           new_amount, updated_at, %(request_id)s::varchar
    FROM changed
), decided (outcome, status, text) AS (
    SELECT 'tracked', 200, %(done_text)s::text FROM changed
    UNION ALL
    SELECT CASE WHEN old.state = 'cancelled' THEN 'already_cancelled' ELSE 'invalid_params' END,
           CASE WHEN old.state = 'cancelled' THEN 200 ELSE 400 END,
           CASE WHEN old.state = 'cancelled' THEN %(cancelled_text)s::text ELSE %(currency_text)s::text END
    FROM old WHERE NOT EXISTS (SELECT FROM changed)
    UNION ALL
    SELECT 'order_not_found', 200, %(not_found_text)s::text WHERE NOT EXISTS (SELECT FROM old)
){_RECORD}"""

# --- the requests -------------------------------------------------------------------------------


class Answer(NamedTuple):
    status: int
    body: dict


def envelope(outcome: str, text: str) -> dict:
    ok = STATUS[outcome] < 400
    return {"success": ok, "outcome": outcome, "message" if ok else "error": text}


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


class Site(NamedTuple):
    property_id: int
    brand_id: int
    window_days: int
    rate: Decimal
    returning_rate: Decimal | None


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
        OUTCOME_ONLY,
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


def order_confirmation(query: Query, raw: bytes, data, request_id: str) -> Answer:
    """POST /api/order_confirmation."""
    received_at = datetime.now(UTC)
    refuse = {"raw": raw, "data": data, "received_at": received_at, "request_id": request_id}
    if not isinstance(data, dict):
        return _refuse(query, "order_confirmation", "invalid_params", "Send a JSON object.", **refuse)
    host = _host(data)
    site = _site(query, host)
    refuse["brand_id"] = site.brand_id if site else None
    order_id = data.get("orderId")
    order_id = (
        str(order_id).strip() if isinstance(order_id, str | int) and not isinstance(order_id, bool) else ""
    )
    if not order_id or len(order_id) > 255:
        return _refuse(query, "order_confirmation", "invalid_order_id", "orderId is missing.", **refuse)
    refuse["order_id"] = order_id
    amount = _amount(data.get("orderAmount"), allow_zero=False)
    if amount is None:
        text = "orderAmount must be a plain number greater than 0, such as 59.90."
        return _refuse(query, "order_confirmation", "invalid_order_amount", text, **refuse)
    currency = data.get("currency")
    exponent = _exponent(currency)
    if exponent is None:
        return _refuse(
            query, "order_confirmation", "invalid_params", "currency is no ISO 4217 code.", **refuse
        )
    if site is None:
        return _refuse(query, "order_confirmation", "unresolved_domain", "No registered brand.", **refuse)

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
    if click_id:
        params["click_id"] = str(click_id)
        params["window_start"] = received_at - timedelta(days=site.window_days)
        params["window_days"] = site.window_days
        sql = ORDER_BY_CLICK
    elif code:
        sql = ORDER_BY_CODE
    else:
        sql = ORDER_DIRECT
    outcome = query(sql, params)[0]
    text = (
        DUPLICATE.format(order_id)
        if outcome == "duplicate_order"
        else (TRACKED_ORDER if outcome == "tracked" else NO_ATTRIBUTION)
    )
    return Answer(STATUS[outcome], envelope(outcome, text))


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


def change(query: Query, endpoint: str, raw: bytes, data, authorization: str, request_id: str) -> Answer:
    """POST /api/Affiliates/cancel (endpoint "cancel") and /api/Affiliates/update ("update")."""
    received_at = datetime.now(UTC)
    refuse = {"raw": raw, "data": data, "received_at": received_at, "request_id": request_id}
    key = _key(query, authorization)
    if key is None:
        return _refuse(query, endpoint, "unauthorized", "The developer key is unknown or revoked.", **refuse)
    prefix, brand_id, brand_is_active = key
    refuse.update(brand_id=brand_id, key_prefix=prefix)
    order_id = data.get("order_id") if isinstance(data, dict) else None
    order_id = (
        str(order_id).strip() if isinstance(order_id, str | int) and not isinstance(order_id, bool) else ""
    )
    if not order_id:
        return _refuse(query, endpoint, "invalid_params", "Missing required field(s): order_id.", **refuse)
    refuse["order_id"] = order_id
    if not brand_is_active:
        return _refuse(query, endpoint, "unresolved_domain", "The brand of this key is inactive.", **refuse)
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
        sql = CANCEL
    else:
        amount = _amount(data.get("new_order_amount"), allow_zero=True)
        if amount is None:
            text = "new_order_amount must be a plain number such as 49.90."
            return _refuse(query, endpoint, "invalid_order_amount", text, **refuse)
        currency = data.get("currency")
        exponent = _exponent(currency)
        if exponent is None:
            return _refuse(query, endpoint, "invalid_params", "currency is no ISO 4217 code.", **refuse)
        currency = currency.upper()
        params["new_order_amount"] = amount
        params["exponent"] = exponent
        params["currency"] = currency
        params["done_text"] = UPDATED.format(order_id, amount, currency)
        params["cancelled_text"] = CANCELLED_NOT_UPDATED.format(order_id)
        params["currency_text"] = WRONG_CURRENCY.format(currency)
        sql = UPDATE
    outcome = query(sql, params)[0]
    text = {
        "tracked": params["done_text"],
        "already_cancelled": params["cancelled_text"],
        "order_not_found": params["not_found_text"],
    }.get(outcome) or params.get("currency_text", "")
    return Answer(STATUS[outcome], envelope(outcome, text))
