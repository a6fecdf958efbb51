"""The minimal-schema floor's WSGI entry point: `gunicorn bench.floor.minimal.wsgi:application`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.floor.minimal.settings"
application = get_wsgi_application()
