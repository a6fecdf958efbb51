"""The floors' statements, one per event: the order (its commission when tracked) and the outcome row, or
a commission's change with its history row and the outcome row (bench/README.md lists them).

`Statements` is the set one floor runs. `statements(Tables(...))` writes it for a schema: the project's
own tables for the same-schema floors (`SAME_SCHEMA`), or the minimal schema's (bench/floor/minimal).
Both schemas take the same columns, so the floors differ only in what the tables maintain: indexes,
keys, foreign keys and partitions. The reads (brand resolution, the developer key, the click and the
code) go to the project's tables in every floor: they write nothing.
"""

from typing import NamedTuple

from .answers import NO_ATTRIBUTION, TRACKED_ORDER


class Tables(NamedTuple):
    order: str
    commission: str
    commission_key: str  # the commission's key column, which its history rows name as commission_id
    state_change: str
    amount_change: str
    outcome: str


class Statements(NamedTuple):
    order_direct: str
    order_by_click: str
    order_by_code: str
    outcome_only: str
    cancel: str
    update: str


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


ORDER_COLUMNS = """brand_id, order_id, is_test, amount, currency, is_returning_customer,
        return_window_closes_at, property_id, page_host, outcome, attribution, click_id,
        discount_code_id, code_sent, creator_id, received_at, trace"""

OUTCOME_COLUMNS = """brand_id, endpoint, outcome, http_status, order_id, is_test, received_at,
    recorded_at, request_id, key_prefix, request_body, response_body, warnings, has_warnings, answered_outcome"""

# The click must be the brand's, made on this property, within the window, by an active creator; the
# trace's sentence is built here, as the project builds it.
_CLICK = """
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
      AND creator.is_active"""
# LOWER(code) within the brand: the unique index code_unique_ci_per_brand, as the project's lookup.
_CODE = """
    SELECT code.id, code.creator_id, 'code ' || code.code || ' belongs to ' || creator.name AS detail
    FROM brands_discountcode code JOIN brands_creator creator ON creator.id = code.creator_id
    WHERE code.brand_id = %(brand_id)s AND LOWER(code.code) = LOWER(%(code)s)
      AND NOT code.is_blacklisted AND creator.is_active"""

# Brand resolution: cached per process like the project's (BRAND_RESOLUTION_CACHE_SECONDS), so a
# request reads it from memory; a miss is one read by the property's unique host.
SITE = """
SELECT property.id, property.brand_id, brand.attribution_window_days, brand.commission_rate_percent,
       brand.returning_commission_rate_percent, COALESCE(NULLIF(brand.reporting_currency, ''), 'USD')
FROM brands_property property JOIN brands_brand brand ON brand.id = property.brand_id
WHERE property.host = %(host)s AND brand.is_active"""

KEY = """
SELECT developer_key.hashed_key, developer_key.brand_id, developer_key.expiry_date, brand.is_active
FROM brands_developerkey developer_key JOIN brands_brand brand ON brand.id = developer_key.brand_id
WHERE developer_key.prefix = %(prefix)s AND NOT developer_key.revoked"""


