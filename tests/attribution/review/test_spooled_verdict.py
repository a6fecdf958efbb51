"""The disposable_email rule judges an order the spool kept as it would have on arrival (docs/review.md): the
spool keeps only the address's hash, so the throwaway-domain verdict is taken before the address is hashed and
kept beside it, for an order confirmation and a dead letter retried (a platform's delivery:
tests/attribution/platforms/test_review_holds.py)."""

import json

import pytest

from attribution.durability import spool
from attribution.models import Commission, CommissionHold
from attribution.replay import replay_all, replay_entry
from tests.factories import ClickFactory
from tests.faults import failing_writes_to

pytestmark = pytest.mark.django_db

ORDER_PATH = "/api/order_confirmation"


def _order(prop, click, email):
    return {
        "orderAmount": "50.00",
        "orderId": "SP-1",
        "currency": "USD",
        "page_url": f"https://{prop.host}/thanks",
        "clickId": click.click_id,
        "customer_email": email,
    }


def test_a_spooled_order_from_a_throwaway_address_is_held_when_replayed(api, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    with failing_writes_to("attribution_order"):
        assert api.post(ORDER_PATH, _order(prop, click, "someone@mailinator.com")).json()["outcome"] == (
            "insert_failed"
        )
    [entry] = spool.pending()
    assert "mailinator" not in json.dumps(entry.document) and entry.email_disposable

    assert replay_all().replayed == 1

    assert Commission.objects.get().state == Commission.State.HELD
    assert CommissionHold.objects.get().rule == "disposable_email"


def test_a_spooled_order_from_an_ordinary_address_is_not_held(api, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    with failing_writes_to("attribution_order"):
        api.post(ORDER_PATH, _order(prop, click, "ana@example.com"))
    assert not spool.pending()[0].email_disposable

    replay_all()

    assert Commission.objects.get().state == Commission.State.PENDING


def test_a_dead_letter_retried_keeps_the_verdict(api, prop, creator):
    click = ClickFactory(property=prop, creator=creator)
    with failing_writes_to("attribution_order"):
        api.post(ORDER_PATH, _order(prop, click, "someone@mailinator.com"))
    letter = spool.dead_letter(spool.pending()[0], reason="a bug, since fixed")
    assert letter.email_disposable and "mailinator" not in letter.body

    replay_entry(spool.entry_of(letter))

    assert CommissionHold.objects.get().rule == "disposable_email"
