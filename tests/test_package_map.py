"""The maps of the code name every package of the apps on a line of its own, and nothing that is gone: the
module map of docs/architecture.md and the README's map of the code. A package added, moved or renamed
adds or moves its line."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("config", "brands", "attribution", "health")


def packages(root: Path) -> set[str]:
    """Every folder of the apps with an __init__.py, as `app/folder/` (migrations aside)."""
    found = set()
    for app in APPS:
        for init in (root / app).rglob("__init__.py"):
            folder = init.parent.relative_to(root)
            if "migrations" not in folder.parts:
                found.add(folder.as_posix() + "/")
    return found


def map_rows(text: str, heading: str) -> list[str]:
    """The first cell of each row of the first table under `heading`."""
    lines = text.split(heading + "\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return [m.group(1) for line in lines[start:end] if (m := re.match(r"\| `([^`]+)` \|", line))]


def check(rows: list[str], expected: set[str]) -> list[str]:
    problems = [f"{path}: no line" for path in sorted(expected - set(rows))]
    problems += [f"{path}: no such package" for path in sorted(set(rows) - expected)]
    problems += [f"{path}: {rows.count(path)} lines" for path in sorted(set(rows)) if rows.count(path) > 1]
    return problems


def test_the_architecture_module_map_names_every_package_once():
    rows = map_rows((ROOT / "docs" / "architecture.md").read_text(), "## Module map")

    assert check(rows, packages(ROOT)) == []


def test_the_readme_map_names_every_package_once():
    rows = map_rows((ROOT / "README.md").read_text(), "## Map of the code")

    assert check(rows, packages(ROOT)) == []


def test_the_check_names_a_missing_a_gone_and_a_doubled_line(tmp_path):
    for folder in ("brands", "brands/models", "health/pages/overview", "health/migrations"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").touch()
    rows = ["brands/", "brands/", "health/pages/events/"]

    assert check(rows, packages(tmp_path)) == [
        "brands/models/: no line",
        "health/pages/overview/: no line",
        "health/pages/events/: no such package",
        "brands/: 2 lines",
    ]
