"""The test suite's settings: the project's own (config/settings.py), plus the read-replica router wired to
Django's test mirror, so the router is tested against a "replica" that is the test database itself
(tests/config/test_replica.py). REPLICA_READS stays off unless a test turns it on: every other test reads
and writes one database, as a deployment without DATABASE_REPLICA_URL does."""

from config.settings import *  # noqa: F403

DATABASES["replica"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}  # noqa: F405
DATABASE_ROUTERS = ["config.db.router.ReplicaRouter"]
REPLICA_READS = False
# Tests never wait: the sync's rest between pages is off (a test of it sets it).
SYNC_PAUSE_RATIO = 0.0
