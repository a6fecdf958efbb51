"""Found replaying round six (issue 55, findings 6 and 9) on a served instance: a WooCommerce connection whose
site address the outbound guard refuses (a 6to4 form of 169.254.169.254, as a connection made before round six
may hold) made the sync raise before its run was guarded, so the run stayed `running`, no incident opened, and
the task failed with a traceback. As finding 9 says, such a run ends failed with its reason and its
`sync_failed` incident."""

import pytest

from attribution.models import SyncRun
from attribution.platforms.sync.orchestration import run_sync
from health.alerts.models import Incident

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "site", ["https://[2002:a9fe:a9fe::]", "https://0177.0.0.1", "https://169.254.169.254"]
)
def test_a_site_address_the_guard_refuses_fails_the_run_with_its_reason(woo_site, clock, site):
    connection = woo_site.connection
    connection.site_url = site
    connection.save(update_fields=["site_url"])

    run_sync(connection.pk, trigger="nightly", sleep=clock.sleep)

    run = SyncRun.objects.get()
    assert run.status == "failed"
    assert "does not call" in run.errors[-1]["text"] or "usual form" in run.errors[-1]["text"]
    assert Incident.objects.filter(rule="sync_failed", resolved_at=None).exists()
