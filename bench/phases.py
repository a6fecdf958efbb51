"""`make bench-phases`: where an order confirmation's (and a cancel's or update's) instructions go.

The project's WSGI application is called in-process under valgrind's callgrind, on the traffic of
`make bench-cost` (bench/traffic.py), with collection off. For each phase (a Python function, named
`module:attribute.path` where the request path looks it up) the function is wrapped so that
callgrind collects only while it runs (CALLGRIND_TOGGLE_COLLECT on the outermost entry and exit), a
fresh batch of requests is sent, and the counters are dumped: the phase's instructions, inclusive of
everything it calls, per request. Callgrind sees C functions only (Python 3.11 has no frame
trampolines for it), which is why the phases are toggled from Python.

Each wrapped call costs the toggles' own ctypes calls; the harness measures that on an empty function
and subtracts it per call. Python's cyclic garbage collector is paused while a phase is counted: a
collection (about 1 % of an order's instructions, amortized) would land in whichever phase allocated
when it ran, so `make bench-cost`, which keeps it, counts slightly more than the phase called "request". The figures are the same kind as `make bench-cost`'s (client process only)
and, like them, do not drift with the machine's load.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> python -m bench.phases [--phases name,...]
"""

import argparse
import ctypes
import gc
import importlib
import json
import os
import subprocess
import sys
import time

from bench import callgrind, cost, traffic
from bench.world import PY, RESULTS, ROOT, bench_env, database_url, prepare_world

