"""What a page of the sync costs the database (docs/performance.md, "The nightly sync"): a new order is its
delivery's row and its own statement (order, commission and outcome row in one, on PostgreSQL), with no
savepoint and no read of its own: whether the page's orders were kept is one read for the page."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from attribution.models import Order
from attribution.platforms.sync import shopify_orders
from attribution.platforms.sync.acting import PageActor
from attribution.platforms.sync.runner import sync_connection

from .conftest import at, shopify_order

SQLITE_PER_ORDER = 3  # no one-statement insert there: the delivery, the order and its outcome row


def test_a_new_order_costs_the_page_two_statements_on_postgresql(monkeypatch, shopify_shop, clock, yesterday):
    monkeypatch.setattr(shopify_orders, "MAX_PAGE", 6)
    monkeypatch.setattr(shopify_orders, "MAX_QUERY_POINTS", 10_000)  # the page's size is MAX_PAGE's alone
    shopify_shop.orders.extend(
        shopify_order(n, placed_at=at(yesterday, n / 10), subtotal="20.00") for n in range(1, 16)
    )
    act, statements = PageActor.act, []

    def counted(self, documents, *, at):
        with CaptureQueriesContext(connection) as queries:
            done = act(self, documents, at=at)
        statements.append((len(documents), len(queries)))
        return done

    monkeypatch.setattr(PageActor, "act", counted)
    sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    # Pages of 6, 6 and 3 orders; the first also reads what the whole run then keeps (its shop's property).
    assert Order.objects.count() == 15
    _, (six, of_six), (three, of_three) = statements
    per_order = (of_six - of_three) / (six - three)
    assert per_order == (2 if connection.vendor == "postgresql" else SQLITE_PER_ORDER)
    # The page's own: what is held, what was kept, its deliveries and outcomes, and its SyncedOrder rows.
    assert of_three - 3 * per_order == 5


def test_an_order_the_decision_refuses_is_named_and_the_rest_of_its_page_recorded(
    shopify_shop, clock, yesterday
):
    shopify_shop.orders.extend(
        shopify_order(n, placed_at=at(yesterday, n / 10), subtotal=amount)
        for n, amount in ((1, "20.00"), (2, "-5.00"), (3, "30.00"))
    )

    synced = sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)

    run = synced.run
    run.refresh_from_db()
    kept = sorted(Order.objects.values_list("order_id", flat=True))
    assert len(kept) == 2 and not any(order_id.endswith("2") for order_id in kept)
    assert (run.recovered, run.skipped) == (2, 1)
    [error] = run.errors
    assert error["text"].startswith(f"Order {kept[0][:-1]}2 was not recorded (invalid_order_amount): ")
