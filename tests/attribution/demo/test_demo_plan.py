"""The demo world's second creator and the main brand's commission plan (docs/plans.md): Sam has her own
code, link and rate; a SKU only the tour's line-by-line step orders has its own rule; Ana's orders pay what
they paid before."""

from decimal import Decimal

import pytest
from django.utils import timezone

from attribution.models import Commission
from attribution.orders.decision import Decision, Fields, rows_to_store
from attribution.orders.lines import OrderLine, OrderLines
from attribution.outcomes import Outcome
from brands.models import Creator, PlanVersion
from brands.resolution import resolve_host
from tests.attribution.demo.conftest import URL

pytestmark = pytest.mark.django_db


def confirm(api, world, order_id, **fields):
    body = {
        "orderId": order_id,
        "orderAmount": "100.00",
        "currency": "USD",
        "page_url": world["brands"]["main"]["page_urls"]["primary"],
        **fields,
    }
    response = api.post(URL, body)
    assert response.json()["outcome"] == "tracked", response.json()
    return Commission.objects.get(
        order__order_id=order_id, order__brand__name=world["brands"]["main"]["name"]
    )


def test_the_document_lists_the_main_brands_two_active_creators(world):
    registered, second = world["creators"]["registered"], world["creators"]["second"]

    assert registered == {
        "id": registered["id"],
        "name": "Ana Active",
        "code": "ANA10",
        "link": world["links"]["valid"],
    }
    assert (second["name"], second["code"], second["link"]) == ("Sam Second", "SAM12", "acme-demo-sam")
    assert Creator.objects.get(pk=second["id"]).is_active


def test_the_second_creator_earns_her_own_rate_and_ana_what_she_earned_before(api, world):
    sam = confirm(api, world, "PLAN-SAM-1", code=world["creators"]["second"]["code"])
    ana = confirm(api, world, "PLAN-ANA-1", code=world["codes"]["registered"])
    returning = confirm(
        api, world, "PLAN-ANA-2", code=world["codes"]["registered"], is_returning_customer=True
    )

    assert (sam.amount, sam.calculation["lines"][0]["rule"]) == (Decimal("12.00"), "Sam's rate")
    assert (ana.amount, ana.rate_percent) == (Decimal("10.00"), Decimal("10.00"))
    assert returning.amount == Decimal("5.00")


def test_the_tours_kit_is_priced_line_by_line(world):
    page = world["brands"]["main"]["page_urls"]["primary"]
    resolution = resolve_host(page)
    fields = Fields(
        order_id="PLAN-KIT-1",
        amount=Decimal("100"),
        currency="USD",
        is_test=False,
        is_returning_customer=False,
        click_id=None,
        code=None,
        email_hash=None,
        return_window_closes_at=None,
        lines=OrderLines(
            lines=(OrderLine(gross=Decimal("40"), sku="DEMO-KIT"), OrderLine(gross=Decimal("60"), sku="TEE"))
        ),
    )
    decision = Decision(Outcome.TRACKED, "code", creator_id=world["creators"]["registered"]["id"])

    _, commission = rows_to_store(
        brand=resolution.brand,
        resolution=resolution,
        fields=fields,
        decision=decision,
        received_at=timezone.now(),
    )

    assert commission["amount"] == Decimal("16.00")  # 40 x 25 % + 60 x 10 %
    assert [line["rule"] for line in commission["calculation"]["lines"]] == ["Demo kit", "Default"]


def test_a_second_run_makes_no_new_plan_version(seed):
    seed()
    versions = PlanVersion.objects.count()

    seed()

    assert PlanVersion.objects.count() == versions
