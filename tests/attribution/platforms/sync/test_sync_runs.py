"""One shop's sync runs once at a time and survives its runner: a second runner finds the run busy, a run whose
runner died (its lease run out) is taken over and carried on from its last page, and two runners racing to start
or to take over one shop's sync make one run (PostgreSQL)."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from attribution.models import Order, SyncedOrder, SyncRun
from attribution.platforms.sync import runs, shopify_orders
from attribution.platforms.sync.acting import PageActor
from attribution.platforms.sync.runner import sync_connection
from tests.attribution.concurrently import run_together

from .conftest import at, shopify_order


class Died(BaseException):
    """The runner's process killed (not an error the sync handles)."""


def _orders(shop, day, count):
    shop.orders.extend(
        shopify_order(n, placed_at=at(day, n / 10), subtotal="20.00") for n in range(1, count + 1)
    )


def test_a_run_whose_runner_died_is_taken_over_and_carried_on_from_its_last_page(
    monkeypatch, shopify_shop, clock, yesterday
):
    monkeypatch.setattr(shopify_orders, "MAX_PAGE", 3)
    _orders(shopify_shop, yesterday, 8)
    act, pages = PageActor.act, []

    def dies_on_the_second_page(self, documents, *, at):
        pages.append([d["id"] for d in documents])
        if len(pages) == 2:
            act(self, documents[:1], at=at)  # one order of the page recorded, then the process is killed:
            raise Died  # the page's transaction never commits
        return act(self, documents, at=at)

    monkeypatch.setattr(PageActor, "act", dies_on_the_second_page)
    with pytest.raises(Died):
        sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    monkeypatch.setattr(PageActor, "act", act)
    crashed = SyncRun.objects.get()
    assert (crashed.status, crashed.pages, Order.objects.count()) == ("running", 1, 3)

    # Within its lease the run is its runner's: another runner leaves it alone.
    busy = sync_connection(shopify_shop.connection.pk, trigger="nightly", sleep=clock.sleep)
    assert busy.run is None and busy.busy.pk == crashed.pk

    later = timezone.now() + runs.LEASE + timedelta(minutes=1)
    resumed = sync_connection(
        shopify_shop.connection.pk,
        trigger="nightly",
        sleep=clock.sleep,
        clock=lambda: later,
        runner="other:2",
    )

    assert resumed.resumed and resumed.run.pk == crashed.pk
    run = SyncRun.objects.get()
    assert (run.status, run.pages, run.runner) == ("done", 3, "other:2")
    assert Order.objects.count() == 8
    assert run.recovered == SyncedOrder.objects.filter(run=run, path="sync").count() == 8
    # It carried on from its second page: the first was not read again.
    assert run.orders_read == 3 + 3 + 2


def test_a_runner_that_lost_its_run_stops_at_its_next_checkpoint(shopify_shop, clock):
    started = runs.begin(shopify_shop.connection, trigger="nightly", now=timezone.now(), runner="first:1")
    later = timezone.now() + runs.LEASE + timedelta(seconds=1)
    taken = runs.begin(shopify_shop.connection, trigger="nightly", now=later, runner="second:2")
    assert taken.resumed and taken.run.pk == started.run.pk

    with pytest.raises(runs.LeaseLost):
        runs.checkpoint(started.run, cursor="x", counts={"orders_read": 1}, now=later)

    assert not runs.finish(started.run, status="done", now=later)
    assert SyncRun.objects.get().status == "running"


def test_the_database_keeps_one_running_run_a_shop(shopify_shop):
    runs.begin(shopify_shop.connection, trigger="nightly", now=timezone.now())
    with pytest.raises(IntegrityError), transaction.atomic():
        SyncRun.objects.create(
            brand_id=shopify_shop.connection.brand_id,
            connection=shopify_shop.connection,
            trigger="manual",
            window_start=timezone.now() - timedelta(days=1),
            window_end=timezone.now(),
        )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres_only")
def test_runners_racing_to_start_one_shop_s_sync_make_one_run(shopify_shop):
    now = timezone.now()
    started = run_together(
        *[
            lambda n=n: runs.begin(
                shopify_shop.connection, trigger="nightly", now=now, runner=f"machine{n}:1"
            )
            for n in range(4)
        ]
    )

    assert sum(1 for s in started if s.run is not None) == 1
    assert all(s.busy is not None for s in started if s.run is None)
    assert SyncRun.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres_only")
def test_runners_racing_to_take_over_a_dead_runner_s_run_carry_it_on_once(shopify_shop):
    dead = runs.begin(shopify_shop.connection, trigger="nightly", now=timezone.now(), runner="dead:1").run
    later = timezone.now() + runs.LEASE + timedelta(minutes=1)

    started = run_together(
        *[
            lambda n=n: runs.begin(
                shopify_shop.connection, trigger="nightly", now=later, runner=f"machine{n}:1"
            )
            for n in range(4)
        ]
    )

    taken = [s for s in started if s.run is not None]
    assert len(taken) == 1 and taken[0].resumed and taken[0].run.pk == dead.pk
    assert SyncRun.objects.count() == 1
    assert SyncRun.objects.get().runner == taken[0].run.runner
