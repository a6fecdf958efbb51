"""The Django floor's WSGI entry point: `gunicorn bench.floor.wsgi:application`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.floor.settings"
application = get_wsgi_application()
