"""`make bench`'s services (bench/run.py): the project and the floors each under its own gunicorn, the same
command line but for the WSGI module and the port, started, waited for until every worker has imported its
application, and stopped."""

import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.world import PY, RESULTS, ROOT

# The three services: the same gunicorn command line, only the WSGI module (and the port) differs.
SERVERS = {
    "project": "config.wsgi:application",
    "django_floor": "bench.floor.wsgi:application",
    "minimal_floor": "bench.floor.minimal.wsgi:application",
    "plain_floor": "bench.floor.plain:application",
}


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    sys.exit(f"gunicorn did not start on port {port}; see bench/results/gunicorn-*.log")


def start_servers(env: dict, *, port: int, workers: int, worker_class: str, threads: int) -> dict:
    servers = {}
    for offset, (name, module) in enumerate(SERVERS.items()):
        log = open(RESULTS / f"gunicorn-{name}.log", "w")
        command = [
            PY,
            "-m",
            "gunicorn",
            module,
            "--no-control-socket",
            "-w",
            str(workers),
            "-k",
            worker_class,
            *(["--threads", str(threads)] if worker_class == "gthread" else []),
            "-b",
            f"127.0.0.1:{port + offset}",
            "--access-logfile",
            "-",
            "--log-level",
            "warning",
        ]
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
        servers[name] = {"port": port + offset, "process": process, "log": log, "command": command[2:]}
    for server in servers.values():
        wait_for_port(server["port"])
    wait_until_booted([server["process"].pid for server in servers.values()], workers=workers)
    return servers


def _children_cpu(masters: list[int]) -> tuple[int, int]:
    """How many workers the gunicorn masters have, and their CPU time so far (clock ticks)."""
    count = ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) in masters:  # ppid
            count += 1
            ticks += int(fields[11]) + int(fields[12])  # utime + stime
    return count, ticks


def wait_until_booted(masters: list[int], *, workers: int, timeout: float = 60) -> None:
    """Until every worker of every server has imported its application: the port opens before they
    have, and 15 workers importing Django on two cores would slow the first scenario down."""
    deadline = time.monotonic() + timeout
    last = -1
    while time.monotonic() < deadline:
        count, ticks = _children_cpu(masters)
        if count == workers * len(masters) and ticks - last <= 2:
            return
        last = ticks
        time.sleep(0.5)


def stop_servers(servers: dict) -> None:
    for server in servers.values():
        server["process"].terminate()
    for server in servers.values():
        server["process"].wait(timeout=30)
        server["log"].close()
