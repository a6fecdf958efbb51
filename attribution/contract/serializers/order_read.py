"""GET /api/Affiliates/orders/<order_id>'s path and query (docs/api.md)."""

from attribution.contract import examples

from .fields import FlagField, PathTextField
from .requests import RequestSerializer
from .requests import optional as _optional


class OrderReadSerializer(RequestSerializer):
    """GET /api/Affiliates/orders/<order_id>: the path's order id and the query's test flag."""

    TEST_MAX_LENGTH = 32  # the query's test flag as sent, at most: `true` with room for spaces, within 8 KB
    order_id = PathTextField(
        example=examples.READ_ORDER,  # a read changes nothing: it shows the order the read example finds
        help_text="The order id as sent on the order confirmation, URL-encoded; slashes may stay.",
    )
    test = FlagField(**_optional(example=False), help_text="Read the test namespace.")
