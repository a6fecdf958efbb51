"""A task for tests/health/test_runner_stop.py: it runs until the test releases it, leaving a file at each step,
so the test can stop the task runner while the task is in the middle of its work."""

import time
from pathlib import Path


def held(folder: str) -> str:
    here = Path(folder)
    (here / "started").write_text("")
    deadline = time.monotonic() + 120
    while not (here / "release").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("never released")
        time.sleep(0.02)
    (here / "finished").write_text("")
    return "finished"
