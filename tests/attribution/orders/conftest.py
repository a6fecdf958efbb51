"""Fixtures of the order confirmation tests (test_confirmation_*.py)."""

import pytest

from tests.factories import CreatorFactory, PropertyFactory

from .confirming import URL


@pytest.fixture
def confirm(api):
    def post(body, **extra):
        return api.post(URL, body, **extra)

    return post


@pytest.fixture
def secondary_prop(brand):
    return PropertyFactory(brand=brand, host="eu.acme.example")


@pytest.fixture
def banned_creator(brand):
    return CreatorFactory(brand=brand, name="Ben", is_active=False)


@pytest.fixture
def spool_dir(settings, tmp_path):
    """Service-side faults keep the event in the spool; keep it out of the repository."""
    settings.SPOOL_DIR = tmp_path / "spool"
    return settings.SPOOL_DIR
