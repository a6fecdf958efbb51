"""The stand-in's WSGI app: `make_app(world)`. A small router over the World (world.py): Shopify's routes in
shopify_routes.py, WooCommerce's in woocommerce_routes.py, each route a function of (world, request) → Answer.
Every call is noted in `world.calls`."""

from http import HTTPStatus
from urllib.parse import parse_qsl

from . import shopify_routes, woocommerce_routes
from .messages import Answer, Request, json_answer
from .world import World


def make_app(world: World):
    """The WSGI app serving `world`."""

    def app(environ, start_response):
        request = _request_of(environ)
        with world.lock:
            world.calls.append((request.method, environ.get("PATH_INFO", "")))
        answer = _route(world, environ.get("PATH_INFO", ""), request)
        body, content_type = answer.encoded()
        headers = {"Content-Type": content_type, **answer.headers, "Content-Length": str(len(body))}
        reason = HTTPStatus(answer.status).phrase if answer.status in HTTPStatus._value2member_map_ else ""
        start_response(f"{answer.status} {reason}", list(headers.items()))
        return [body]

    return app


def _route(world: World, path: str, request: Request) -> Answer:
    parts = path.strip("/").split("/", 2)
    if len(parts) >= 2 and parts[0] == "woo":
        site = world.sites.get(parts[1])
        if site is None:
            return json_answer(404, {"code": "rest_no_route", "message": "No WordPress site here."})
        request.path = parts[2] if len(parts) == 3 else ""
        return woocommerce_routes.answer(world, site, request)
    if parts and parts[0] in world.shops:
        request.path = "/".join(parts[1:])
        return shopify_routes.answer(world, world.shops[parts[0]], request)
    return json_answer(404, {"errors": "Not Found"})


def _request_of(environ) -> Request:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    body = environ["wsgi.input"].read(length) if length > 0 else b""
    headers = {
        key[5:].replace("_", "-").lower(): value for key, value in environ.items() if key.startswith("HTTP_")
    }
    if environ.get("CONTENT_TYPE"):
        headers["content-type"] = environ["CONTENT_TYPE"]
    return Request(
        method=environ.get("REQUEST_METHOD", "GET").upper(),
        path="",
        query=dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)),
        headers=headers,
        body=body,
    )
