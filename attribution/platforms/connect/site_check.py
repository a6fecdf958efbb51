"""The key handover's calls to the site, inside the callback's request: one attempt each, all of them within one
total deadline, each answer's body capped, so a slow or hostile site cannot hold a web worker (docs/threat-model.md,
"Round six", finding 2). httpx's own timeouts bound each read, not the whole call: a site sending a byte every few
seconds would pass them."""

import time

import httpx

from ..apis.errors import PlatformAPIError, PlatformUnavailable
from ..apis.http import platform_client

CHECK_SECONDS = 10.0  # every call of one handover's check together; WooCommerce waits longer for our answer
BODY_LIMIT = 1024 * 1024  # a page of one order and the site's /wp-json/ index are a few KB
clock = time.monotonic  # the tests move it on, never sleep


def no_retry(_seconds: float) -> None:
    """The handover's `sleep`: a throttled or failing site is not waited for; the administrator tries again."""
    raise PlatformUnavailable("the site answered with an error; the check is not retried")


class DeadlineClient:
    """What WooCommerceREST calls `request` on: the guarded platform client, with one deadline over every call
    made through it and a cap on each body read."""

    def __init__(self, *, seconds: float | None = None, limit: int | None = None):
        self._seconds = CHECK_SECONDS if seconds is None else seconds
        self._limit = BODY_LIMIT if limit is None else limit
        self._ends = clock() + self._seconds

    def _left(self) -> float:
        left = self._ends - clock()
        if left <= 0:
            raise PlatformUnavailable(f"the site did not answer within {self._seconds:g} s")
        return left

    def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        seconds = min(self._left(), 5.0)
        try:
            return self._read(method, url, httpx.Timeout(seconds), **kwargs)
        except httpx.TimeoutException as exc:
            raise PlatformUnavailable(f"the site did not answer within {seconds:.0f} s") from exc

    def _read(self, method: str, url: str, timeout: httpx.Timeout, **kwargs) -> httpx.Response:
        with platform_client() as client, client.stream(method, url, timeout=timeout, **kwargs) as response:
            body, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self._limit:
                    raise PlatformAPIError(f"the site's answer is over {self._limit // 1024} KB")
                body.append(chunk)
                self._left()
            headers = [
                (k, v) for k, v in response.headers.items() if k not in ("content-encoding", "content-length")
            ]
            return httpx.Response(
                response.status_code, headers=headers, content=b"".join(body), request=response.request
            )
