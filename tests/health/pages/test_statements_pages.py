"""/health/statements/: a brand user's billing statements, one statement, and its CSV export. alice reads
Acme's, bob (Globex) gets a 404 for them, an anonymous visitor is sent to sign in, staff pick any brand. The
list totals each statement in the brand's reporting currency as its own page does, each currency a click
away, and names apart what has no rate."""

import csv
import io
import re
from datetime import date
from decimal import Decimal
from html import unescape
from zoneinfo import ZoneInfo

import pytest

from attribution.billing.writers import lock_due_commissions, pay_statement
from attribution.models import Adjustment, Commission, Statement
from brands.models import UserSettings
from tests import factories
from tests.attribution.billed import NOV_03, NOV_12, OCT_10, OCT_20, cancel, pending
from tests.attribution.keyed import caller_of

LIST = "/health/statements/"


def detail(statement) -> str:
    return f"/health/statements/{statement.pk}/"


def export(statement) -> str:
    return f"/health/statements/{statement.pk}/export.csv"


def page(response) -> str:
    assert response.status_code == 200, response.content.decode()[:1000]
    return unescape(response.content.decode())


def text_of(html: str) -> str:
    """The visible text, tags dropped and whitespace collapsed, to read tables row by row."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@pytest.fixture
def acme(brand):
    """Acme: October (paid on November 3) with Ana's USD and EUR commissions and Bo's USD one; November
    (open) with a commission and the clawback of Bo's cancelled one."""
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    bo = factories.CreatorFactory(brand=brand, name="Bo")
    pending(brand, "A-1", creator=ana, amount="10.00")
    pending(brand, "A-2", creator=ana, amount="2.50", closes_at=OCT_20)
    pending(brand, "A-3", creator=ana, amount="7.00", currency="EUR")
    pending(brand, "B-1", creator=bo, amount="4.00")
    pending(brand, "B-2", creator=bo, amount="30.00", closes_at=NOV_03)
    pending(brand, "T-1", creator=bo, amount="99.00", is_test=True)
    for now in (OCT_10, OCT_20, NOV_03):
        lock_due_commissions(now=now)
    october = Statement.objects.get(brand=brand, month=date(2026, 10, 1))
    pay_statement(statement_id=october.pk, at=NOV_03)
    cancel(caller_of(brand, "key").key, "B-1", at=NOV_12)
    return {"october": october, "november": Statement.objects.get(brand=brand, month=date(2026, 11, 1))}


@pytest.fixture
def globex(other_brand):
    pending(
        other_brand, "G-1", creator=factories.CreatorFactory(brand=other_brand, name="Gus"), amount="55.00"
    )
    lock_due_commissions(now=OCT_10)
    return Statement.objects.get(brand=other_brand)


# --- who sees what ------------------------------------------------------------------------------------------


def table(html: str, table_id: str) -> str:
    return text_of(html.split(f'id="{table_id}"')[1].split("</table>")[0])


def test_a_brand_user_sees_its_statements_totalled_in_the_reporting_currency(client, alice, acme, globex):
    client.force_login(alice)
    # October's 7.00 EUR at its commission's locked rate, and its 16.50 USD.
    october = sum(c.reporting_amount for c in Commission.objects.filter(statement=acme["october"]))

    html = page(client.get(LIST))

    rows = table(html, "statements")
    assert "Month State Commissions Adjustments Total (USD) Paid on" in rows
    assert "November 2026 Open 1 1 26.00 USD 26.00 USD – Details" in rows
    assert f"October 2026 Paid 4 0 {october:.2f} USD 7.00 EUR 16.50 USD 2026-11-03 Details" in rows
    assert f'id="reporting-total">{october:.2f} USD' in page(client.get(detail(acme["october"]))), (
        "as its page"
    )
    assert "rates published" in text_of(html.split('id="rates-used"')[1].split("</p>")[0])
    assert "55.00" not in html and "Globex" not in html
    assert 'href="/health/statements/"' in html and 'aria-current="page">Statements</a>' in html


def test_a_commission_with_no_rate_is_named_apart_on_the_list_never_summed_in(client, alice, acme):
    pending(
        acme["november"].brand,
        "C-1",
        creator=Commission.objects.get(order__order_id="B-2").creator,
        amount="30.00",
        currency="AED",
        closes_at=NOV_03,
    )
    lock_due_commissions(now=NOV_03)
    reason = Commission.objects.get(order__order_id="C-1").fx_reason
    client.force_login(alice)

    rows = table(page(client.get(LIST)), "statements")

    assert reason.startswith("No ") and "AED" in reason
    assert (
        f"November 2026 Open 2 1 26.00 USD 30.00 AED 26.00 USD Not in this total: 30.00 AED (1 item: {reason}) –"
        in rows
    )


def test_a_brand_user_reads_one_statement_lines_totals_adjustments_and_commissions(client, alice, acme):
    client.force_login(alice)

    html = page(client.get(detail(acme["november"])))

    totals = text_of(html.split('id="totals"')[1].split("</table>")[0])
    assert "USD 1 30.00 1 -4.00 26.00 USD" in totals
    lines = text_of(html.split('id="lines"')[1].split("</table>")[0])
    assert "Bo USD 1 30.00 1 -4.00 26.00 USD" in lines
    adjustments = text_of(html.split('id="adjustments"')[1].split("</table>")[0])
    assert "2026-11-12 15:30 B-1 Bo Cancelled after payment October 2026 -4.00 USD" in adjustments
    commissions = text_of(html.split('id="commissions"')[1].split("</table>")[0])
    assert "B-2 Bo 2026-11-03 10:00 Locked 30.00 USD" in commissions
    assert "T-1" not in html  # test orders are never billed
    assert f'href="{export(acme["november"])}"' in html


