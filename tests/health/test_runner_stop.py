"""The task runner stops gracefully (docs/operations.md, "Stopping the task runner"): SIGTERM to its main
process lets a task already running finish and be recorded before the process exits, so a deploy that
signals only the main process (systemd's KillMode=mixed) never cuts a notification delivery in half.

The runner is a real `manage.py qcluster` in a subprocess, on a SQLite file of its own (a subprocess cannot
see the test's database). The task (tests/health/held_task.py) waits for the test's signal, so the stop
surely lands in the middle of it; the waits below are bounded polls, not timings."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def wait_for(condition, what: str, seconds: float = 90):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def runner_env(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'runner.sqlite3'}",
        "TASK_POLL_SECONDS": "0.1",
        "TASK_WORKERS": "1",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return env


def enqueue_held_task(env, folder: Path) -> None:
    code = (
        f"from django_q.tasks import async_task; async_task('tests.health.held_task.held', {str(folder)!r})"
    )
    subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, check=True)


def test_sigterm_to_the_main_process_lets_the_running_task_finish_and_be_recorded(runner_env, tmp_path):
    folder = tmp_path / "task"
    folder.mkdir()
    enqueue_held_task(runner_env, folder)
    runner = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=ROOT,
        env=runner_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for((folder / "started").exists, "the task to start")

        runner.send_signal(signal.SIGTERM)  # the main process only, as KillMode=mixed does
        (folder / "release").write_text("")
        code = runner.wait(timeout=120)
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)

    assert code == 0
    assert (folder / "finished").exists()
    with sqlite3.connect(tmp_path / "runner.sqlite3") as db:
        rows = db.execute(
            "SELECT success, result FROM django_q_task WHERE func = 'tests.health.held_task.held'"
        ).fetchall()
    assert len(rows) == 1 and rows[0][0] == 1
