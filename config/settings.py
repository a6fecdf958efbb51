"""Settings for the attribution service. Every environment variable is read here and nowhere else."""

from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.db.tuning import tune
from config.logs import logging_settings
from config.task_runner import task_runner_settings

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=True)
# demo.env: `make run`'s stand-in settings, for a command typed beside it (docs/operations.md); the environment
# and .env win; read with DEBUG on and these settings only, never the test suite's (config.test_settings).
if DEBUG and env.str("DJANGO_SETTINGS_MODULE", default="config.settings") == "config.settings":
    environ.Env.read_env(BASE_DIR / "demo.env", overwrite=False)

_DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdef"
SECRET_KEY = env("SECRET_KEY", default="") or (_DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false.")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
_db = DATABASES["default"]
tune(
    _db,
    conn_max_age=env.int("CONN_MAX_AGE", default=60),
    statement_timeout_ms=env.int("DB_STATEMENT_TIMEOUT_MS", default=5000),
    jit=env.bool("DB_JIT", default=False),
    connect_timeout_s=env.int("DB_CONNECT_TIMEOUT_S", default=3),
    wait_timeout_s=env.float("DB_WAIT_TIMEOUT_S", default=7.0),
    prepare_threshold=env.str("DB_PREPARE_THRESHOLD", default="5"),
)  # config/db/tuning.py
if _db["ENGINE"] != "config.db":
    # SQLite has no covering indexes: it keeps an index's INCLUDE columns out (click_creator_period_idx still
    # serves the Creators page there, without covering), and Django would say so on every command.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

# Read replicas (config/db/router.py, docs/scaling.md): with DATABASE_REPLICA_URL, the health pages' reads
# and exports go to the replica, with the primary's connection settings; everything else to the primary.
REPLICA_READS = bool(env("DATABASE_REPLICA_URL", default=""))
REPLICA_PIN_SECONDS = env.int(
    "REPLICA_PIN_SECONDS", default=5
)  # a browser that changed something reads the primary
if REPLICA_READS:
    DATABASES["replica"] = {
        **_db,
        **{
            k: v
            for k, v in env.db("DATABASE_REPLICA_URL").items()
            if k in ("NAME", "USER", "PASSWORD", "HOST", "PORT")
        },
        "TEST": {"MIRROR": "default"},
    }
    DATABASE_ROUTERS = ["config.db.router.ReplicaRouter"]

CACHES = {
    "default": env.cache("REDIS_URL")
    if env("REDIS_URL", default="")
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "attribution"}
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_api_key",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "django_q",
    "csp",
    "brands",
    "attribution",
    "health",
]

