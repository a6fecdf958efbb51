import json
import os
import shutil

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from attribution.fx import lookup as fx_lookup
from attribution.fx.lookup import forget as forget_rates
from attribution.plans.cache import forget as forget_plans
from attribution.review.settings_copy import forget as forget_reviews
from brands.resolution import forget_all_locally
from health.pages import concurrent_reads
from tests import factories
from tests.outbound_double import outbound_double  # noqa: F401  (every outbound call of a test)
from tests.platform_standin import standin  # noqa: F401  (the platforms' stand-in, for every test folder)

# Browser tests run Debian's chromium (.ci/run installs it); Playwright's own browser download is not used.
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def pytest_addoption(parser):
    parser.addoption(
        "--page-screenshots",
        metavar="DIR",
        default=None,
        help="browser tests save a full-page screenshot of each page they look at into DIR",
    )


BROWSER_FIXTURES = {"browser", "new_context", "context", "page"}


@pytest.hookimpl(trylast=True)  # after pytest-django's own ordering, which this keeps within each part
def pytest_collection_modifyitems(config, items):
    """Browser tests run last: from its first use to the end of the session, Playwright keeps an event loop
    in the test thread, and every test after it runs with Django's async-safety check turned off."""
    items.sort(key=lambda item: bool(BROWSER_FIXTURES & set(getattr(item, "fixturenames", ()))))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, with Debian's chromium; without it, browser tests skip."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("browser tests need Debian's chromium (apt-get install chromium; .ci/run installs it)")
    # Playwright's sync API keeps an event loop in this thread, and Django refuses database calls while
    # one runs. The tests call the ORM and Playwright in turn, never at once, so this is safe here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    return {**browser_type_launch_args, "executable_path": CHROMIUM}


@pytest.fixture(scope="session")
def browser(launch_browser):
    """One chromium for the session; a chromium that cannot start skips the browser tests, saying why."""
    from playwright.sync_api import Error

    try:
        started = launch_browser()
    except Error as exc:
        pytest.skip(f"chromium at {CHROMIUM} could not be started: {exc.message.splitlines()[0]}")
    yield started
    started.close()


@pytest.fixture(autouse=True)
def _spool_in_tmp(settings, tmp_path):
    """Events a test makes the database refuse are spooled under the test's own tmp dir."""
    settings.SPOOL_DIR = tmp_path / "spool"
    return settings.SPOOL_DIR


@pytest.fixture(autouse=True)
def _fast_and_clean(settings):
    """Fast password hashing; an empty cache so brand resolution is read from each test's data."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Login lockout has its own tests (tests/brands/test_login_lockout.py); elsewhere it stays out of the way.
    settings.AXES_ENABLED = False
    cache.clear()
    forget_all_locally()
    forget_reviews()
    forget_rates()
    forget_plans()
    yield
    cache.clear()
    forget_all_locally()
    forget_reviews()
    forget_rates()
    forget_plans()


STORED_NEWEST_RATE_DAY = fx_lookup.newest_day


@pytest.fixture(autouse=True)
def _rates_refreshed_today(monkeypatch):
    """The alert rules see the currency rates refreshed today: the table holds the bundled history, which ages.
    The stale-rates rule's own tests read the table (the `rates_as_stored` fixture)."""
    monkeypatch.setattr(fx_lookup, "newest_day", lambda: timezone.now().date())


@pytest.fixture
def rates_as_stored(monkeypatch):
    monkeypatch.setattr(fx_lookup, "newest_day", STORED_NEWEST_RATE_DAY)


@pytest.fixture(autouse=True)
def _page_reads_closed():
    """The page reads' pool (health.pages.concurrent_reads) closes its connections after each test: the test
    database is dropped at the end, which PostgreSQL refuses while a connection to it is open."""
    yield
    concurrent_reads.close_connections()


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("race behaviour is proven on PostgreSQL; SQLite serialises writers")


@pytest.fixture
def api(client):
    """POST JSON to an API path: api.post(path, body, key=None, content_type=...)."""

    class Api:
        def post(self, path, body, *, key=None, content_type="application/json", **extra):
            raw = body if isinstance(body, str | bytes) else json.dumps(body)
            if key is not None:
                extra["HTTP_AUTHORIZATION"] = f"Bearer {key}"
            return client.post(path, raw, content_type=content_type, **extra)

        def get(self, path, *, key=None, **extra):
            if key is not None:
                extra["HTTP_AUTHORIZATION"] = f"Bearer {key}"
            return client.get(path, **extra)

    return Api()


@pytest.fixture
def brand(db):
    return factories.BrandFactory(name="Acme", commission_rate_percent="10")


@pytest.fixture
def prop(brand):
    return factories.PropertyFactory(brand=brand, host="shop.acme.example")


@pytest.fixture
def creator(brand):
    return factories.CreatorFactory(brand=brand, name="Ana")


@pytest.fixture
def other_brand(db):
    return factories.BrandFactory(name="Globex")


@pytest.fixture
def other_prop(other_brand):
    return factories.PropertyFactory(brand=other_brand, host="globex.example")
