"""The Django floor's settings: bare Django + DRF, the project's own database settings.

No middleware, no installed apps beyond what DRF's APIView needs, one JSON parser and renderer, no
authentication, permission or throttle classes: what a minimal Django service storing an order takes.
The database entry is the project's (config/settings.py, read from the same environment): same engine
(config.db), CONN_MAX_AGE, connection check, server-side binding and prepare threshold. DEBUG,
SECRET_KEY, ALLOWED_HOSTS, time zone and USE_TZ are the project's too.
"""

import copy

from config import settings as project

DEBUG = project.DEBUG
SECRET_KEY = project.SECRET_KEY
ALLOWED_HOSTS = project.ALLOWED_HOSTS
DATABASES = copy.deepcopy(project.DATABASES)
TIME_ZONE = project.TIME_ZONE
USE_TZ = project.USE_TZ
USE_I18N = project.USE_I18N

INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"]
MIDDLEWARE: list = []
ROOT_URLCONF = "bench.floor.urls"
WSGI_APPLICATION = "bench.floor.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_THROTTLE_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
}
