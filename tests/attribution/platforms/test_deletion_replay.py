"""WooCommerce's order.deleted carries only the order's id, and its topic header is not signed: a signed order
body captured once and replayed under order.deleted (with a new delivery id) must cancel nothing, even for an
order the same site delivered (docs/threat-model.md, "The platforms' webhooks"). Only a deletion's own body,
the id alone, cancels."""

import pytest

from attribution.management.demo.standin.webhook_bodies import body_of, woocommerce_order
from attribution.models import Commission
from health.log.models import OutcomeEvent
from tests.factories import ClickFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def delivered(woocommerce, site, prop, creator):
    """The site's signed order.created of order 727, attributed: the bytes an eavesdropper keeps."""
    click = ClickFactory(property=prop, creator=creator)
    raw = body_of(woocommerce_order(meta=[("sms_click_id", click.click_id)]))
    assert woocommerce("order.created", body=raw).json()["outcome"] == "tracked"
    return raw


def test_a_signed_order_replayed_as_order_deleted_cancels_nothing(woocommerce, delivered):
    answer = woocommerce("order.deleted", body=delivered, x_wc_webhook_delivery_id="replayed-under-deleted")

    assert (answer.status_code, answer.json()["outcome"]) == (200, "ignored")
    assert (
        "carries the order's fields, which a deletion never does: nothing was cancelled"
        in (answer.json()["message"])
    )
    assert Commission.objects.get().state == "pending"
    assert OutcomeEvent.objects.order_by("-id").first().outcome == "ignored"


@pytest.mark.parametrize(
    "body",
    [{"id": 727, "status": "trash"}, {"id": 727, "total": "0.00"}, {"id": 727, "meta_data": []}],
    ids=["status", "total", "meta_data"],
)
def test_a_deletion_body_with_any_order_field_cancels_nothing(woocommerce, delivered, body):
    answer = woocommerce("order.deleted", body)

    assert answer.json()["outcome"] == "ignored"
    assert Commission.objects.get().state == "pending"


def test_the_deletion_s_own_body_still_cancels_the_order_the_site_delivered(woocommerce, delivered):
    answer = woocommerce("order.deleted", {"id": 727})

    assert (answer.json()["outcome"], answer.json()["message"]) == (
        "tracked",
        "The commission of order 727 was cancelled.",
    )
    assert Commission.objects.get().state == "cancelled"


def test_a_captured_deletion_replayed_later_changes_nothing_more(woocommerce, delivered):
    """What is left (docs/threat-model.md): the deletion's own body, replayed under a new delivery id, can only
    cancel what the site deleted, which is cancelled already."""
    woocommerce("order.deleted", {"id": 727})

    answer = woocommerce("order.deleted", {"id": 727}, x_wc_webhook_delivery_id="replayed-deletion")

    assert (answer.status_code, answer.json()["outcome"]) == (200, "already_cancelled")
    assert Commission.objects.get().state == "cancelled"