# What is measured, in the order it is printed: (scenario, name, where the request path looks it up).
# "*" is the whole request as the server calls it (application and its answer's body).
PHASES = [
    ("orders", "request", "*"),
    (
        "orders",
        "Django handler: request object, middleware, view",
        "django.core.handlers.base:BaseHandler.get_response",
    ),
    (
        "orders",
        "middleware: request id and log line",
        "attribution.http.middleware:RequestIdMiddleware.__call__",
    ),
    ("orders", "  the request log line", "attribution.http.middleware:logger.info"),
    ("orders", "middleware: replica reads", "config.db.router:ReplicaReadsMiddleware.__call__"),
    ("orders", "middleware: security", "django.middleware.security:SecurityMiddleware.__call__"),
    ("orders", "middleware: CORS", "attribution.http.middleware:BrowserCallersMiddleware.__call__"),
    ("orders", "middleware: host check and length", "attribution.http.middleware:APIHostMiddleware.__call__"),
    ("orders", "URL resolution", "config.wsgi:APIHandler.resolve_request"),
    ("orders", "view (DRF dispatch)", "rest_framework.views:APIView.dispatch"),
    ("orders", "  DRF request wrapping", "attribution.api.views:EventView.initialize_request"),
    ("orders", "  initial: body, throttles", "attribution.api.views:EventView.initial"),
    ("orders", "    body parse (StrictJSONParser)", "attribution.parsing:StrictJSONParser.parse"),
    ("orders", "    throttles", "rest_framework.views:APIView.check_throttles"),
    ("orders", "  post", "attribution.api.views:EventView.post"),
    ("orders", "    the receipt", "attribution.api.views:EventView._receipt"),
    ("orders", "    confirm_order", "attribution.api.views:confirm_order"),
    ("orders", "      the typed order", "attribution.orders.confirmation:read_confirmation"),
    ("orders", "        brand resolution", "attribution.orders.event_brand:resolve_event"),
    (
        "orders",
        "        asks_for_test",
        "attribution.orders.confirmation:OrderConfirmationSerializer.asks_for_test",
    ),
    ("orders", "        field rules", "attribution.orders.confirmation:parse_confirmation"),
    ("orders", "      judge", "attribution.orders.confirmation:_judge"),
    ("orders", "        decision (click, code lookups)", "attribution.orders.confirmation:decide"),
    ("orders", "        rows", "attribution.orders.confirmation:rows_to_store"),
    ("orders", "        duplicate's result", "attribution.orders.confirmation:_duplicate"),
    ("orders", "      outcome row (EventRecord.of)", "health.log.writer:EventRecord.of"),
    ("orders", "        keep_body", "health.log.writer:keep_body"),
    ("orders", "        redact_value", "health.log.writer:redact_value"),
    ("orders", "      write_order", "attribution.orders.confirmation:store.write_order"),
    ("orders", "        execute", "django.db.backends.utils:CursorWrapper.execute"),
    ("orders", "  answer (Response)", "attribution.api.views:EventView.answer"),
    ("orders", "  finalize_response", "attribution.api.views:EventView.finalize_response"),
    ("orders", "    _record", "attribution.api.views:EventView._record"),
    ("orders", "  render (JSON)", "rest_framework.renderers:JSONRenderer.render"),
    ("orders", "request signals (connections, ...)", "django.dispatch.dispatcher:Signal.send"),
    ("changes", "request", "*"),
    (
        "changes",
        "middleware: request id and log line",
        "attribution.http.middleware:RequestIdMiddleware.__call__",
    ),
    ("changes", "view (DRF dispatch)", "rest_framework.views:APIView.dispatch"),
    ("changes", "  authentication", "brands.auth:DeveloperKeyAuthentication.authenticate"),
    ("changes", "  throttles", "rest_framework.views:APIView.check_throttles"),
    ("changes", "  body parse (StrictJSONParser)", "attribution.parsing:StrictJSONParser.parse"),
    ("changes", "  cancel", "attribution.api.views:changes.cancel_commission"),
    ("changes", "  update", "attribution.api.views:changes.update_commission"),
    ("changes", "    execute", "django.db.backends.utils:CursorWrapper.execute"),
    ("changes", "  finalize_response", "attribution.api.views:EventView.finalize_response"),
    ("deliveries", "request", "*"),
    (
        "deliveries",
        "middleware: request id and log line",
        "attribution.http.middleware:RequestIdMiddleware.__call__",
    ),
    ("deliveries", "receiver (View.dispatch)", "django.views.generic.base:View.dispatch"),
    ("deliveries", "  body read", "attribution.platforms.receiver:read_body"),
    ("deliveries", "  the shop's connection", "attribution.platforms.receiver:connection_for"),
    ("deliveries", "  signature", "attribution.platforms.receiver:Receiver._verify"),
    ("deliveries", "  receive", "attribution.platforms.receiver:Receiver._receive"),
    ("deliveries", "    JSON parse (loads_order)", "attribution.platforms.receiver:loads_order"),
    ("deliveries", "    what the log keeps (kept)", "attribution.platforms.shopify:Shopify.kept"),
    ("deliveries", "    its text (keep_platform_body)", "attribution.platforms.receiver:keep_platform_body"),
    ("deliveries", "    the order read (read)", "attribution.platforms.shopify:Shopify.read"),
    ("deliveries", "      its lines (lines_of)", "attribution.platforms.shopify:lines_of"),
    ("deliveries", "      the notice asked (asking)", "attribution.platforms.notice:OrderNotice.asking"),
    ("deliveries", "    recording.receive", "attribution.platforms.receiver:receive"),
    ("deliveries", "      delivery id (_first_copy)", "attribution.platforms.recording:_first_copy"),
    ("deliveries", "      the typed order", "attribution.platforms.recording:typed_order"),
    ("deliveries", "        code pick", "attribution.platforms.recording:_pick_code"),
    ("deliveries", "        click pick", "attribution.platforms.recording:_pick_click"),
    ("deliveries", "      confirm", "attribution.platforms.recording:confirm"),
    ("deliveries", "        judge", "attribution.orders.confirmation:_judge"),
    ("deliveries", "          decision", "attribution.orders.confirmation:decide"),
    ("deliveries", "        outcome row (EventRecord.of)", "health.log.writer:EventRecord.of"),
    ("deliveries", "        write_order (joins)", "attribution.orders.confirmation:joins.write_order"),
    ("deliveries", "      execute", "django.db.backends.utils:CursorWrapper.execute"),
    ("deliveries", "  answer", "attribution.platforms.receiver:Receiver._answer"),
    ("deliveries", "    its JSON (json_answer)", "attribution.platforms.receiver:json_answer"),
    ("deliveries", "request signals (connections, ...)", "django.dispatch.dispatcher:Signal.send"),
]
_CALIBRATION_CALLS = 2000
_MISSING = object()


