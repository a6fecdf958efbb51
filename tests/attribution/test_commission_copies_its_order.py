"""A commission keeps its order's attribution path and returning-shopper flag (attribution 0018): set by every
way in when it is created (the tests of each way in check it), and copied onto the commissions made before."""

import importlib
from types import SimpleNamespace

from django.apps import apps
from django.db import connection

from attribution.models import Commission
from tests.factories import CommissionFactory, OrderFactory

migration = importlib.import_module("attribution.migrations.0018_commission_attribution_path")


def test_the_migration_copies_each_order_s_path_and_shopper_onto_its_commission(db, monkeypatch):
    monkeypatch.setattr(migration, "BATCH", 2)  # several batches
    made = [
        CommissionFactory(order=OrderFactory(attribution=how, is_returning_customer=returning))
        for how, returning in [
            ("click", True),
            ("code", False),
            ("shopper", True),
            ("click", False),
            ("code", True),
        ]
    ]
    Commission.objects.update(attribution="none", is_returning_customer=False)  # as the column was added

    migration.copy_from_orders(
        apps, SimpleNamespace(connection=connection)
    )  # it uses the editor's connection

    assert [(c.attribution, c.is_returning_customer) for c in Commission.objects.order_by("id")] == [
        (c.order.attribution, c.order.is_returning_customer) for c in made
    ]
