"""The minimal-schema floor's settings: the Django floor's (bench.floor.settings), routed to the views
that write the minimal tables."""

from bench.floor.settings import *  # noqa: F403

ROOT_URLCONF = "bench.floor.minimal.urls"
WSGI_APPLICATION = "bench.floor.minimal.wsgi.application"
