"""POST /api/Affiliates/cancel's fields (docs/api.md)."""

from .fields import FlagField, HostField, OrderIdField
from .requests import DOMAIN_OF_CHANGE, ORDER_ID_OF_CHANGE, TEST_OF_CHANGE, RequestSerializer


class CancellationSerializer(RequestSerializer):
    """A cancellation, its fields in the order they are judged: the first that fails decides."""

    order_id = OrderIdField(**ORDER_ID_OF_CHANGE)
    test = FlagField(**TEST_OF_CHANGE)
    domain = HostField(**DOMAIN_OF_CHANGE)
