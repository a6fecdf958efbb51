"""The OpenAPI schema at /api/schema/ against the service itself: schemathesis generates requests from
the schema (bodies it allows and bodies it forbids), sends them through the WSGI application in this
process, and runs every one of its checks on each answer. A field rule and its schema that disagree, an
undocumented status or outcome, a 5xx: each fails here.
"""

import json

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.config import SchemathesisConfig

from attribution.management.demo.world import build
from attribution.outcomes import Outcome
from config.wsgi import application

# Cases per operation and phase: the whole run stays within a minute on the CI machine.
MAX_EXAMPLES = 40

CONFIG = SchemathesisConfig.from_dict(
    {
        "generation": {
            "mode": "all",
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            "database": "none",
            # \u0000 is refused wherever it stands in a body (docs/api.md, "Limits"): a rule of the whole
            # body, which no field's schema can say.
            "allow-x00": False,
        },
        "checks": {"enabled": True},
        "operations": [
            {
                # A commission plan is checked whole by its own rules and can be refused for what it says (a
                # creator the brand does not have, a rule paying nothing), which its schema, the document's shape, cannot say (docs/plans.md).
                "include-path-regex": "commission_plan",
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "429"]}},
            },
            {
                # A well-formed event can still be refused for what it says: a page of no registered brand
                # (unresolved_domain), an order id already received, a click id that matches no click.
                # That a field rule never refuses it is the check below.
                "include-method": "POST",
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "404", "429"]}
                },
            },
        ],
    }
)

schema = schemathesis.openapi.from_wsgi("/api/schema/", application, config=CONFIG)

FIELD_RULE_OUTCOMES = {
    Outcome.INVALID_ORDER_ID,
    Outcome.INVALID_ORDER_AMOUNT,
    Outcome.INVALID_PARAMS,
    Outcome.MALFORMED_CLICK_ID,
}


def no_field_rule_refuses_what_the_schema_allows(ctx, response, case):
    # The event bodies' fields are described one by one; an uploaded CSV order book is a string to the
    # schema, whose columns the reconciliation judges (tests/attribution/reconciliation/).
    if (
        "commission_plan" in case.path  # refused with the field named by the plan's own rules (above)
        or case.meta is None
        or not case.meta.generation.mode.is_positive
        or case.media_type != "application/json"
    ):
        return None
    outcome = json.loads(response.content).get("outcome")
    assert outcome not in FIELD_RULE_OUTCOMES, (
        f"the schema allows this request, its field rules refuse it: {outcome}"
    )
    return True


@pytest.fixture
def connection_kept_across_requests():
    """Called directly, Django's WSGI handler closes the database connection after each request
    (close_old_connections), which would end the test's transaction; Django's test client keeps it the
    same way."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


@schema.parametrize()
# The caller and its key are the same for every generated request, as for a real client.
@hypothesis_settings(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
def test_the_service_answers_as_its_schema_says(case, alice, connection_kept_across_requests, settings):
    # Hundreds of generated requests from one address: the limits (tests/attribution/api/test_throttling.py)
    # would answer 429 where the schema's own checks expect the endpoint's answer, 401 without a key.
    settings.API_THROTTLE_RATES = {}
    case.call_and_validate(
        headers={"Authorization": f"Bearer {alice.plaintext}"},
        additional_checks=[no_field_rule_refuses_what_the_schema_allows],
    )


# --- the schema's examples against the demo world ------------------------------------------------------------

EXAMPLES_ONLY = SchemathesisConfig.from_dict(
    {
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": False},
            "fuzzing": {"enabled": False},
            "stateful": {"enabled": False},
        },
        "generation": {"mode": "positive", "deterministic": True, "database": "none"},
        # Every check, and a request the schema shows must succeed: 2xx, as Swagger's "Try it out" expects.
        "checks": {"enabled": True, "positive_data_acceptance": {"expected-statuses": ["2xx"]}},
    }
)

examples_schema = schemathesis.openapi.from_wsgi("/api/schema/", application, config=EXAMPLES_ONLY)


@pytest.fixture
def demo_key(db):
    """`make run`'s demo world (seed_demo), which the examples name; its main brand's developer key."""
    return build(now=timezone.now())["brands"]["main"]["developer_key"]


@pytest.fixture
def sent_once():
    seen = set()

    def first_time(case) -> bool:
        key = (case.method, case.formatted_path, json.dumps(case.body, sort_keys=True, default=str))
        if key in seen:
            return False
        seen.add(key)
        return True

    return first_time


@examples_schema.parametrize()
@hypothesis_settings(
    deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
def test_every_example_of_the_schema_succeeds_against_the_demo_world(
    case, demo_key, sent_once, connection_kept_across_requests, settings
):
    # Schemathesis may build the same example more than once; an order id is received once (a repeat is
    # rightly duplicate_order), so each distinct request is sent once, as a person trying them would.
    if not sent_once(case):
        return
    settings.API_THROTTLE_RATES = {}
    case.call_and_validate(headers={"Authorization": f"Bearer {demo_key}"})
