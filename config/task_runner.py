"""The task runner's settings (django-q2, ORM broker: the database is the queue), as settings.py sets them
(Q_CLUSTER). `manage.py qcluster` runs the schedules of health/tasks.py; two clusters at once never run one
scheduled run twice. Reads no environment: settings.py passes TASK_WORKERS, TASK_POLL_SECONDS and
SYNC_TASK_CLUSTER.

The shops' syncs may have a runner of their own (SYNC_TASK_CLUSTER, docs/operations.md, "The sync's own
runner"): django-q2's alternate cluster of that name, started as `Q_CLUSTER_NAME=<name> manage.py qcluster`,
takes only the tasks queued to it and runs no schedule, so it can run at the lowest CPU weight while this runner
keeps the alerts on time."""


def task_runner_settings(*, workers: int, poll: float, sync_cluster: str = "") -> dict:
    settings = {
        "name": "attribution",
        "orm": "default",
        "workers": workers,
        # A task taking longer is stopped. A task that failed, was stopped or whose worker died stays queued
        # and runs again `retry` seconds later, up to `max_attempts` runs in all.
        "timeout": 240,
        "retry": 300,
        "max_attempts": 3,
        "ack_failures": False,
        # After downtime, run a missed schedule once, not once per missed minute.
        "catch_up": False,
        # How often an idle worker asks the database for work.
        "poll": poll,
        "save_limit": 1000,
        "label": "Background tasks",
    }
    if sync_cluster:
        # The sync's runner takes these settings too, with its own queue (its name); the same workers.
        settings["ALT_CLUSTERS"] = {sync_cluster: {"workers": workers}}
    return settings