MIDDLEWARE = [
    "attribution.http.middleware.RequestIdMiddleware",
    # Before the session and sign-in, whose reads it routes (config/db/router.py); idle without a replica.
    "config.db.router.ReplicaReadsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The health pages and the admin plan each statement for its own brand (config/db/plans.py).
    "config.db.plans.CustomPlansMiddleware",
    "attribution.http.middleware.BrowserCallersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every time a signed-in user sees is in the zone she picked (brands.user_zones).
    "brands.user_zones.UserTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "config.csp.PagesCSPMiddleware",  # django-csp; see config/csp.py
]
# The API's own stack (config/wsgi.py): a request id and its log line, HTTPS and security headers, CORS for
# checkout pages, and the host check (CommonMiddleware's, without its redirects). Sessions, CSRF, sign-in,
# messages, time zones, lockout and CSP serve people on pages; the API has no cookies, forms or HTML.
API_MIDDLEWARE = [
    "attribution.http.middleware.RequestIdMiddleware",
    # Before the session and sign-in, whose reads it routes (config/db/router.py); idle without a replica.
    "config.db.router.ReplicaReadsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "attribution.http.middleware.BrowserCallersMiddleware",
    "attribution.http.middleware.APIHostMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # Locks out repeated failed logins on /accounts/login/ and /admin/login/.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=1.0)
# Lock a username from one address, so an attacker cannot lock a real user out from elsewhere.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The client as the API's throttles see it (NUM_PROXIES), not the load balancer's address nor a forged header.
AXES_CLIENT_IP_CALLABLE = "config.lib.clients.client_address"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.template.context_processors.tz",  # TIME_ZONE: the zone times are shown in
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
PASSWORD_HASHERS = env.list(
    "PASSWORD_HASHERS",
    default=["django.contrib.auth.hashers.PBKDF2PasswordHasher"],
)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "health:overview"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "config" / "static"]  # static files of no app: the admin's styles for phones
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Order events are small; anything bigger is a mistake or an attack (docs/decisions.md, "Outcome codes beyond the interface's lists").
API_BODY_MAX_BYTES = 64 * 1024
# An oversized API body sent straight to gunicorn is read and dropped up to this many bytes so that its
# 413 reaches the client (config/wsgi.py); beyond, the connection is closed unread.
API_BODY_DRAIN_MAX_BYTES = env.int("API_BODY_DRAIN_MAX_BYTES", default=16 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# An order book (docs/reconciliation.md) is up to 50 MB and 200,000 rows (books/reader.py; config/nginx.conf lets
# that much through on its two upload paths only). An apply works a batch at a time for this many seconds within
# its request, well inside gunicorn's 30 s timeout; the task runner applies the rest.
RECONCILIATION_APPLY_SECONDS = env.float("RECONCILIATION_APPLY_SECONDS", default=15.0)
# A storefront platform's order webhook carries every line item, so a big order is larger than an order
# event: its receivers (attribution/platforms/) take bodies up to this size (docs/decisions.md,
# "Storefront platforms: the deliveries' answers").
PLATFORM_BODY_MAX_BYTES = env.int("PLATFORM_BODY_MAX_BYTES", default=1024 * 1024)
# The platforms' webhook signing secrets are kept encrypted (brands/sealing.py): Fernet keys, the first
# encrypts and every one decrypts, so a key is rotated by putting the new one first. Without any, one key
# is derived from SECRET_KEY (a change of SECRET_KEY then needs the secrets pasted again).
PLATFORM_SECRET_KEYS = env.list("PLATFORM_SECRET_KEYS", default=[])
# After a connection's secret is replaced, the previous one still verifies this long: Shopify may go on
# signing with the old secret for up to an hour after a rotation.
PLATFORM_PREVIOUS_SECRET_SECONDS = env.int("PLATFORM_PREVIOUS_SECRET_SECONDS", default=3600)
# Reading a shop through its platform's API (docs/operations.md, "Connecting shops"). The Shopify app's
# credentials (its OAuth client id and secret; the secret also signs the webhooks the app subscribes) and the
# scopes it asks for: read_orders reads 60 days back, add read_all_orders for older windows.
SHOPIFY_CLIENT_ID = env("SHOPIFY_CLIENT_ID", default="")
SHOPIFY_CLIENT_SECRET = env("SHOPIFY_CLIENT_SECRET", default="")
SHOPIFY_SCOPES = env("SHOPIFY_SCOPES", default="read_orders")
# The origin of every call to a shop, {shop} its myshopify.com domain; tests, the demo and staging point it at
# the platforms' stand-in (attribution/management/demo/standin/), e.g. http://127.0.0.1:9100/{shop}.
SHOPIFY_API_ORIGIN = env("SHOPIFY_API_ORIGIN", default="https://{shop}")
# host:port pairs a platform API may be called at over plain http, at a loopback or private address (the demo's
# stand-in; a bare host: port 80); none by default: a credential is sent over https only.
PLATFORM_PLAIN_HTTP_HOSTS = env.list("PLATFORM_PLAIN_HTTP_HOSTS", default=[])
# Every call out (config/lib/outbound): a platform call ends within PLATFORM_CALL_SECONDS in all and reads at most
# PLATFORM_ANSWER_MAX_BYTES (16 webhook bodies); a sync's pages are capped per run and per day (docs/operations.md).
PLATFORM_CALL_SECONDS = env.float("PLATFORM_CALL_SECONDS", default=20.0)
PLATFORM_ANSWER_MAX_BYTES = env.int("PLATFORM_ANSWER_MAX_BYTES", default=16 * PLATFORM_BODY_MAX_BYTES)
SYNC_MAX_PAGES_PER_RUN = env.int("SYNC_MAX_PAGES_PER_RUN", default=500)
SYNC_MAX_PAGES_PER_DAY = env.int("SYNC_MAX_PAGES_PER_DAY", default=2000)
WOOCOMMERCE_APP_NAME = env("WOOCOMMERCE_APP_NAME", default="Creator attribution")  # shown at the key handover

# Behind a load balancer (and nginx) set NUM_PROXIES so the client's address is read from
# X-Forwarded-For; 0 trusts only the socket address, so a client cannot dodge limits with a forged header.
NUM_PROXIES = env.int("NUM_PROXIES", default=0)

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["attribution.http.access.AnswerRenderer"],
    "DEFAULT_PARSER_CLASSES": ["attribution.parsing.StrictJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "attribution.api.views.api_exception_handler",
    # The same rule as config.lib.clients, which the throttles, the sign-in lockout and clicks use.
    "NUM_PROXIES": NUM_PROXIES,
}

# ("N/s|m|h|d", attribution/http/throttles.py) Order confirmation per client address and brand: a brand's server
# sending a flash sale's 100 orders a second from one address fits with room to spare. Cancel, update and
# read per developer key. Refused authentication (no key, a bad or revoked one) per client address.
API_THROTTLE_RATES = {
    "order_confirmation": env("THROTTLE_ORDER_CONFIRMATION", default="12000/min"),
    "developer_key": env("THROTTLE_DEVELOPER_KEY", default="6000/min"),
    "refused_authentication": env("THROTTLE_REFUSED_AUTHENTICATION", default="30/min"),
    # Order confirmations of no brand (unresolved_domain...) stored per address; beyond, counted per host and
    # hour (attribution.http.throttles.keep_brandless_event).
    "brandless_events": env("THROTTLE_BRANDLESS_EVENTS", default="60/min"),
    # Platform deliveries refused before they are trusted (a signature that does not match, a body over the
    # limit), stored in the connection's brand's log a few an hour; beyond, counted per connection and hour
    # (health.log.models.RefusedDeliveryCount). A real shop never sends more than a few.
    "signature_failures": env("THROTTLE_SIGNATURE_FAILURES", default="5/hour"),
    # WooCommerce's key handover callback, per address: a site posts one per handover its administrator approves.
    "key_handovers": env("THROTTLE_KEY_HANDOVERS", default="10/min"),
    # "Sync now" on the Sync page, per brand: one run per shop is queued at a time; this bounds the presses.
    "sync_now": env("THROTTLE_SYNC_NOW", default="10/hour"),
}
# Where the counts live: the shared cache with REDIS_URL, else the database; never one worker's memory.
THROTTLE_STORE = "cache" if env("REDIS_URL", default="") else "database"

SPECTACULAR_SETTINGS = {
    "TITLE": "Creator commerce order attribution",
    "DESCRIPTION": "Order confirmation, commission cancellation and amount update events.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PREPROCESSING_HOOKS": ["attribution.api.schema.document_paths_without_trailing_slash"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "attribution.api.schema.order_confirmation_component",
        "attribution.http.answers.request_line_limit",
    ],
}

# Content-Security-Policy of every page (the health pages, sign-in, the admin, Swagger UI): scripts, styles and
# images from this origin only, no inline script, no framing. The event endpoints answer JSON to other sites'
# pages and scripts and carry none.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/order_confirmation", "/api/Affiliates/"],
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],  # the admin's and Swagger UI's icons are data: URLs in their CSS
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Browsers post order confirmations from brands' own origins (docs/decisions.md, "Browser callers"), any
# origin and without credentials (attribution.http.middleware.BrowserCallersMiddleware); nothing else is CORS.
CORS_URLS_REGEX = r"^/api/order_confirmation/?$"
CORS_ALLOW_METHODS = ("POST", "OPTIONS")
# A page may pass its own X-Request-ID to follow an event, and read the one it was given.
CORS_ALLOW_HEADERS = ("content-type", "x-request-id")
CORS_EXPOSE_HEADERS = ("X-Request-ID",)
CORS_PREFLIGHT_MAX_AGE = 86_400  # seconds a browser may keep a preflight's answer

