"""WSGI entry point: `gunicorn config.wsgi:application` (config/gunicorn.conf.py).

Two Django handlers share one process. The API (/api/: JSON between servers, and from checkout pages
without cookies) goes through settings.API_MIDDLEWARE, the few middleware it needs; the pages, the
admin and creator links go through the whole settings.MIDDLEWARE (sessions, CSRF, sign-in, messages,
time zones, lockout, CSP). The page middleware do nothing for the API but cost a third of a constant
answer's work per request (0.8 M of 1.3 M instructions, bench/README.md), so the API skips them.
"""

import os
from functools import lru_cache

import django
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.urls import get_resolver

from config.logs import lean_records

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

API_PREFIX = "/api/"


class APIHandler(WSGIHandler):
    """Django's handler with the API's middleware stack (settings.API_MIDDLEWARE)."""

    def load_middleware(self, is_async=False):
        # BaseHandler builds its stack from settings.MIDDLEWARE: the list is swapped while it does so,
        # once, at start-up, before this process serves any request.
        pages = settings.MIDDLEWARE
        settings.MIDDLEWARE = settings.API_MIDDLEWARE
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = pages

    def resolve_request(self, request):
        """Django's, with each path's match kept: the event endpoints are a few paths that resolve the same
        way every time, and resolving them again took 84k instructions of an order (docs/performance.md).
        A request that names its own URLconf is resolved as Django does."""
        if hasattr(request, "urlconf"):
            return super().resolve_request(request)
        request.resolver_match = _resolved(get_resolver(), request.path_info)
        return request.resolver_match


@lru_cache(maxsize=256)
def _resolved(resolver, path: str):
    """The match of `path` (a path no pattern matches raises Resolver404 every time, never kept). Bounded:
    the read API's paths carry order ids, so they come and go; the few event paths stay."""
    return resolver.resolve(path)


class Service:
    """The WSGI application: /api/ through APIHandler, every other path through Django's own handler."""

    def __init__(self):
        django.setup(set_prefix=False)
        lean_records()
        self.api = APIHandler()
        self.pages = WSGIHandler()

    def __call__(self, environ, start_response):
        handler = self.api if environ.get("PATH_INFO", "").startswith(API_PREFIX) else self.pages
        return handler(environ, start_response)


application = Service()
