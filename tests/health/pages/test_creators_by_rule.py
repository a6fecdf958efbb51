"""/health/creators/export.csv?by=rule: what each plan rule paid each creator in the period, from the
calculation each commission keeps (docs/health.md "Creators", docs/plans.md)."""

import csv
import io
from decimal import Decimal

import pytest

from attribution.models import Commission
from attribution.plans.document import parse
from attribution.plans.engine import KeptLine, KeptLines, price
from tests import factories
from tests.health.pages.creators_world import OCTOBER, at, order

pytestmark = pytest.mark.django_db

URL = "/health/creators/export.csv"
PLAN = parse(
    {
        "currency": "USD",
        "default": {"percent": "10"},
        "rules": [
            {"name": "Belts", "when": {"skus": ["BELT-01"]}, "percent": "15"},
            {"name": "Summer kit", "when": {"collections": ["summer"]}, "flat": "3.00"},
        ],
        "cap_per_order": "12",
    }
)


def priced(brand, order_id, *, creator, lines, currency="USD", day=10, state=Commission.State.PENDING):
    """An order of October priced by PLAN line by line, its commission keeping the calculation."""
    made = price(
        PLAN,
        version=2,
        amount=sum((line.gross for line in lines), Decimal(0)),
        currency=currency,
        is_returning_customer=False,
        lines=KeptLines(tuple(lines)),
        creator_id=creator.pk,
    )
    commission = order(
        brand,
        order_id,
        creator=creator,
        amount=made.calculation["base"]["total"],
        currency=currency,
        received_at=at(10, day),
    )
    Commission.objects.filter(pk=commission.pk).update(
        amount=made.amount, calculation=made.calculation, plan_version=2, state=state
    )
    return commission


def csv_of(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))


@pytest.fixture
def world(brand):
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    ben = factories.CreatorFactory(brand=brand, name="Ben")
    belt, tee = KeptLine(gross=Decimal("40"), sku="BELT-01"), KeptLine(gross=Decimal("50"), sku="TEE")
    kit = KeptLine(gross=Decimal("50"), quantity=2, sku="TEE-07", collections=("summer",))
    priced(brand, "A-1", creator=ana, lines=[belt, tee])  # Belts 6.00, Default 5.00
    priced(brand, "A-2", creator=ana, lines=[belt, kit])  # Belts 6.00, Summer kit 6.00 = 12.00, the cap
    priced(brand, "A-3", creator=ana, lines=[belt, kit, tee])  # 6 + 6 + 5 = 17.00, cut to 12.00
    priced(brand, "A-4", creator=ana, lines=[belt], currency="EUR")
    priced(brand, "A-5", creator=ana, lines=[tee], state=Commission.State.CANCELLED)  # not counted
    priced(brand, "B-1", creator=ben, lines=[tee])
    priced(brand, "B-SEPT", creator=ben, lines=[belt], day=10)
    Commission.objects.filter(order__order_id="B-SEPT").update(created_at=at(9, 10))  # another period
    return ana, ben


def test_it_has_a_line_per_creator_currency_and_rule(alice_client, world):
    ana, ben = world

    response = alice_client.get(URL, {**OCTOBER, "by": "rule"})

    assert response["Content-Disposition"].startswith(
        'attachment; filename="creators-by-rule-acme-live-20261001-20261031'
    )
    lines = [
        (line["creator"], line["currency"], line["rule"], line["orders"], line["base"], line["commission"])
        for line in csv_of(response)
    ]
    assert lines == [
        ("Ana", "EUR", "Belts", "1", "40.00", "6.00"),
        ("Ana", "USD", "Belts", "3", "120.00", "18.00"),
        ("Ana", "USD", "Default", "2", "100.00", "10.00"),
        ("Ana", "USD", "Summer kit", "2", "100.00", "12.00"),
        ("Ana", "USD", "(minimum, caps and rounding)", "1", "", "-5.00"),
        ("Ben", "USD", "Default", "1", "50.00", "5.00"),
    ]


def test_a_creators_lines_add_up_to_her_commission(alice_client, world):
    ana, _ = world

    lines = csv_of(alice_client.get(URL, {**OCTOBER, "by": "rule"}))

    usd = sum(
        Decimal(line["commission"])
        for line in lines
        if line["creator"] == "Ana" and line["currency"] == "USD"
    )
    assert usd == Decimal("35.00")  # 11.00 + 12.00 + 12.00
    first = lines[0]
    assert (
        first["creator_id"],
        first["first_day"],
        first["last_day"],
        first["time_zone"],
        first["namespace"],
    ) == (str(ana.pk), "2026-10-01", "2026-10-31", "UTC", "live")


def test_a_commission_made_before_plans_counts_under_its_brands_rate(alice_client, brand):
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    order(brand, "OLD-1", creator=ana, amount="80.00", received_at=at(10, 3))

    lines = csv_of(alice_client.get(URL, {**OCTOBER, "by": "rule"}))

    assert [(line["rule"], line["orders"], line["base"], line["commission"]) for line in lines] == [
        ("Default", "1", "80.00", "8.00")
    ]


def test_without_by_the_csv_is_the_creators_one(alice_client, world):
    response = alice_client.get(URL, OCTOBER)

    assert "rule" not in csv_of(response)[0]
    assert response["Content-Disposition"].startswith('attachment; filename="creators-acme-live-')


def test_bob_cannot_export_acmes_rules(client, bob, brand, world):
    client.force_login(bob)

    assert client.get(URL, {**OCTOBER, "by": "rule", "brand": brand.pk}).status_code == 404


def test_an_anonymous_visitor_is_sent_to_sign_in(client, brand):
    assert client.get(URL, {"by": "rule"}).status_code == 302


def test_it_reads_in_a_fixed_number_of_queries(alice_client, world, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        csv_of(alice_client.get(URL, {**OCTOBER, "by": "rule"}))