def statements(t: Tables) -> Statements:
    # The outcome row of what `decided` (outcome, http_status, text) says; its response body is the answer.
    record = f"""
INSERT INTO {t.outcome} ({OUTCOME_COLUMNS})
SELECT %(brand_id)s::bigint, %(endpoint)s::varchar, decided.outcome, decided.status, %(order_id)s::varchar,
       %(is_test)s::boolean, %(received_at)s::timestamptz, now(), %(request_id)s::varchar,
       %(key_prefix)s::varchar, %(request_body)s::text,
       jsonb_build_object('success', decided.status < 400, 'outcome', decided.outcome,
                          CASE WHEN decided.status < 400 THEN 'message' ELSE 'error' END, decided.text),
       '[]'::jsonb, false, ''
FROM decided
RETURNING outcome"""
    # ON CONFLICT on the order's unique (brand_id, order_id, is_test) decides a duplicate, whose outcome
    # row is still written.
    order_direct = f"""
WITH new_order AS (
    INSERT INTO {t.order} ({ORDER_COLUMNS})
    VALUES (%(brand_id)s, %(order_id)s, %(is_test)s, %(amount)s, %(currency)s, %(returning)s,
            NULL, %(property_id)s, %(host)s, 'no_attribution', 'none', NULL,
            NULL, %(code)s, NULL, %(received_at)s, '[]'::jsonb)
    ON CONFLICT (brand_id, order_id, is_test) DO NOTHING
    RETURNING outcome
), decided (outcome, status, text) AS (
    SELECT outcome::varchar, 200, {_sql_text(NO_ATTRIBUTION)} FROM new_order
    UNION ALL
    SELECT 'duplicate_order', 400, %(duplicate_text)s::text WHERE NOT EXISTS (SELECT FROM new_order)
){record}"""

    def attributed(lookup: str, column: str, attribution: str) -> str:
        """An order tracked through `lookup` (one indexed read yielding id, creator_id and detail, or no row)."""
        return f"""
WITH source AS ({lookup}
), new_order AS (
    INSERT INTO {t.order} ({ORDER_COLUMNS})
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
    INSERT INTO {t.commission} (brand_id, order_id, creator_id, is_test, state, order_amount,
        amount, currency, rate_percent, created_at, updated_at, attribution, is_returning_customer,
        reporting_currency, reporting_amount, fx_rate, fx_rate_date, fx_source, fx_reason)
    SELECT %(brand_id)s::bigint, id, creator_id, %(is_test)s::boolean, 'pending', %(amount)s::numeric,
           %(commission)s::numeric, %(currency)s::varchar, %(rate)s::numeric,
           %(received_at)s::timestamptz, %(received_at)s::timestamptz, '{attribution}', %(returning)s::boolean,
           %(reporting_currency)s::varchar, %(reporting_amount)s::numeric, %(fx_rate)s::varchar,
           %(fx_rate_date)s::date, %(fx_source)s::varchar, %(fx_reason)s::varchar
    FROM new_order WHERE outcome = 'tracked'
), decided (outcome, status, text) AS (
    SELECT outcome::varchar, 200,
           CASE outcome WHEN 'tracked' THEN {_sql_text(TRACKED_ORDER)} ELSE {_sql_text(NO_ATTRIBUTION)} END
    FROM new_order
    UNION ALL
    SELECT 'duplicate_order', 400, %(duplicate_text)s::text WHERE NOT EXISTS (SELECT FROM new_order)
){record}"""

    outcome_only = f"""
INSERT INTO {t.outcome} ({OUTCOME_COLUMNS})
VALUES (%(brand_id)s, %(endpoint)s, %(outcome)s, %(status)s, %(order_id)s, %(is_test)s, %(received_at)s,
        now(), %(request_id)s, %(key_prefix)s, %(request_body)s::text, %(response_body)s::jsonb, '[]'::jsonb,
        false, '')
RETURNING outcome"""

    # The brand's commission of the order, found through the order's unique key and row-locked.
    locked = f"""
    SELECT {t.commission_key} AS id, state, currency, order_amount, amount, rate_percent, fx_rate, updated_at
    FROM {t.commission}
    WHERE brand_id = %(brand_id)s AND order_id = (
        SELECT id FROM {t.order}
        WHERE brand_id = %(brand_id)s AND order_id = %(order_id)s AND is_test = %(is_test)s
    )
    FOR UPDATE"""
    cancel = f"""
WITH old AS ({locked}
), changed AS (
    UPDATE {t.commission} commission
    SET state = 'cancelled',
        cancelled_at = GREATEST(%(received_at)s::timestamptz, old.updated_at),
        updated_at = GREATEST(%(received_at)s::timestamptz, old.updated_at)
    FROM old WHERE commission.{t.commission_key} = old.id AND old.state <> 'cancelled'
    RETURNING commission.{t.commission_key} AS id, old.state AS from_state, commission.updated_at
), history AS (
    INSERT INTO {t.state_change} (brand_id, commission_id, from_state, to_state,
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
){record}"""
    update = f"""
WITH old AS ({locked}
), changed AS (
    UPDATE {t.commission} commission
    SET order_amount = %(new_order_amount)s::numeric,
        amount = ROUND(%(new_order_amount)s::numeric * old.rate_percent / 100, %(exponent)s::int),
        -- at the locked rate, as the project's update (in the order currency's places: the bench's share them)
        reporting_amount = CASE WHEN old.fx_rate = '' THEN NULL ELSE ROUND(ROUND(
            %(new_order_amount)s::numeric * old.rate_percent / 100, %(exponent)s::int) * old.fx_rate::numeric,
            %(exponent)s::int) END,
        updated_at = GREATEST(%(received_at)s::timestamptz, old.updated_at)
    FROM old
    WHERE commission.{t.commission_key} = old.id AND old.state <> 'cancelled'
      AND old.currency = %(currency)s::varchar
    RETURNING commission.{t.commission_key} AS id, old.order_amount AS old_order_amount,
              old.amount AS old_amount, commission.amount AS new_amount, commission.updated_at
), history AS (
    INSERT INTO {t.amount_change} (brand_id, commission_id, old_order_amount, new_order_amount,
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
){record}"""
    return Statements(
        order_direct=order_direct,
        order_by_click=attributed(_CLICK, "click_id", "click"),
        order_by_code=attributed(_CODE, "discount_code_id", "code"),
        outcome_only=outcome_only,
        cancel=cancel,
        update=update,
    )


# The project's own tables: the same-schema floors (bench.floor.views, bench.floor.plain).
SAME_SCHEMA = statements(
    Tables(
        order="attribution_order",
        commission="attribution_commission",
        commission_key="id",
        state_change="attribution_commissionstatechange",
        amount_change="attribution_amountchange",
        outcome="health_outcomeevent",
    )
)