# Events the database could not take wait here for `manage.py replay_spool` (attribution/durability/spool.py).
# Local disk of each app server; replay runs on every server (or point all at one shared volume).
SPOOL_DIR = env.path("SPOOL_DIR", default=BASE_DIR / "spool")

# How long a resolved host is cached. Edits in the admin invalidate it at once in this
# process (and everywhere with REDIS_URL); other processes with the local cache see it after this.
BRAND_RESOLUTION_CACHE_SECONDS = env.int("BRAND_RESOLUTION_CACHE_SECONDS", default=60)
# Each process also keeps what it resolved in memory this long (brands.resolution): no cache read per order.
BRAND_RESOLUTION_LOCAL_SECONDS = env.int("BRAND_RESOLUTION_LOCAL_SECONDS", default=5)

# Alerts (docs/alerts.md). Mail goes through Django's mail framework: the console in `make run`, an
# in-memory outbox in tests, SMTP in production (EMAIL_URL=smtp+tls://user:password@host:587).
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Creator attribution <alerts@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The address the service is reached at, for links in emails and webhooks (no request to build them from).
SITE_URL = env("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")
# Webhook channels are brands' own URLs: in production they may only reach public addresses over HTTPS
# (health/alerts/notify/outbound.py). True lets them reach this machine's loopback over plain HTTP, so a local
# receiver works in `make run`; private and link-local networks stay refused either way.
WEBHOOKS_ALLOW_LOCAL = env.bool("WEBHOOKS_ALLOW_LOCAL", default=DEBUG)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)

