"""How long a sync rests between pages, so that the live order path beside it keeps its latency
(docs/operations.md, "How fast a sync reads"; docs/performance.md, "The sync that rests only when the machine is
busy").

A sync that always rested would crawl through a quiet night for no one's sake; one that never rested takes the
tail of the live path's latency while checkouts are busy. So the rest follows the machine: Linux's pressure stall
information (PSI, /proc/pressure/cpu) counts the time during which some task was waiting for a CPU. Over the last
page (and the rest before it), when that was at least SYNC_BUSY_CPU_SHARE of the time, the machine is busy and
the sync rests SYNC_PAUSE_RATIO times the page's own time; otherwise it reads on at once. Where the kernel does
not say (no PSI: another system, an old kernel, a container that hides it), the sync always rests.
"""

import time
from collections.abc import Callable
from pathlib import Path

PRESSURE = Path("/proc/pressure/cpu")


def cpu_stall_us(path: Path = PRESSURE) -> int | None:
    """The machine's total microseconds in which some task waited for a CPU, or None where PSI is not there."""
    try:
        text = path.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("some "):
            for field in line.split():
                if field.startswith("total="):
                    return int(field.removeprefix("total="))
    return None


class Pace:
    """The rests of one sync: `rest(page_seconds)` after each page says how long to rest before the next."""

    def __init__(
        self,
        *,
        ratio: float,
        busy_share: float,
        stall: Callable[[], int | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.ratio = ratio
        self.busy_share = busy_share
        self._stall = stall or (lambda: cpu_stall_us())
        self._clock = clock
        self._mark = (clock(), self._stall())
        self.rests = 0  # pages after which it rested ...
        self.skipped = 0  # ... and after which the machine was quiet and it read on

    def busy(self) -> bool:
        """Whether, since the last call (or the start), a CPU was wanted at least `busy_share` of the time."""
        now, stalled = self._clock(), self._stall()
        then, before = self._mark
        self._mark = (now, stalled)
        if self.busy_share <= 0 or stalled is None or before is None:
            return True  # unknown: rest, as a fixed ratio would
        return (stalled - before) / 1e6 >= self.busy_share * max(now - then, 1e-6)

    def rest(self, page_seconds: float) -> float:
        if self.ratio <= 0:
            return 0.0
        if not self.busy():
            self.skipped += 1
            return 0.0
        self.rests += 1
        return page_seconds * self.ratio
