"""A delivery's notice (attribution.platforms.notice.OrderNotice): the receiver makes it unread, and its platform's
read returns what it asks as a new notice."""

from attribution.platforms.notice import Action, OrderNotice, PlatformOrder


def _unread() -> OrderNotice:
    return OrderNotice(
        endpoint="shopify",
        platform="Shopify",
        connection_id=7,
        brand_id=3,
        host="shop.acme.example",
        delivery_id="b54557e4",
        topic="orders/cancelled",
        action=Action.IGNORE,
        warnings=["a warning the receiver gave"],
        synced="found by the sync",
    )


def test_asking_gives_a_new_notice_with_what_is_asked_and_the_delivery_s_own_fields():
    unread = _unread()
    order = PlatformOrder(order_id=5820398473216, amount="59.90", currency="USD")

    asked = unread.asking(Action.CANCEL, order, own_orders_only=True)

    assert asked is not unread
    assert asked == OrderNotice(
        endpoint="shopify",
        platform="Shopify",
        connection_id=7,
        brand_id=3,
        host="shop.acme.example",
        delivery_id="b54557e4",
        topic="orders/cancelled",
        action=Action.CANCEL,
        order=order,
        warnings=["a warning the receiver gave"],
        own_orders_only=True,
        synced="found by the sync",
    )
    assert unread == _unread()  # the unread notice is left as it was


def test_asking_again_replaces_every_answer_of_the_first_asking():
    first = _unread().asking(
        Action.RECORD, refusal=["invalid_params", "The body is not JSON."], own_orders_only=True
    )

    again = first.asking(Action.IGNORE, note="Nothing to do.")

    assert (again.action, again.order, again.note, again.refusal, again.own_orders_only) == (
        Action.IGNORE,
        None,
        "Nothing to do.",
        None,
        False,
    )
