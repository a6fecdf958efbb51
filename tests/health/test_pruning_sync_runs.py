"""The shops' syncs are kept 400 days with the orders each read (health/pruning.py); a running one, and the
daily capture figures, stay."""

from datetime import timedelta

from django.utils import timezone

from attribution.models import DailyCapture, SyncedOrder, SyncRun
from brands.models import PlatformConnection
from health.pruning import prune_tables


def _run(connection, *, started_at, status="done"):
    run = SyncRun.objects.create(
        brand=connection.brand,
        connection=connection,
        trigger="nightly",
        window_start=started_at - timedelta(days=1),
        window_end=started_at,
        started_at=started_at,
        status=status,
        finished_at=None if status == "running" else started_at,
    )
    SyncedOrder.objects.create(
        brand=connection.brand,
        connection=connection,
        run=run,
        order_id=f"o-{run.pk}",
        path="sync",
        day=started_at.date(),
    )
    return run


def test_old_syncs_go_with_their_orders_and_the_capture_stays(prop):
    connection = PlatformConnection.objects.create(
        brand=prop.brand, property=prop, platform="shopify", shop_domain="acme.myshopify.com", secret="x"
    )
    now = timezone.now()
    old, recent = _run(connection, started_at=now - timedelta(days=401)), _run(connection, started_at=now)
    stuck = _run(connection, started_at=now - timedelta(days=500), status="running")
    DailyCapture.objects.create(
        brand=prop.brand, connection=connection, day=(now - timedelta(days=401)).date(), orders=1, by_sync=1
    )

    deleted = prune_tables(now=now)

    assert deleted["shops' syncs with the orders they read"] == 2
    assert set(SyncRun.objects.values_list("pk", flat=True)) == {recent.pk, stuck.pk}
    assert not SyncedOrder.objects.filter(run_id=old.pk).exists()
    assert DailyCapture.objects.count() == 1