# How long each growing table keeps its rows, in days (health/pruning.py; docs/operations.md, "What grows
# and how it is pruned"). Each can be set as RETENTION_<NAME>_DAYS.
RETENTION_DAYS = {
    name: env.int(f"RETENTION_{name.upper()}_DAYS", default=days)
    for name, days in {
        "alert_history": 180,
        "spool_ledger": 30,
        "vanished_spools": 7,
        "dead_letters": 400,
        "failed_tasks": 30,
        "expired_sessions": 0,
        "sign_in_records": 90,
        "unused_clicks": 180,  # days after the click's attribution window closed
        "reconciliations": 90,
        # Delivery ids (PlatformDelivery): Shopify retries for about 4 hours; a month covers a resend by hand.
        "platform_deliveries": 30,
        # The shops' syncs and the orders each read (SyncRun, SyncedOrder); the daily capture figures stay.
        "sync_runs": 400,
        # WooCommerce key handovers (KeyHandover): refused an hour after they start; the unconfirmed hold keys.
        "key_handovers": 1,
    }.items()
}

# The shops' syncs (docs/operations.md, "How fast a sync reads") rest this many times a page's own time after each
# page (0: flat out) while at least SYNC_BUSY_CPU_SHARE of the time some task waited for a CPU on their machine
# (0: always), on the task runner named SYNC_TASK_CLUSTER when set, else on the task runner.
SYNC_PAUSE_RATIO = env.float("SYNC_PAUSE_RATIO", default=49.0)
SYNC_BUSY_CPU_SHARE = env.float("SYNC_BUSY_CPU_SHARE", default=0.10)
SYNC_TASK_CLUSTER = env("SYNC_TASK_CLUSTER", default="")

# The task runner (django-q2, the database is the queue; config/task_runner.py).
Q_CLUSTER = task_runner_settings(
    workers=env.int("TASK_WORKERS", default=2),
    poll=env.float("TASK_POLL_SECONDS", default=1.0),
    sync_cluster=SYNC_TASK_CLUSTER,
)

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True

# Wires the benchmark's baseline view (config/bench.py); `make bench` sets it, production never does.
BENCHMARK = env.bool("BENCHMARK", default=False)

# JSON lines on the console (config/logs.py).
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOGGING = logging_settings(LOG_LEVEL)

# Currencies (docs/currencies.md): the portfolio's currency (a brand has its own); the ECB's rates, kept in our
# table (attribution.fx), refreshed daily from FX_RATES_FILE when set, else FX_RATES_URL; never changed.
REPORTING_CURRENCY = env("REPORTING_CURRENCY", default="USD").upper()
FX_RATES_URL = env("FX_RATES_URL", default="https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip")
FX_RATES_FILE = env("FX_RATES_FILE", default="")
FX_RATES_TIMEOUT_SECONDS = env.float("FX_RATES_TIMEOUT_SECONDS", default=30.0)  # the whole download
# The file downloaded, and the CSV inside its zip, read no further than (the history: 0.6 MB, 1.9 MB in 2026):
FX_RATES_MAX_BYTES = env.int("FX_RATES_MAX_BYTES", default=8 * 1024 * 1024)
FX_RATES_MAX_UNCOMPRESSED_BYTES = env.int("FX_RATES_MAX_UNCOMPRESSED_BYTES", default=32 * 1024 * 1024)
# A process keeps the days' rates in memory (attribution.fx.lookup); a day not published yet is read again after:
FX_RATES_CACHE_SECONDS = env.int("FX_RATES_CACHE_SECONDS", default=600)
FX_RATES_STALE_DAYS = env.int("FX_RATES_STALE_DAYS", default=4)  # the account managers' incident past it
