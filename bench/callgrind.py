"""Valgrind's client requests (valgrind/callgrind.h) for the cost harnesses (bench/cost.py, bench/phases.py):
a tiny library that zeroes, dumps and toggles callgrind's counters, compiled on first use (needs a C compiler
and valgrind's headers; Debian's valgrind package has them), and the instructions each dump counted."""

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

from bench.world import RESULTS

CALLGRIND = RESULTS / "callgrind"
_CTL_SOURCE = """#include <valgrind/callgrind.h>
void bench_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void bench_zero(void) { CALLGRIND_ZERO_STATS; }
void bench_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
void bench_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
"""


def ctl_library() -> Path:
    """The control library's path, built on first use."""
    CALLGRIND.mkdir(parents=True, exist_ok=True)
    # Named by its source, so a library built from an older source is never loaded.
    library = CALLGRIND / f"ctl-{hashlib.sha256(_CTL_SOURCE.encode()).hexdigest()[:12]}.so"
    if not library.exists():
        source = CALLGRIND / "ctl.c"
        source.write_text(_CTL_SOURCE)
        compiler = shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            sys.exit("make bench-cost needs a C compiler (cc) for valgrind's client requests.")
        built = subprocess.run(
            [compiler, "-shared", "-fPIC", "-O1", "-o", library, source], capture_output=True
        )
        if built.returncode != 0:
            sys.exit(f"could not build the callgrind control library:\n{built.stderr.decode()}")
    return library


def dump_totals(prefix: Path) -> dict[str, int]:
    """Instructions of each dump `prefix`.N, by the name its client request gave it."""
    totals = {}
    for dump in sorted(prefix.parent.glob(prefix.name + ".*"), key=lambda p: int(p.suffix[1:] or 0)):
        text = dump.read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.M)
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if trigger and total:
            totals[trigger.group(1)] = int(total.group(1))
    return totals
