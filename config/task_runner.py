"""The task runner's settings (django-q2, ORM broker: the database is the queue), as settings.py sets them
(Q_CLUSTER). `manage.py qcluster` runs the schedules of health/tasks.py; two clusters at once never run one
scheduled run twice. Reads no environment: settings.py passes TASK_WORKERS and TASK_POLL_SECONDS."""


def task_runner_settings(*, workers: int, poll: float) -> dict:
    return {
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
