"""The documented production serving, for real: nginx (config/nginx.conf) in front of gunicorn
(config/gunicorn.conf.py), here with two sync workers, a small setup.

Slow clients are nginx's to wait for: two clients that send their headers and 11 bytes of a 1,000-byte
body, then nothing, would hold both of gunicorn's workers if they reached it; through nginx, a normal
request is answered at once. Needs nginx (Debian package `nginx`; .ci/run installs it)."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
START_BOUND_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_BOUND_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port} within {START_BOUND_S} s")


def _nginx_conf(tmp: Path, listen: int, upstream: int) -> str:
    conf = (ROOT / "config" / "nginx.conf").read_text()
    for pattern, replacement in [
        (r"worker_processes auto;", "worker_processes 1;"),
        (r"pid /run/nginx-attribution.pid;", f"pid {tmp}/nginx.pid;"),
        (r"listen 80;", f"listen 127.0.0.1:{listen};"),
        (r"server 127.0.0.1:8000 ", f"server 127.0.0.1:{upstream} "),
    ]:
        conf, replaced = re.subn(re.escape(pattern), replacement, conf)
        assert replaced == 1, pattern  # the documented file still reads as this test expects
    temp_paths = "".join(
        f"    {name}_temp_path {tmp}/{name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # Root's nginx would hand its workers to "nobody", who cannot enter pytest's temporary directory.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return user + conf.replace("http {\n", "http {\n" + temp_paths, 1)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(nginx port, gunicorn port) of the service on its own SQLite database."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("no nginx found (apt-get install nginx)")
    tmp = tmp_path_factory.mktemp("serving")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "SPOOL_DIR": str(tmp / "spool"),
        "DEBUG": "false",
        "SECRET_KEY": "serving-test-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "NUM_PROXIES": "1",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    app_port, proxy_port = _free_port(), _free_port()
    (tmp / "nginx.conf").write_text(_nginx_conf(tmp, proxy_port, app_port))
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp / name).mkdir()
    log = open(tmp / "servers.log", "wb")  # noqa: SIM115  (closed below)
    gunicorn = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "-c",
            "config/gunicorn.conf.py",
            "-b",
            f"127.0.0.1:{app_port}",
            "-w",
            "2",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )
    proxy = subprocess.Popen(
        [nginx, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-g", "daemon off;"], stdout=log, stderr=log
    )
    try:
        _wait_for_port(app_port, gunicorn, "gunicorn")
        _wait_for_port(proxy_port, proxy, "nginx")
        yield proxy_port, app_port
    finally:
        for process, stop in ((proxy, signal.SIGQUIT), (gunicorn, signal.SIGTERM)):
            if process.poll() is None:
                process.send_signal(stop)
        for process in (proxy, gunicorn):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        log.close()


def _slow_client(port: int) -> socket.socket:
    """Headers and 11 of 1,000 body bytes, then silence."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(
        b"POST /api/order_confirmation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n" + b'{"orderId":'
    )
    return sock


def _post(port: int, body: bytes, *, headers: str = "", timeout: float = 20) -> tuple[int, dict, float]:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        head = (
            f"POST /api/order_confirmation HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Connection: close\r\n{headers}"
        )
        if "Transfer-Encoding" not in headers:
            head += f"Content-Length: {len(body)}\r\n"
        sock.sendall(head.encode() + b"\r\n" + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    elapsed = time.monotonic() - started
    status_line, _, rest = answer.partition(b"\r\n")
    _, _, payload = rest.partition(b"\r\n\r\n")
    return int(status_line.split()[1]), json.loads(payload), elapsed


ORDER = json.dumps(
    {"orderId": "S-1", "orderAmount": "10.00", "currency": "USD", "page_url": "https://nobody.example/"}
).encode()


def test_two_slow_clients_do_not_delay_a_normal_request(served):
    proxy_port, _ = served
    slow = [_slow_client(proxy_port) for _ in range(2)]
    try:
        status, body, _ = _post(proxy_port, ORDER)
        # Had the slow clients held the workers, the normal request would have waited until they were given
        # up on (answered or cut). It was answered while both are still waiting, unanswered: nginx buffers
        # their bodies, so no worker ever saw them. An ordering, not a clock: a loaded machine cannot flake it.
        still_waiting = [_unanswered(sock) for sock in slow]
    finally:
        for sock in slow:
            sock.close()

    assert (status, body["outcome"]) == (400, "unresolved_domain")  # judged by the service, as always
    assert still_waiting == [True, True]


def _unanswered(sock: socket.socket) -> bool:
    """Whether nothing has come back on `sock` yet, neither an answer nor the connection's end."""
    sock.setblocking(False)
    try:
        sock.recv(1)  # an answer, or b"" for a closed connection
        return False
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)


