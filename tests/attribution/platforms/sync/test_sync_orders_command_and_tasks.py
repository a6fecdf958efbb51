"""The ways to run the sync (attribution.platforms.sync.orchestration): `manage.py sync_orders` runs it in the
foreground and prints what it found; the nightly task (health.tasks.sync_shops, its schedule's) queues one task
per shop that can be synced, and each shop's task syncs it."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from django_q.models import OrmQ

from attribution.models import SyncRun
from attribution.platforms.sync import orchestration
from attribution.platforms.sync.signals import sync_run_finished
from health import tasks
from health.alerts.models import Incident

from .conftest import at, shopify_order


def _run(*args) -> str:
    out = StringIO()
    call_command("sync_orders", *args, stdout=out)
    return out.getvalue()


def test_sync_orders_prints_what_it_found(shopify_shop, clock, yesterday):
    shopify_shop.orders.extend(shopify_order(n, placed_at=at(yesterday, n), subtotal="20.00") for n in (1, 2))

    printed = _run("--connection", str(shopify_shop.connection.pk))

    run = SyncRun.objects.get()
    assert run.trigger == "command" and run.recovered == 2
    assert f"shopify acme-sync.myshopify.com: Sync {run.pk} of connection" in printed
    assert "2 orders read in 1 pages, 2 recovered, 0 followed, 0 unchanged, 0 skipped." in printed
    assert printed.rstrip().endswith("Synced 1 connections: 2 orders recovered, 0 syncs failed.")


def test_sync_orders_takes_a_window_and_a_brand(shopify_shop, clock, yesterday, brand):
    shopify_shop.orders.append(shopify_order(1, placed_at=at(yesterday, 1), subtotal="20.00"))
    since = (yesterday - timedelta(days=2)).isoformat()

    _run("--brand", str(brand.pk), "--since", since, "--until", (yesterday + timedelta(days=1)).isoformat())

    run = SyncRun.objects.get()
    assert (run.window_start, run.follows_on, run.recovered) == (yesterday - timedelta(days=2), False, 1)


@pytest.mark.parametrize(
    "args, error",
    [
        (["--connection", "999"], "No connection 999."),
        (["--since", "2026-11-30", "--until", "2026-11-01"], "--since must be before --until."),
        (["--until", "2026-11-01"], "--until needs --since."),
    ],
)
def test_sync_orders_refuses_what_it_cannot_do(db, args, error):
    with pytest.raises(CommandError, match=error):
        _run(*args)


def test_a_failed_sync_fails_the_command(standin, shopify_shop, clock):
    standin.revoke(shopify_shop.domain)

    with pytest.raises(CommandError, match="1 syncs failed"):
        _run("--connection", str(shopify_shop.connection.pk))


def test_the_command_s_finished_run_opens_its_incidents_through_the_sync_s_signal(
    standin, shopify_shop, clock
):
    """attribution imports nothing of health: the run announces itself (sync_run_finished), health opens."""
    standin.revoke(shopify_shop.domain)

    with pytest.raises(CommandError):
        _run("--connection", str(shopify_shop.connection.pk))

    assert list(Incident.objects.values_list("rule", flat=True)) == ["disconnected"]
    assert SyncRun.objects.get().reported


def test_the_sync_announces_a_finished_run_once(shopify_shop, clock):
    heard = []

    def hear(sender, *, run, now, **kwargs):
        heard.append((sender, run.pk))

    sync_run_finished.connect(hear)
    try:
        orchestration.run_sync(shopify_shop.connection.pk, trigger="command", sleep=clock.sleep)
    finally:
        sync_run_finished.disconnect(hear)

    assert heard == [(SyncRun, SyncRun.objects.get(status=SyncRun.Status.DONE).pk)]


def test_the_nightly_task_queues_one_task_per_shop_that_can_be_synced(shopify_shop, woo_site):
    woo_site.connection.disconnected_at = timezone.now()
    woo_site.connection.save()

    assert tasks.sync_shops() == "Queued the sync of 1 shops."

    queued = [task for task in OrmQ.objects.all()]
    assert len(queued) == 1 and queued[0].func() == orchestration.TASK
    assert queued[0].args() == (shopify_shop.connection.pk, "nightly")


def test_a_shop_s_task_syncs_it(shopify_shop, clock, yesterday):
    shopify_shop.orders.append(shopify_order(1, placed_at=at(yesterday, 1), subtotal="20.00"))

    said = orchestration.sync_shop(shopify_shop.connection.pk)

    assert "1 recovered" in said
    assert SyncRun.objects.get().trigger == "nightly"