# --- inside valgrind ----------------------------------------------------------------------------


def _extra(where: str) -> tuple[str, str, str]:
    """A phase named on the command line: `module:attr.path`, or `changes/…` or `deliveries/…` for a phase of
    a cancel or update, or of a platform's delivery."""
    scenario, _, where = (
        where.partition("/") if where.startswith(("changes/", "deliveries/")) else ("", "", where)
    )
    return (scenario or "orders", where, where)


def _resolve(where: str):
    """(owner, attribute name) of `module:attr.path`."""
    module, _, path = where.partition(":")
    owner = importlib.import_module(module)
    *parents, name = path.split(".")
    for parent in parents:
        owner = getattr(owner, parent)
    return owner, name


class _Toggle:
    """Collect while a wrapped function runs, outermost call only; counts the calls."""

    def __init__(self, ctl):
        self.ctl = ctl
        self.depth = 0
        self.calls = 0

    def wrap(self, function):
        def wrapped(*args, **kwargs):
            self.depth += 1
            if self.depth == 1:
                self.calls += 1
                self.ctl.bench_toggle()
            try:
                return function(*args, **kwargs)
            finally:
                if self.depth == 1:
                    self.ctl.bench_toggle()
                self.depth -= 1

        return wrapped


def worker(args) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    application = importlib.import_module(args.app).application
    world, shop = traffic.World.read(), traffic.Shop.read()
    ctl = ctypes.CDLL(args.ctl)
    phases = [p for p in PHASES if p[1].strip() in args.names] if args.names else PHASES
    if args.scenarios:
        phases = [p for p in phases if p[0] in args.scenarios]
    phases = phases + [_extra(where) for where in args.extra]
    cancel_from = args.cancel_from

    def send(environ):
        result = application(environ, lambda status, headers, exc_info=None: None)
        body = b"".join(result)
        if hasattr(result, "close"):
            result.close()
        return body

    def batch(scenario: str, run: str, count: int) -> list:
        nonlocal cancel_from
        if scenario == "orders":
            requests = traffic.orders(world, run, count)
        elif scenario == "deliveries":
            requests = traffic.deliveries(shop, run, count)
        else:
            requests = traffic.changes(world, run, count, cancel_from=cancel_from)
            cancel_from += traffic.cancels_in(requests)
        return [cost.environ_of(r) for r in requests]

    ctl.bench_start()
    report = {}

    # The toggles' own cost per wrapped call, measured on a function that does nothing.
    toggle = _Toggle(ctl)
    empty = toggle.wrap(lambda: None)
    ctl.bench_zero()
    for _ in range(_CALIBRATION_CALLS):
        empty()
    ctl.bench_dump(b"calibration")
    report["calibration"] = {"calls": _CALIBRATION_CALLS}

    for index, (scenario, name, where) in enumerate(phases):
        for environ in batch(scenario, f"{args.run}p{index}w", args.warmup):
            send(environ)
        measured = batch(scenario, f"{args.run}p{index}", args.requests)
        toggle = _Toggle(ctl)
        if where == "*":
            owner, attribute, original = None, None, None
            sender = toggle.wrap(send)
        else:
            owner, attribute = _resolve(where)
            original = vars(owner).get(attribute, _MISSING)
            if isinstance(original, property):  # its getter is the phase
                wrapped = property(toggle.wrap(original.fget), original.fset, original.fdel)
            else:
                wrapped = toggle.wrap(getattr(owner, attribute))
            setattr(owner, attribute, wrapped)
            sender = send
        gc.collect()
        gc.disable()  # a collection would be counted in whichever phase happened to allocate at the time
        try:
            ctl.bench_zero()
            for environ in measured:
                sender(environ)
            ctl.bench_dump(f"phase{index}".encode())
        finally:
            gc.enable()
            if owner is not None:
                if original is _MISSING:  # inherited, or a bound method of an instance
                    delattr(owner, attribute)
                else:
                    setattr(owner, attribute, original)
        report[f"phase{index}"] = {
            "scenario": scenario,
            "name": name,
            "calls": toggle.calls,
            "requests": len(measured),
        }
    print("PHASES_JSON " + json.dumps(report), flush=True)


