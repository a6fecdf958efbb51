"""The logging configuration settings.py sets (LOGGING): JSON lines on the console, one line per API request
in its own shape, and the noisy loggers quieted. Reads no environment: settings.py passes LOG_LEVEL."""

import logging


def logging_settings(level: str) -> dict:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            },
            "request_line": {"()": "attribution.http.middleware.RequestLineFormatter"},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "json"},
            "requests": {"class": "logging.StreamHandler", "formatter": "request_line"},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # One JSON line per API request, in the same shape, from a formatter made for it.
            "attribution.requests": {"handlers": ["requests"], "level": level, "propagate": False},
            "django.server": {"level": "WARNING"},
            # Every 4xx is an outcome in the outcome log already; only errors are worth a line here.
            "django.request": {"level": "ERROR"},
            "django.utils.autoreload": {"level": "WARNING"},
            "axes": {"level": "WARNING"},
            # httpx logs every URL it calls at INFO: a WooCommerce call may carry its keys in the query
            # (attribution.platforms.apis.woocommerce), and a credential is never logged.
            "httpx": {"level": "WARNING"},
            "httpcore": {"level": "WARNING"},
            # The task runner says every scheduled run at INFO; its results are in the admin instead.
            "django-q": {"level": "WARNING"},
        },
    }


def lean_records() -> None:
    """Stop every log record from gathering what no line here prints: the caller's file, line and function
    (a walk up the stack), the thread's and process's names and ids. Logging's own switches for it (the
    logging HOWTO, "Optimization"). Every API request writes a line, and this was ~16k instructions of an
    order (docs/performance.md). The WSGI application calls it when it is built (config/wsgi.py), so
    manage.py keeps the full records; a test run that imports config.wsgi leans its records from then on
    (a failure's captured log lines then name no file and line)."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
