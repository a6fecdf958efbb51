"""The one outbound client's rules, through the one test double (tests/outbound_double.py): a total deadline per
call that a trickling server cannot stretch, a body read as a stream and stopped at its cap (compressed or not),
redirects never followed, and bounded retries of idempotent calls only, waiting on the double's clock."""

import gzip

import httpcore
import httpx
import pytest

from config.lib import outbound
from config.lib.outbound.client import _DeadlineStream
from tests.outbound_double import Endless, Trickle

URL = "https://shop.example/orders"


def policy(**kwargs):
    return outbound.Policy(**{"deadline": 20.0, "max_bytes": 1024 * 1024, **kwargs})


def test_a_server_sending_a_byte_every_five_seconds_is_cut_off_at_the_deadline(outbound_double):
    trickle = Trickle(outbound_double, [b"["] * 100, seconds=5.0)
    outbound_double.serve("shop.example", lambda request: httpx.Response(200, stream=trickle))
    began = outbound_double.clock()

    with pytest.raises(outbound.DeadlineExceeded, match="did not end within the call's deadline"):
        outbound.request("GET", URL, policy=policy(retries=3))

    assert trickle.sent == 5 and outbound_double.clock() - began == 25.0  # not a piece read past 20 s
    assert len(outbound_double.calls) == 1  # a call out of time is not tried again


def test_every_socket_read_waits_at_most_what_is_left_of_the_deadline():
    now = [100.0]
    waits = []

    class Socket:
        def read(self, max_bytes, timeout=None):
            waits.append(timeout)
            now[0] += 4.0
            return b"x"

    stream = _DeadlineStream(Socket(), deadline_at=110.0, clock=lambda: now[0])

    stream.read(10, timeout=20.0)
    stream.read(10, timeout=20.0)
    stream.read(10, timeout=20.0)
    with pytest.raises(httpcore.ReadTimeout):
        stream.read(10, timeout=20.0)

    assert waits == [10.0, 6.0, 2.0]


def test_a_body_over_the_cap_is_read_no_further(outbound_double):
    endless = Endless(size=64 * 1024)
    outbound_double.serve("shop.example", lambda request: httpx.Response(200, stream=endless))

    with pytest.raises(outbound.AnswerTooLarge, match="over the 1,048,576 bytes read"):
        outbound.request("GET", URL, policy=policy())

    assert endless.sent == 1024 * 1024 + 64 * 1024


def test_a_declared_length_over_the_cap_is_refused_before_reading(outbound_double):
    endless = Endless()
    outbound_double.serve(
        "shop.example",
        lambda request: httpx.Response(
            200, headers={"Content-Length": str(400 * 1024 * 1024)}, stream=endless
        ),
    )

    with pytest.raises(outbound.AnswerTooLarge, match="answered 419,430,400 bytes"):
        outbound.request("GET", URL, policy=policy())

    assert endless.sent == 0


def test_a_compressed_bomb_is_stopped_at_the_cap_after_inflating(outbound_double):
    bomb = gzip.compress(b" " * (50 * 1024 * 1024))
    outbound_double.serve(
        "shop.example",
        lambda request: httpx.Response(
            200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(bomb)
        ),
    )

    with pytest.raises(outbound.AnswerTooLarge):
        outbound.request("GET", URL, policy=policy())


def test_a_compressed_answer_within_the_cap_is_read_inflated(outbound_double):
    outbound_double.serve(
        "shop.example",
        lambda request: httpx.Response(
            200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(gzip.compress(b"[1]"))
        ),
    )

    answer = outbound.request("GET", URL, policy=policy())

    assert answer.json() == [1] and "content-encoding" not in answer.headers


def test_with_truncate_the_start_of_a_long_answer_is_kept(outbound_double):
    outbound_double.serve("shop.example", lambda request: httpx.Response(200, stream=Endless(size=100)))

    answer = outbound.request("POST", URL, policy=policy(max_bytes=800, truncate=True))

    assert (answer.status_code, len(answer.content)) == (200, 800)


def test_a_redirect_is_answered_as_it_is_never_followed(outbound_double):
    outbound_double.serve(
        "shop.example", lambda request: httpx.Response(302, headers={"Location": "https://169.254.169.254/"})
    )

    answer = outbound.request("GET", URL, policy=policy(retries=3))

    assert answer.status_code == 302 and outbound_double.hosts_called() == ["shop.example"]


def test_an_idempotent_call_is_retried_on_5xx_429_and_no_connection_with_a_bounded_backoff(outbound_double):
    answers = iter([503, 429, "unreachable", 200])

    def flaky(request):
        answer = next(answers)
        if answer == "unreachable":
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(answer, json={"ok": answer == 200})

    outbound_double.serve("shop.example", flaky)

    answer = outbound.request("GET", URL, policy=policy(retries=3, backoff=0.5))

    assert answer.json() == {"ok": True}
    assert outbound_double.waits == [0.5, 1.0, 2.0]


def test_retries_are_bounded_and_the_last_answer_is_given(outbound_double):
    outbound_double.serve("shop.example", lambda request: httpx.Response(503))

    answer = outbound.request("GET", URL, policy=policy(retries=2, backoff=0.5))

    assert answer.status_code == 503 and len(outbound_double.calls) == 3


def test_a_post_is_not_retried_unless_its_caller_says_it_is_idempotent(outbound_double):
    outbound_double.serve("shop.example", lambda request: httpx.Response(503))

    outbound.request("POST", URL, policy=policy(retries=2))
    assert len(outbound_double.calls) == 1
    outbound.request("POST", URL, policy=policy(retries=2), idempotent=True)
    assert len(outbound_double.calls) == 4


def test_no_retry_waits_past_the_deadline(outbound_double):
    outbound_double.serve("shop.example", lambda request: httpx.Response(503))

    outbound.request("GET", URL, policy=policy(deadline=2.0, retries=5, backoff=2.5))

    assert outbound_double.waits == [] and len(outbound_double.calls) == 1


def test_a_budget_narrows_every_call_within_it(outbound_double):
    trickle = Trickle(outbound_double, [b"["] * 100, seconds=1.0)
    outbound_double.serve("shop.example", lambda request: httpx.Response(200, stream=trickle))

    with outbound.budget(3.0), pytest.raises(outbound.DeadlineExceeded):
        outbound.request("GET", URL, policy=policy(deadline=20.0))

    assert trickle.sent == 4


def test_a_host_nothing_serves_is_unreachable(outbound_double):
    with pytest.raises(outbound.Unreachable):
        outbound.request("GET", "https://nowhere.example/", policy=policy())