# --- the driver ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ctl", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--cancel-from", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--requests", type=int, default=100, help="requests per phase (default 100: one mix block)"
    )
    parser.add_argument("--warmup", type=int, default=20, help="requests before each phase's count")
    parser.add_argument("--phases", default="", help="comma-separated phase names to measure (default: all)")
    parser.add_argument(
        "--scenarios",
        default="",
        help="comma-separated scenarios to measure: orders, changes, deliveries (default: all)",
    )
    parser.add_argument(
        "--extra",
        action="append",
        default=[],
        metavar="WHERE",
        help="a further phase: module:attr.path (changes/module:attr.path for cancel/update); repeatable",
    )
    parser.add_argument(
        "--app",
        default="config.wsgi",
        help="the WSGI module (bench.floor.wsgi: the Django floor, with --extra)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    args.names = {n.strip() for n in args.phases.split(",") if n.strip()}
    args.scenarios = {n.strip() for n in args.scenarios.split(",") if n.strip()}
    if args.worker:
        worker(args)
        return

    env = bench_env(database_url())
    changes = sum(1 for p in PHASES if p[0] == "changes") + len(args.extra)
    world = prepare_world(env, cancels=changes * (args.requests + args.warmup))
    ctl = callgrind.ctl_library()
    prefix = callgrind.CALLGRIND / "phases.out"
    for old in callgrind.CALLGRIND.glob(prefix.name + "*"):
        old.unlink()
    started = time.monotonic()
    with open(callgrind.CALLGRIND / "phases.log", "w") as log:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                "--collect-atstart=no",
                f"--callgrind-out-file={prefix}",
                PY,
                "-m",
                "bench.phases",
                "--worker",
                "--run",
                f"{world['run']}ph",
                "--ctl",
                str(ctl),
                "--requests",
                str(args.requests),
                "--warmup",
                str(args.warmup),
                "--phases",
                args.phases,
                "--scenarios",
                ",".join(args.scenarios),
                "--app",
                args.app,
                *(f"--extra={where}" for where in args.extra),
            ],
            cwd=ROOT,
            env={**env, "PYTHONHASHSEED": "0", "DJANGO_SETTINGS_MODULE": "config.settings"},
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("PHASES_JSON ")), None)
    if done.returncode != 0 or line is None:
        sys.exit(f"the phase harness failed; see {(callgrind.CALLGRIND / 'phases.log').relative_to(ROOT)}")
    report = json.loads(line.removeprefix("PHASES_JSON "))
    totals = callgrind.dump_totals(prefix)
    per_call = totals["calibration"] / report.pop("calibration")["calls"]
    print(
        f"instructions per request, inclusive (toggle overhead {per_call:,.0f} per call subtracted); "
        f"{time.monotonic() - started:.0f} s"
    )
    rows = []
    for key, phase in report.items():
        instructions = totals[key] - per_call * phase["calls"]
        per_request = instructions / phase["requests"]
        rows.append({**phase, "per_request": round(per_request)})
        print(
            f"{phase['scenario']:<8} {phase['name']:<52} {per_request:>11,.0f}  "
            f"({phase['calls'] / phase['requests']:.2f} calls/request)"
        )
    if args.json:
        RESULTS.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as out:
            json.dump({"toggle_per_call": per_call, "phases": rows}, out, indent=2)


if __name__ == "__main__":
    main()
