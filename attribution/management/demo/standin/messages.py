"""A stand-in call and its answer, as the routes see them."""

import json
from dataclasses import dataclass, field
from urllib.parse import parse_qsl


@dataclass
class Request:
    method: str
    path: str  # below the shop's or site's prefix: admin/oauth/authorize, wp-json/wc/v3/webhooks
    query: dict
    headers: dict  # lower-cased names
    body: bytes

    def json(self):
        try:
            return json.loads(self.body or b"null")
        except ValueError:
            return None

    def form(self) -> dict:
        return dict(parse_qsl(self.body.decode("utf-8", "replace"), keep_blank_values=True))


@dataclass
class Answer:
    status: int
    body: object = None  # JSON unless bytes or str
    headers: dict = field(default_factory=dict)

    def encoded(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, self.headers.get("Content-Type", "application/octet-stream")
        if isinstance(self.body, str):
            return self.body.encode(), self.headers.get("Content-Type", "text/html; charset=utf-8")
        return json.dumps(self.body).encode(), "application/json"


def json_answer(status: int, body, **headers) -> Answer:
    return Answer(status, body, headers)


def redirect(location: str) -> Answer:
    return Answer(302, "", {"Location": location})
