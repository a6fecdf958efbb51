"""docs/operations.md's schedule table matches the schedules the admin shows (health.tasks.SCHEDULES): each
task by its function, its name in the admin and its time."""

import re
from pathlib import Path

from health.tasks import SCHEDULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_every_schedule_is_in_the_operations_table_as_the_admin_names_it():
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| Every | Task") :]
    table = table[: table.index("\n\n")]
    rows = {m.group(2): m.group(1) for m in re.finditer(r"^\| ([^|]+) \| `(\w+)` \(\*", table, re.M)}
    assert set(rows) == {plan.func.rsplit(".", 1)[1] for plan in SCHEDULES}
    for plan in SCHEDULES:
        func = plan.func.rsplit(".", 1)[1]
        assert f"`{func}` (*{plan.name}*)" in table
        every = rows[func].strip()
        if plan.minutes:
            assert every == ("minute" if plan.minutes == 1 else f"{plan.minutes} minutes")
        else:
            assert every == f"day, {plan.daily_at:%H:%M} UTC"
