"""WooCommerce's REST API (wc/v3) on a site, with the REST key pair its key handover gave: HTTP Basic over https
(plain http would need OAuth 1.0a signatures; it is refused instead). 429 and 5xx are retried with backoff
through the injected `sleep`; 401 ends in CredentialRevoked.

A server that drops the Authorization header answers 401 to Basic: such a call is asked once more with the
keys as the `consumer_key` and `consumer_secret` query parameters (over https), as WooCommerce documents.
"""

import time

import httpx

from .errors import CredentialRevoked, PlatformAPIError, PlatformUnavailable, UnreadableAnswer
from .http import check_url, send

RETRIES = 4  # 429 or 5xx answers (or timeouts) in a row before PlatformUnavailable
BACKOFF_SECONDS = 1.0  # doubled on each retry; a Retry-After header is read when given
MAX_WAIT_SECONDS = 60.0
WEBHOOK_PAGE = 100
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE"})
# A site has a handful of webhooks: more pages than this is a hostile X-WP-TotalPages (docs/threat-model.md).
MAX_WEBHOOK_PAGES = 10


def site_origin(site_url: str) -> str:
    """The site's address as the API is called at: no trailing slash."""
    return site_url.strip().rstrip("/")


class WooCommerceREST:
    def __init__(
        self,
        site_url: str,
        consumer_key: str,
        consumer_secret: str,
        *,
        sleep=time.sleep,
    ):
        self.site_url = site_origin(check_url(site_url))
        self._auth = (consumer_key, consumer_secret)
        self._sleep = sleep

    def __repr__(self):  # never the keys
        return f"WooCommerceREST({self.site_url!r})"

    def get(self, path: str, params: dict | None = None) -> httpx.Response:
        return self._call("GET", path, params=params)

    def post(self, path: str, json: dict | None = None) -> httpx.Response:
        return self._call("POST", path, json=json)

    def put(self, path: str, json: dict | None = None) -> httpx.Response:
        return self._call("PUT", path, json=json)

    def site_info(self) -> dict:
        """GET /wp-json/ (no key): the site's `url`, `home`, `gmt_offset`, `timezone_string`."""
        body = _json_of(self._call("GET", "/wp-json/", signed=False))
        if not isinstance(body, dict):
            raise PlatformAPIError("the site's /wp-json/ is not a WordPress REST index")
        return body

    def webhooks(self, status: str | None = None) -> list[dict]:
        """The site's webhooks (all of them, or those of `status`: active, paused, disabled)."""
        found = []
        for page in range(1, MAX_WEBHOOK_PAGES + 1):
            params = {"per_page": WEBHOOK_PAGE, "page": page}
            if status:
                params["status"] = status
            response = self.get("/wp-json/wc/v3/webhooks", params)
            batch = _json_of(response)
            if not isinstance(batch, list):
                raise UnreadableAnswer("WooCommerce's webhooks answer is not a list")
            found.extend(w for w in batch if isinstance(w, dict))
            pages = response.headers.get("X-WP-TotalPages", "1")
            if not batch or not pages.isdigit() or page >= int(pages):
                return found
        raise UnreadableAnswer(
            f"WooCommerce listed more than {MAX_WEBHOOK_PAGES} pages of webhooks: stopped reading"
        )

    def create_webhook(self, topic: str, delivery_url: str, secret: str, *, name: str = "") -> dict:
        """Make an active webhook of `topic` (order.created…) signed with `secret`; the webhook made."""
        body = {
            "name": name or f"Creator attribution: {topic}",
            "topic": topic,
            "delivery_url": delivery_url,
            "secret": secret,
            "status": "active",
        }
        return _json_of(self.post("/wp-json/wc/v3/webhooks", body))

    def enable_webhook(self, webhook_id: int | str) -> dict:
        return _json_of(self.put(f"/wp-json/wc/v3/webhooks/{int(webhook_id)}", {"status": "active"}))

    def _call(self, method: str, path: str, *, params=None, json=None, signed=True) -> httpx.Response:
        url = f"{self.site_url}/{path.lstrip('/')}"
        # A POST (a webhook made) is not retried: a 5xx may come after the site did it, and a repeat makes two.
        retries = RETRIES if method in IDEMPOTENT else 0
        failures = 0
        in_query = False
        while True:
            query = dict(params or {})
            auth = None
            if signed and in_query:
                query.update(consumer_key=self._auth[0], consumer_secret=self._auth[1])
            elif signed:
                auth = self._auth
            try:
                response = self._send(method, url, params=query or None, json=json, auth=auth)
            except httpx.TransportError as exc:
                failures += 1
                if failures > retries:
                    raise PlatformUnavailable(
                        f"{self.site_url} did not answer ({type(exc).__name__})"
                    ) from exc
                self._sleep(BACKOFF_SECONDS * 2 ** (failures - 1))
                continue
            status = response.status_code
            if status == 401 and signed and not in_query:
                in_query = True  # the Authorization header may have been dropped on the way
                continue
            if status in (401, 403) and signed:
                raise CredentialRevoked(f"WooCommerce answered {status}: {_message(response)}")
            if status == 429 or status >= 500:
                failures += 1
                if failures > retries:
                    raise PlatformUnavailable(
                        f"WooCommerce answered {status}" + (f" {failures} times" if failures > 1 else "")
                    )
                self._sleep(_wait(response, failures))
                continue
            if status >= 300:
                raise PlatformAPIError(
                    f"WooCommerce answered {status} to {method} {path}: {_message(response)}"
                )
            return response

    def _send(self, method, url, **kwargs) -> httpx.Response:
        return send(method, url, **kwargs)


def _wait(response: httpx.Response, failures: int) -> float:
    given = response.headers.get("Retry-After", "")
    if given.isdigit():
        return min(float(given), MAX_WAIT_SECONDS)
    return min(BACKOFF_SECONDS * 2 ** (failures - 1), MAX_WAIT_SECONDS)


def _json_of(response: httpx.Response):
    try:
        return response.json()
    except ValueError as exc:
        raise UnreadableAnswer(f"WooCommerce answered {response.status_code} with no JSON") from exc


def _message(response: httpx.Response) -> str:
    """WooCommerce's error `code: message`, or the start of the body."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or "no detail"
    if isinstance(body, dict) and "message" in body:
        return f"{body.get('code', '')}: {body['message']}"[:300]
    return str(body)[:200]
