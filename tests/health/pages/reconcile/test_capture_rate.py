"""The overview's capture rate by day from the brand's reconciliations, and the nav's link to the page."""

import pytest

from attribution.models import Reconciliation
from tests.health.pages.reconcile.conftest import PAGE, text_of

pytestmark = pytest.mark.django_db


class TestCaptureRateOnTheOverview:
    def test_the_overview_shows_the_capture_rate_by_day_from_the_runs(self, alice_client, acme, uploaded):
        # A later run of the 21st wins that day; the 20th keeps the first run's count.
        later = Reconciliation.objects.create(
            brand=acme,
            format="generic",
            order_id_column="order_id",
            amount_column="amount",
            period_start=uploaded.period_start,
            period_end=uploaded.period_end,
            daily_capture={"2026-11-21": [4, 3]},
        )

        page = text_of(alice_client.get("/health/", {"from": "2026-11-19", "to": "2026-11-22"}))

        assert "Capture rate" in page
        assert "2026-11-21 4 3 75.0 %" in page
        assert "2026-11-20 2 2 100.0 %" in page
        html = alice_client.get("/health/", {"from": "2026-11-19", "to": "2026-11-22"}).content.decode()
        assert f'href="/health/reconcile/{later.pk}/?brand={acme.pk}">2026-11-21' in html

    def test_without_a_run_it_invites_an_upload(self, alice_client, acme):
        assert "No reconciliation covers these days." in text_of(alice_client.get("/health/"))

    def test_another_brands_runs_never_show(self, client, bob, uploaded, other_brand):
        client.force_login(bob)

        assert "No reconciliation covers these days." in text_of(
            client.get("/health/", {"from": "2026-11-19", "to": "2026-11-22"})
        )
        assert "book.csv" not in text_of(client.get(PAGE))


def test_the_nav_links_the_page(alice_client, acme):
    html = alice_client.get("/health/").content.decode()

    assert '<a href="/health/reconcile/"' in html and ">Reconcile</a>" in html
