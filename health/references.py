"""The references the database does not check on every write, checked here instead (daily, and by
`manage.py check_references`).

On the order path the database no longer checks a row's foreign keys as it writes it: each check locked
the parent row (the brand's, for every order and every outcome row), so concurrent orders of one brand
shared that lock through MultiXacts (docs/performance.md, "Foreign keys on the hot path"). The code that
writes those rows names only parents it has just read, and deleting a parent still cascades or sets
NULL through Django's collector. What is left, a row naming a parent that does not exist (a bug, or a
parent deleted by hand in SQL), is found here: every foreign key declared with `db_constraint=False`
is checked, for the rows of the last days by default (each row by its own time column, so the outcome
log reads its newest partitions only), or for every row.
"""

from dataclasses import dataclass
from datetime import datetime

from django.apps import apps
from django.db import models

# The column that dates a row, by preference; a model without one is checked whole.
TIME_COLUMNS = ("received_at", "created_at", "changed_at", "held_at")


@dataclass(frozen=True)
class Dangling:
    """Rows of `model` whose `field` names a `parent` row that does not exist."""

    label: str  # "attribution.Order.brand"
    count: int
    examples: list  # a few of their primary keys


def unchecked_references() -> list[models.ForeignKey]:
    """Every foreign key the database does not check, in a stable order."""
    found = []
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.ForeignKey) and field.concrete and not field.db_constraint:
                found.append(field)
    return sorted(found, key=lambda f: (f.model._meta.label, f.name))


def _time_column(model) -> str | None:
    names = {f.name for f in model._meta.concrete_fields}
    return next((name for name in TIME_COLUMNS if name in names), None)


def dangling(*, since: datetime | None = None, examples: int = 5) -> list[Dangling]:
    """The references to rows that do not exist, among the rows dated from `since` (every row when None)."""
    found = []
    for field in unchecked_references():
        model, parent = field.model, field.related_model
        rows = model._base_manager.filter(**{f"{field.attname}__isnull": False})
        time = _time_column(model)
        if since is not None and time is not None:
            rows = rows.filter(**{f"{time}__gte": since})
        exists = parent._base_manager.filter(pk=models.OuterRef(field.attname))
        missing = rows.filter(~models.Exists(exists)).order_by()
        ids = list(missing.values_list("pk", flat=True)[: examples + 1])
        if ids:
            count = len(ids) if len(ids) <= examples else missing.count()
            found.append(Dangling(f"{model._meta.label}.{field.name}", count, ids[:examples]))
    return found


def describe(found: list[Dangling]) -> str:
    if not found:
        return "Every reference names an existing row."
    return "; ".join(f"{d.count} {d.label} name no existing row (e.g. ids {d.examples})" for d in found)