def test_a_paid_statement_shows_what_was_paid_even_after_a_cancel(client, alice, acme):
    client.force_login(alice)

    html = page(client.get(detail(acme["october"])))

    assert 'Paid on 2026-11-03 10:00 <span class="muted">UTC</span>' in html
    lines = text_of(html.split('id="lines"')[1].split("</table>")[0])
    assert "Ana EUR 1 7.00 0 0.00 7.00 EUR" in lines
    assert "Ana USD 2 12.50 0 0.00 12.50 USD" in lines
    assert "Bo USD 1 4.00 0 0.00 4.00 USD" in lines
    commissions = text_of(html.split('id="commissions"')[1].split("</table>")[0])
    assert "B-1 Bo 2026-10-10 09:00 Cancelled after payment 4.00 USD" in commissions


def test_a_brand_user_exports_a_statement_as_csv(client, alice, acme):
    client.force_login(alice)

    response = client.get(export(acme["november"]))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="statement-acme-2026-11.csv"'
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert [(r["kind"], r["order_id"], r["amount"], r["currency"]) for r in rows] == [
        ("commission", "B-2", "30.00", "USD"),
        ("adjustment", "B-1", "-4.00", "USD"),
    ]
    assert sum(Decimal(r["amount"]) for r in rows) == Decimal("26.00")


def test_another_brands_user_gets_a_404_for_this_brands_statements(client, bob, acme, globex):
    client.force_login(bob)

    assert client.get(detail(acme["october"])).status_code == 404
    assert client.get(export(acme["october"])).status_code == 404
    assert client.get(LIST, {"brand": acme["october"].brand_id}).status_code == 404
    own = page(client.get(LIST))
    assert "55.00 USD" in own and "16.50" not in own
    assert page(client.get(detail(globex)))


def test_an_anonymous_visitor_is_sent_to_sign_in(client, acme):
    for path in (LIST, detail(acme["october"]), export(acme["october"])):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")


def test_a_user_without_a_brand_is_told_so(client, acme):
    client.force_login(factories.UserFactory(username="nobody"))

    assert client.get(LIST).status_code == 403
    assert client.get(detail(acme["october"])).status_code == 404


def test_staff_pick_any_brand_and_read_its_statements(client, staff, acme, globex):
    client.force_login(staff)

    listed = page(client.get(LIST, {"brand": globex.brand_id}))
    shown = page(client.get(detail(acme["october"])))

    assert "55.00 USD" in listed and "16.50" not in listed
    assert "16.50 USD" in text_of(shown)
    assert f'<option value="{acme["october"].brand_id}" selected>' in shown


def test_a_brand_without_statements_is_told_when_they_come(client, alice):
    client.force_login(alice)

    assert "No statement yet." in page(client.get(LIST))


def test_the_pages_take_a_bounded_number_of_queries(client, alice, acme, django_assert_max_num_queries):
    client.force_login(alice)
    brand = acme["october"].brand
    ana = Commission.objects.get(order__order_id="A-1").creator
    for month in range(1, 10):  # more statements, currencies, commissions and adjustments: no more queries
        statement = Statement.objects.create(brand=brand, month=date(2026, month, 1))
        for n, currency in enumerate(["USD", "EUR", "GBP", "JPY", "AED"]):
            made = pending(brand, f"M-{month}-{n}", creator=ana, amount="12.00", currency=currency)
            Commission.objects.filter(pk=made.pk).update(
                state="locked", statement=statement, locked_at=OCT_10
            )
        Adjustment.objects.create(
            brand=brand, commission=made, statement=statement, amount=-1, currency="AED", reason="cancel"
        )

    with django_assert_max_num_queries(12):
        html = page(client.get(LIST))
    with django_assert_max_num_queries(13):
        page(client.get(detail(acme["november"])))
    assert html.count("Not in this total: 11.00 AED (2 items:") == 9


def test_times_on_a_statement_and_in_its_csv_are_in_the_readers_time_zone(client, alice, acme):
    UserSettings.objects.create(user=alice, time_zone="America/New_York")
    client.force_login(alice)

    html = page(client.get(detail(acme["october"])))
    rows = list(
        csv.DictReader(
            io.StringIO(b"".join(client.get(export(acme["november"])).streaming_content).decode("utf-8-sig"))
        )
    )

    paid = NOV_03.astimezone(ZoneInfo("America/New_York"))
    assert f'Paid on {paid:%Y-%m-%d %H:%M} <span class="muted">America/New_York</span>' in html
    assert "Locked (America/New_York)" in html
    adjustment = next(r for r in rows if r["kind"] == "adjustment")
    assert adjustment["adjusted_at"] == NOV_12.astimezone(ZoneInfo("America/New_York")).isoformat()
    assert {r["time_zone"] for r in rows} == {"America/New_York"}
