"""The sync's own runner (docs/operations.md, "The sync's own runner"): with SYNC_TASK_CLUSTER set, every shop's
sync (the nightly's, its continuation, and Sync now's: tests/health/pages/test_sync_pages.py) is queued for the task runner of that name, which a deploy
runs at the lowest CPU weight beside the web servers; without it the task runner takes them, as `make run` has
it. django-q2's ORM broker keeps a task's queue in its row's key."""

import json
import os
import subprocess
import sys
from pathlib import Path

from django_q.conf import Conf
from django_q.models import OrmQ

from attribution.models import SyncRun
from attribution.platforms.sync import orchestration, runner, shopify_orders

from .conftest import at, shopify_order

ROOT = Path(__file__).resolve().parents[4]


def _queued() -> list[tuple[str, str, tuple]]:
    return [(task.key, task.func(), task.args()) for task in OrmQ.objects.order_by("pk")]


def test_without_a_sync_runner_the_task_runner_takes_the_shops_syncs(settings, shopify_shop):
    settings.SYNC_TASK_CLUSTER = ""

    orchestration.queue_nightly()

    assert _queued() == [(Conf.CLUSTER_NAME, orchestration.TASK, (shopify_shop.connection.pk, "nightly"))]


def test_the_nightly_syncs_queue_for_the_sync_runner_named(settings, shopify_shop):
    settings.SYNC_TASK_CLUSTER = "sync"

    orchestration.queue_nightly()

    assert _queued() == [("sync", orchestration.TASK, (shopify_shop.connection.pk, "nightly"))]


def test_a_run_with_pages_left_carries_on_on_the_sync_runner(
    settings, monkeypatch, shopify_shop, clock, yesterday
):
    settings.SYNC_TASK_CLUSTER = "sync"
    monkeypatch.setattr(shopify_orders, "MAX_PAGE", 3)
    monkeypatch.setattr(runner, "SECONDS", 0.0)  # the task's time is up after its first page
    shopify_shop.orders.extend(
        shopify_order(n, placed_at=at(yesterday, n), subtotal="20.00") for n in range(1, 6)
    )

    said = orchestration.sync_shop(shopify_shop.connection.pk)

    run = SyncRun.objects.get()
    assert run.status == SyncRun.Status.RUNNING and run.pages == 1 and "carried on" in said.lower()
    assert _queued() == [("sync", orchestration.TASK, (shopify_shop.connection.pk, "nightly"))]


def test_the_sync_runner_starts_as_its_own_cluster_with_the_task_runner_s_settings():
    """`Q_CLUSTER_NAME=sync manage.py qcluster` reads the settings settings.py makes: its queue is its name, and
    it keeps the task runner's timeout and retries (django-q2 refuses a name without its ALT_CLUSTERS entry)."""
    code = (
        "import django, json; django.setup(); from django_q.conf import Conf; "
        "print(json.dumps([Conf.CLUSTER_NAME, Conf.WORKERS, Conf.TIMEOUT, Conf.RETRY]))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SYNC_TASK_CLUSTER": "sync"}
    env.update(Q_CLUSTER_NAME="sync", TASK_WORKERS="3")
    env.pop("DATABASE_URL", None)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout

    assert json.loads(out.strip().splitlines()[-1]) == ["sync", 3, 240, 300]
