"""CPU per order confirmation, in-process, of this tree side by side with another (`--against`).

Each tree runs in its own worker process (same Python, same PostgreSQL database, its own bench brand):
the WSGI application is called directly with DEBUG=False and throttles off, on a mix of orders like
bench/mixed_orders.lua (70 % direct, 20 % by click, 5 % by code, 3 % repeats, 2 % a template
placeholder amount). The workers take turns, round by round, so the machine's drifting speed hits
both alike; each request's CPU is `time.process_time()` around the call. Prints the median per kind
and per tree, and the ratio of the two.

With --instructions, each tree's worker runs once under valgrind's callgrind instead, instrumented only
for one measured round after its warm-up: instructions per order, which the machine's load does not
change (slow: about two minutes per tree).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> python bench/order_path.py --against <other tree>
"""

import argparse
import io
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("direct", "click", "code", "repeat", "bad_amount")
MIX = {"direct": 70, "click": 20, "code": 5, "repeat": 3, "bad_amount": 2}


def worker_env() -> dict:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("set DATABASE_URL to a PostgreSQL database: the order path is measured as in production")
    return {
        **os.environ,
        "DEBUG": "False",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "testserver",
        "SECURE_SSL_REDIRECT": "False",
        "THROTTLE_ORDER_CONFIRMATION": "",
        "THROTTLE_DEVELOPER_KEY": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONHASHSEED": "0",  # the same dict layouts in both workers
    }


# --- the worker: one tree, one process -------------------------------------------------------------


def _world(tag: str) -> dict:
    from datetime import timedelta
    from decimal import Decimal

    from django.utils import timezone

    from attribution.models import Click
    from brands.models import Brand, Creator, DiscountCode, Property

    brand, _ = Brand.objects.get_or_create(
        name=f"Order path bench {tag}", defaults={"commission_rate_percent": Decimal("10")}
    )
    prop, _ = Property.objects.get_or_create(host=f"shop.{tag}.order-path.example", defaults={"brand": brand})
    creators = [Creator.objects.get_or_create(brand=brand, name=f"Creator {n}")[0] for n in range(10)]
    DiscountCode.objects.get_or_create(
        brand=brand, code=f"PATH{tag.upper()}", defaults={"creator": creators[0]}
    )
    Click.objects.filter(brand=brand).delete()
    now = timezone.now()
    clicks = Click.objects.bulk_create(
        Click(brand=brand, property=prop, creator=creators[n % 10], clicked_at=now - timedelta(hours=n % 48))
        for n in range(500)
    )
    return {"host": prop.host, "code": f"PATH{tag.upper()}", "clicks": [c.click_id for c in clicks]}


def _body(kind: str, order_id: str, world: dict, rng: random.Random) -> bytes:
    page = f"https://{world['host']}/checkout/thank-you"
    body = {"orderAmount": "59.90", "orderId": order_id, "currency": "USD", "page_url": page}
    if kind == "direct":
        body.update(code="", is_returning_customer=False)
    elif kind == "click":
        body.update(clickId=rng.choice(world["clicks"]), code="", is_returning_customer=False)
    elif kind == "code":
        body.update(orderAmount="120.00", currency="EUR", code=world["code"])
    elif kind == "repeat":
        body["orderId"] = "repeat-1"
    else:
        body["orderAmount"] = "***THE ORDER TOTAL***"
    return json.dumps(body).encode()


def _call(app, raw: bytes) -> int:
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/order_confirmation",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "443",
        "HTTP_HOST": "testserver",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "wsgi.url_scheme": "https",
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    status = []
    for _ in app(environ, lambda s, h, exc_info=None: status.append(s)):
        pass
    return int(status[0][:3])


