"""A brand's creator program for October 2026, made by hand, with every figure of the Creators pages worked
out below. Orders are written as the decision stores them; their commissions move through the real
services: lock_due_commissions, pay_statement, the cancel and update services.

Acme's creators (commission 10%):
- Ana: code ANA10, 10 clicks in October (and one on Sep 30).
  A1  Oct 2  click    100 USD  new        locked Oct 20, paid Nov 3                  earned 10, paid 10
  A2  Oct 5  click    200 USD  returning  locked Nov 12 (November's statement)       earned 20
  A3  Oct 8  code     50 USD   new        pending                                     pending 5
  A4  Oct 9  code     80 USD   new        locked Oct 20, paid Nov 3, cancelled Nov 12 (clawed back)
  A5  Oct 12 click    120 USD  new        carried "ana10"; updated to 60                pending 6
  A7  Oct 15 shopper  40 EUR   new        pending                                     pending 4 EUR
  H1  Oct 16 click    70 USD   new        held (self_referral), waiting                held 7
  H2  Oct 17 code     60 USD   new        held (code_leak), rejected: cancelled
  A6  Oct 15 click    999 USD  test order: only in the test figures                 pending 99.90
  A0  Sep 30 click    500 USD  before the period
- Ben: no clicks. B1 Oct 20 click 300 USD pending 30.
- Cleo: nothing.

So, live, October: Ana 8 orders (conversion 80%), 4 by click, 3 by code, 1 by known shopper; 1 returning, 7 new.
The review figures: of her 7 orders not rejected by a reviewer (H2 was), 1 cancelled (A4): 14.3%; 4 sent
her code and credited her, 3 of them credited by the code (code only 75%).
USD: revenue 100 + 200 + 50 + 60 + 70 = 480 over 5 standing orders (average 96.00); earned 30, pending 11,
held 7, paid 10. EUR: revenue 40, pending 4. The brand: 9 orders, 1 of 8 cancelled (12.5%), USD
revenue 780.
"""

from datetime import UTC, datetime
from decimal import Decimal

from attribution.billing.writers import lock_due_commissions, month_of, pay_statement
from attribution.models import Commission, CommissionHold, Statement
from attribution.money import commission_amount
from attribution.orders import changes
from attribution.review import decisions
from tests import factories


def at(month: int, day: int, hour: int = 12, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


FAR = at(12, 31)  # a return window that has not closed by the end of the story


def order(
    brand, order_id, *, creator, amount, received_at, by="click", currency="USD", closes_at=FAR, **extra
):
    """An attributed order with its pending commission (10%), as the decision stores them."""
    rate = Decimal("10")
    row = factories.OrderFactory(
        brand=brand,
        order_id=order_id,
        amount=Decimal(amount),
        currency=currency,
        received_at=received_at,
        return_window_closes_at=closes_at,
        attribution=by,
        creator=creator,
        **extra,
    )
    return factories.CommissionFactory(
        order=row,
        creator=creator,
        rate_percent=rate,
        amount=commission_amount(Decimal(amount), rate, currency),
        created_at=received_at,
        updated_at=received_at,
    )


def held(commission, rule):
    """The commission as the review rules create it: held, with its hold (attribution.review.holds)."""
    Commission.objects.filter(pk=commission.pk).update(state=Commission.State.HELD)
    CommissionHold.objects.create(
        brand=commission.brand,
        commission=commission,
        rule=rule,
        detail=f"{rule} evidence",
        held_at=commission.created_at,
    )
    return Commission.objects.get(pk=commission.pk)


def reject(commission, *, at):
    """A reviewer's rejection on the Review page (attribution.review.decisions): the commission cancelled."""
    decisions.decide(
        commission.pk, decisions.REJECT, note="coupon site", who=decisions.Who(via="page"), at=at
    )


def build(brand, prop):
    """Acme's October: returns the creators by name."""
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    ben = factories.CreatorFactory(brand=brand, name="Ben")
    cleo = factories.CreatorFactory(brand=brand, name="Cleo")
    ana10 = factories.DiscountCodeFactory(brand=brand, creator=ana, code="ANA10")
    for day in range(1, 11):
        factories.ClickFactory(property=prop, creator=ana, clicked_at=at(10, day))
    factories.ClickFactory(property=prop, creator=ana, clicked_at=at(9, 30, 23))
    key, _ = factories.issue_key(brand)

    order(brand, "A0", creator=ana, amount="500", received_at=at(9, 30), closes_at=at(10, 1))
    order(brand, "A1", creator=ana, amount="100", received_at=at(10, 2), closes_at=at(10, 19))
    order(
        brand,
        "A2",
        creator=ana,
        amount="200",
        received_at=at(10, 5),
        closes_at=at(11, 10),
        is_returning_customer=True,
    )
    order(
        brand,
        "A3",
        creator=ana,
        amount="50",
        received_at=at(10, 8),
        by="code",
        discount_code=ana10,
        code_sent="ANA10",
    )
    order(
        brand,
        "A4",
        creator=ana,
        amount="80",
        received_at=at(10, 9),
        closes_at=at(10, 19),
        by="code",
        discount_code=ana10,
        code_sent="ANA10",
    )
    order(brand, "A5", creator=ana, amount="120", received_at=at(10, 12), code_sent="ana10")
    order(brand, "A7", creator=ana, amount="40", received_at=at(10, 15), by="shopper", currency="EUR")
    order(brand, "A6", creator=ana, amount="999", received_at=at(10, 15), is_test=True)
    order(brand, "B1", creator=ben, amount="300", received_at=at(10, 20))
    held(order(brand, "H1", creator=ana, amount="70", received_at=at(10, 16)), "self_referral")
    rejected = held(
        order(
            brand,
            "H2",
            creator=ana,
            amount="60",
            received_at=at(10, 17),
            by="code",
            discount_code=ana10,
            code_sent="ANA10",
        ),
        "code_leak",
    )

    lock_due_commissions(now=at(10, 20))  # A1, A4 (and A0) onto October's statement
    october = Statement.objects.get(brand=brand, month=month_of(at(10, 20)))
    pay_statement(statement_id=october.pk, at=at(11, 3))
    lock_due_commissions(now=at(11, 12))  # A2 onto November's
    changes.cancel_commission(key=key, payload={"order_id": "A4"}, received_at=at(11, 12, 13))
    changes.update_commission(
        key=key, payload={"order_id": "A5", "new_order_amount": 60, "currency": "USD"}, received_at=at(11, 13)
    )
    reject(rejected, at=at(10, 18))
    states = dict(Commission.objects.values_list("order__order_id", "state"))
    assert states == {
        "A0": "paid",
        "A1": "paid",
        "A2": "locked",
        "A3": "pending",
        "A4": "cancelled",
        "A5": "pending",
        "A6": "pending",
        "A7": "pending",
        "B1": "pending",
        "H1": "held",
        "H2": "cancelled",
    }, states
    return {"Ana": ana, "Ben": ben, "Cleo": cleo}


OCTOBER = {"period": "custom", "from": "2026-10-01", "to": "2026-10-31"}