def test_gunicorn_alone_reads_a_chunked_body(served):
    _, app_port = served
    chunked = f"{len(ORDER):x}\r\n".encode() + ORDER + b"\r\n0\r\n\r\n"

    status, body, _ = _post(app_port, chunked, headers="Transfer-Encoding: chunked\r\n")

    assert (status, body["outcome"]) == (400, "unresolved_domain")  # read and judged, not "body is empty"


def test_gunicorn_alone_answers_413_to_a_10_mb_body(served):
    # Without nginx in front, the unread rest of an oversized body used to reset the connection and lose
    # the answer; the API reads and drops it (up to API_BODY_DRAIN_MAX_BYTES) before answering.
    _, app_port = served
    ten_mb = b'{"orderId": "BIG-1", "pad": "' + b"x" * (10 * 1024 * 1024) + b'"}'

    status, body, _ = _post(app_port, ten_mb, timeout=60)

    assert (status, body["outcome"]) == (413, "invalid_params")


def test_gunicorn_alone_still_serves_the_next_request_after_a_drained_body(served):
    _, app_port = served
    _post(app_port, b"[" + b"1," * (200 * 1024) + b"1]")

    status, body, _ = _post(app_port, ORDER)

    assert (status, body["outcome"]) == (400, "unresolved_domain")


# --- an order book: 50 MB through nginx on its two paths only (docs/reconciliation.md, "Limits") ---------


def _send(port: int, path: str, body: bytes, *, content_type: str, timeout: float = 60) -> tuple[int, bytes]:
    """The status and body of nginx's answer to a POST of `body` to `path`."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sock.sendall(head.encode())
        try:
            sock.sendall(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # nginx may answer, and stop reading, before an oversized body has all gone
        answer = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def _book(size: int) -> bytes:
    line = b"BOOK-0000000001,100.00,USD\n"
    return b"order_id,amount,currency\n" + line * (size // len(line))


def test_nginx_lets_an_order_book_above_the_event_limit_reach_the_service(served):
    proxy_port, _ = served

    status, body = _send(
        proxy_port, "/api/Affiliates/reconciliations", _book(6 * 1024 * 1024), content_type="text/csv"
    )

    # Past nginx's 4 MB of every other path, the service itself answered: no key.
    assert (status, json.loads(body)["outcome"]) == (401, "unauthorized")


def test_nginx_answers_413_naming_the_limit_to_an_order_book_over_50_mb(served):
    proxy_port, _ = served

    status, body = _send(
        proxy_port, "/api/Affiliates/reconciliations", _book(52 * 1024 * 1024), content_type="text/csv"
    )

    assert status == 413
    assert json.loads(body) == {
        "success": False,
        "outcome": "invalid_params",
        "error": "The file is larger than 50 MB. Fix: upload it in parts, a month at a time.",
    }


def test_the_reconcile_page_takes_a_book_above_the_event_limit_and_refuses_one_over_50_mb(served):
    proxy_port, _ = served
    boundary = "book"

    def form(size: int) -> bytes:
        return (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="book.csv"\r\n'
                "Content-Type: text/csv\r\n\r\n"
            ).encode()
            + _book(size)
            + f"\r\n--{boundary}--\r\n".encode()
        )

    through, _ = _send(
        proxy_port,
        "/health/reconcile/",
        form(6 * 1024 * 1024),
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    refused, page = _send(
        proxy_port,
        "/health/reconcile/",
        form(52 * 1024 * 1024),
        content_type=f"multipart/form-data; boundary={boundary}",
    )

    assert through == 403  # the service's CSRF check: nginx let it through
    assert refused == 413 and b"larger than 50 MB" in page


def test_every_other_path_keeps_nginxs_4_mb_limit(served):
    proxy_port, _ = served

    status, _ = _send(
        proxy_port, "/api/order_confirmation", b"x" * (5 * 1024 * 1024), content_type="application/json"
    )
    status_below, _ = _send(
        proxy_port,
        "/api/Affiliates/reconciliations/1/apply",
        b"x" * (5 * 1024 * 1024),
        content_type="text/csv",
    )

    assert (status, status_below) == (413, 413)
