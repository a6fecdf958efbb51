"""What the Shopify webhook tests (test_shopify_*.py) share: the endpoint, the order's id, the outcome rows."""

from health.log.models import OutcomeEvent

URL = "/api/platforms/shopify"
ORDER = "5820398473216"


def rows():
    return list(
        OutcomeEvent.objects.order_by("id").values_list("endpoint", "outcome", "http_status", "order_id")
    )


def only_row():
    (row,) = OutcomeEvent.objects.all()
    return row
