"""Who used the machine during a measured run: the bench itself, or someone else.

The bench shares two cores with whatever else runs on the VM (other engineers' tests and benches, the
hypervisor's other guests). When others take a large share, every service is starved alike and the
ratios drift towards 1, so each measured run records the share of both cores' time taken by processes
that are not the bench's (not wrk, the gunicorns and their workers, or the PostgreSQL sessions of the
bench database) and the share stolen by the hypervisor. From /proc; Linux only.
"""

import os
import resource
from pathlib import Path

import psycopg

_TICK = os.sysconf("SC_CLK_TCK")


def _machine() -> tuple[int, int, int]:
    """All CPUs since boot, in clock ticks: (busy, stolen, total)."""
    user, nice, system, idle, iowait, irq, softirq, steal = (
        int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]
    )
    busy = user + nice + system + irq + softirq
    return busy, steal, busy + idle + iowait + steal


def _ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime


def _children(parents: set[int]) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rpartition(")")[2].split()[1]) in parents:
                found.add(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return found


def _waited_children() -> int:
    """CPU of this process's finished children (wrk), in clock ticks."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((usage.ru_utime + usage.ru_stime) * _TICK)


class Meter:
    """`start()` before a measured run, `stop()` after it: the run's shares of both cores' time, the
    CPU seconds the bench's own processes spent (the service's workers and database sessions, wrk), and
    the MultiXacts made meanwhile (`pg_stat_slru`, with the next MultiXact id)."""

    def __init__(self, masters: list[int], database_url: str):
        self.masters = set(masters)
        self.database = psycopg.connect(database_url, autocommit=True)

    def _ours(self) -> set[int]:
        sessions = self.database.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        return self.masters | _children(self.masters) | {pid for (pid,) in sessions}

    def _multixacts(self) -> tuple:
        """MultiXacts made so far (the next id: mxid_age of the first), and the SLRU counters of their two
        caches. Cluster-wide: concurrent row locks of one parent row (foreign-key checks) make them."""
        next_id = self.database.execute("SELECT mxid_age('1'::xid)").fetchone()[0]
        slru = self.database.execute(
            "SELECT sum(blks_zeroed), sum(blks_hit), sum(blks_read), sum(blks_written) FROM pg_stat_slru "
            "WHERE name IN ('MultiXactOffset', 'MultiXactMember')"
        ).fetchone()
        return (next_id, *(int(v or 0) for v in slru))

    def start(self) -> None:
        self.before = (_machine(), {pid: _ticks(pid) for pid in self._ours()}, _waited_children())
        self.multixacts = self._multixacts()

    def stop(self) -> dict:
        (busy0, steal0, total0), ticks0, wrk0 = self.before
        busy1, steal1, total1 = _machine()
        # A worker replaces its database session after CONN_MAX_AGE: a session that started during the
        # run counts whole; one that ended during it counts nothing after its last reading.
        pids = self._ours() | ticks0.keys()
        ours = sum(max(_ticks(pid) - ticks0.get(pid, 0), 0) for pid in pids) + _waited_children() - wrk0
        total = max(total1 - total0, 1)
        busy = busy1 - busy0
        made, zeroed, hit, read, written = (
            b - a for a, b in zip(self.multixacts, self._multixacts(), strict=True)
        )
        return {
            "multixacts": made,
            "multixact_slru": {"zeroed": zeroed, "hit": hit, "read": read, "written": written},
            "busy": round(busy / total, 3),
            "others": round(max(busy - ours, 0) / total, 3),
            "stolen": round((steal1 - steal0) / total, 3),
            "bench_cpu_s": ours / _TICK,
        }

    def close(self) -> None:
        self.database.close()
