"""Shared setup of the cancel, update and read API tests (docs/api.md).

The callers: alice holds a developer key of brand Acme (the `brand` fixture), bob one of brand
Globex (`other_brand`), and an anonymous caller sends no key. Commissions are built in a known
state on their order, with the amounts a reader needs spelled out.
"""

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal

from attribution.models import Commission, Statement
from attribution.money import commission_amount
from brands.models import Brand, DeveloperKey
from health.log.models import OutcomeEvent
from tests import factories

CANCEL = "/api/Affiliates/cancel"
UPDATE = "/api/Affiliates/update"
CREATED_AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
# A commission built locked or paid locked on May's statement; a paid one was paid with it in June.
LOCKED_AT = datetime(2026, 5, 31, 12, 0, tzinfo=UTC)
PAID_AT = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)


def order_url(order_id: str, *, test: bool = False) -> str:
    return f"/api/Affiliates/orders/{order_id}" + ("?test=true" if test else "")


@dataclass(frozen=True)
class Caller:
    brand: Brand
    key: DeveloperKey
    plaintext: str

    @property
    def headers(self) -> dict:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.plaintext}"}


def caller_of(brand: Brand, name: str) -> Caller:
    key, plaintext = factories.issue_key(brand, name=f"{name}'s key")
    return Caller(brand=brand, key=key, plaintext=plaintext)


def commission_for(
    brand: Brand,
    *,
    order_id: str,
    order_amount: str = "100.00",
    currency: str = "USD",
    rate: str = "10",
    is_test: bool = False,
    state: str = Commission.State.PENDING,
    statement: Statement | None = None,
) -> Commission:
    """A tracked order of `brand` and its commission: order amount × rate, as order confirmation makes it.

    Locked and paid ones sit on `statement`, by default the brand's May 2026 statement (paid for a paid one).
    """
    order = factories.OrderFactory(
        brand=brand,
        order_id=order_id,
        amount=Decimal(order_amount),
        currency=currency,
        is_test=is_test,
        outcome="tracked",
        received_at=CREATED_AT,
    )
    amount = commission_amount(Decimal(order_amount), Decimal(rate), currency)
    billing = {}
    if state in (Commission.State.LOCKED, Commission.State.PAID):
        paid = state == Commission.State.PAID
        billing = {
            "statement": statement or statement_of_may(brand, paid=paid),
            "locked_at": LOCKED_AT,
            "paid_at": PAID_AT if paid else None,
            "paid_amount": amount if paid else None,
        }
    return factories.CommissionFactory(
        order=order,
        creator=factories.CreatorFactory(brand=brand),
        rate_percent=Decimal(rate),
        amount=amount,
        state=state,
        created_at=CREATED_AT,
        updated_at=CREATED_AT,
        **billing,
    )


def statement_of_may(brand: Brand, *, paid: bool = False) -> Statement:
    """The brand's statement of May 2026, open or paid on PAID_AT."""
    statement, _ = Statement.objects.get_or_create(brand=brand, month=date(2026, 5, 1))
    if paid and statement.state != Statement.State.PAID:
        statement.state, statement.paid_at = Statement.State.PAID, PAID_AT
        statement.save()
    return statement


def fresh(commission: Commission) -> Commission:
    return Commission.objects.get(pk=commission.pk)


def the_one_event(response, *, endpoint: str) -> OutcomeEvent:
    """The single outcome log row a request wrote; it is the row of that request and says what it answered."""
    event = OutcomeEvent.objects.get()
    assert event.endpoint == endpoint
    assert event.request_id == response["X-Request-ID"]
    assert event.http_status == response.status_code
    assert event.response_body == response.json()
    return event


def assert_key_nowhere_in_the_outcome_log(plaintext: str) -> None:
    """Decision authentication: neither the key nor the Authorization header is in any column of any row."""
    rows = list(OutcomeEvent.objects.values())
    assert rows, "the check needs at least one outcome record to look at"
    stored = json.dumps(rows, default=str)
    secret = plaintext.partition(".")[2]
    assert plaintext not in stored
    assert secret not in stored


def assert_key_nowhere_in_the_logs(caplog, plaintext: str) -> None:
    assert caplog.records, "the check needs at least one log record to look at"
    secret = plaintext.partition(".")[2]
    for record in caplog.records:
        seen = record.getMessage() + repr(record.__dict__)
        assert secret not in seen
