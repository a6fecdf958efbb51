"""What-if of an order a storefront platform's webhook brought (the order page's "judged today"): the order as
the outcome log kept it, read again by its platform's module as its new-order topic reads it, and judged by
the same decision today, as a delivery would be. Reads only; nothing is written."""

from datetime import datetime

from brands.models import PlatformConnection

from .notices import Action, OrderNotice
from .reading import loads_order
from .recording import decide_again as decide_notice_again
from .registry import platform_named


def decide_again(
    endpoint: str, body: str, connection: PlatformConnection, *, at: datetime
) -> tuple[str, list[dict]] | None:
    """The outcome and trace the platform's order kept in `body` would get at `at`; None when the platform is
    gone, or the body can no longer be read as an order or no longer reaches a decision."""
    platform = platform_named(endpoint)
    if platform is None:
        return None
    try:
        document = loads_order(body.encode())
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    read = platform.read(topic=platform.new_order_topic, document=document, connection=connection)
    if read.order is None or read.refusal is not None:
        return None
    notice = OrderNotice(
        endpoint=endpoint,
        platform=platform.title,
        connection_id=connection.pk,
        brand_id=connection.brand_id,
        host=connection.property.host,
        delivery_id="",
        topic=platform.new_order_topic,
        action=Action.RECORD,
        order=read.order,
    )
    return decide_notice_again(notice, at=at)