def worker(tag: str) -> None:
    sys.path.insert(0, os.getcwd())
    import django

    django.setup()
    from config.wsgi import application

    world = _world(tag)
    rng = random.Random(tag)
    run = f"{tag}-{time.time_ns()}"
    deck = [kind for kind, share in MIX.items() for _ in range(share)]
    rng.shuffle(deck)  # dealt in order, round after round: every 100 requests hold the mix
    _call(application, _body("repeat", "repeat-1", world, rng))  # the order every repeat repeats
    counter = 0
    for line in sys.stdin:
        per_round = int(line)
        cpu = {kind: [] for kind in KINDS}
        for _ in range(per_round):
            kind = deck[counter % len(deck)]
            counter += 1
            raw = _body(kind, f"{run}-{counter}", world, rng)
            start = time.process_time()
            status = _call(application, raw)
            cpu[kind].append((time.process_time() - start) * 1000)
            if status >= 500:
                sys.exit(f"{kind} answered {status}")
        print(json.dumps(cpu), flush=True)


# --- the driver ------------------------------------------------------------------------------------


def instructions_per_order(name: str, tree: Path, env: dict, warmup: int, measured: int) -> float:
    out = Path(tempfile.mkdtemp()) / "callgrind.out"
    proc = subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            str(ROOT / "bench" / "order_path.py"),
            "--worker",
            name,
        ],
        cwd=tree,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    for n, instrument in ((warmup, "on"), (measured, "off")):
        proc.stdin.write(f"{n}\n")
        proc.stdin.flush()
        if not proc.stdout.readline():
            sys.exit(f"the {name} worker stopped")
        subprocess.run(
            ["callgrind_control", f"--instr={instrument}", str(proc.pid)], check=True, capture_output=True
        )
    proc.stdin.close()
    proc.wait()
    totals = next(line for line in out.read_text().splitlines() if line.startswith("totals:"))
    return int(totals.split()[1]) / measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--against", type=Path, required=True, help="the other tree (e.g. a worktree of main)"
    )
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--per-round", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=100, help="requests per tree before the first round")
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    args = parser.parse_args()

    env = worker_env()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    trees = {"this": ROOT, "against": args.against.resolve()}
    if args.instructions:
        counts = {
            name: instructions_per_order(name, tree, env, 20, args.per_round) for name, tree in trees.items()
        }
        print(f"instructions per order confirmation (mixed, {args.per_round} after 20 of warm-up)")
        print(
            f"this {counts['this']:,.0f}  against {counts['against']:,.0f}  ratio {counts['this'] / counts['against']:.4f}"
        )
        return
    workers = {
        name: subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "order_path.py"), "--worker", name],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # the request log of every call
            text=True,
        )
        for name, tree in trees.items()
    }

    def round_of(name: str, n: int) -> dict:
        proc = workers[name]
        proc.stdin.write(f"{n}\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"the {name} worker stopped")
        return json.loads(line)

    for name in workers:
        round_of(name, args.warmup)
    samples = {name: {kind: [] for kind in KINDS} for name in workers}
    round_ratios = []
    for n in range(args.rounds):
        totals = {}
        for name in list(workers)[:: 1 if n % 2 == 0 else -1]:  # alternate who goes first
            cpu = round_of(name, args.per_round)
            totals[name] = sum(sum(values) for values in cpu.values())
            for kind, values in cpu.items():
                samples[name][kind].extend(values)
        round_ratios.append(totals["this"] / totals["against"])
    for proc in workers.values():
        proc.stdin.close()
        proc.wait()

    print(f"CPU ms per order confirmation, medians over {args.rounds} rounds of {args.per_round} per tree")
    print(f"{'kind':<12}{'this':>10}{'against':>10}{'ratio':>8}{'n':>7}")
    rows = [*KINDS, "all"]
    for kind in rows:
        values = {
            name: [v for k in KINDS for v in per[k]] if kind == "all" else per[kind]
            for name, per in samples.items()
        }
        this, against = median(values["this"]), median(values["against"])
        print(f"{kind:<12}{this:>10.3f}{against:>10.3f}{this / against:>8.3f}{len(values['this']):>7}")
    quartiles = sorted(round_ratios)[len(round_ratios) // 4], sorted(round_ratios)[3 * len(round_ratios) // 4]
    print(
        f"CPU of a round, this / against: median {median(round_ratios):.3f}, quartiles {quartiles[0]:.3f}-{quartiles[1]:.3f}"
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main()
