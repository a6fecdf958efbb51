"""No Python module of the repository is over 400 lines, test modules included and migrations aside
(docs/architecture.md, "Module map"): a module that grows past it is split by what it holds, and a new test
goes into a new module named by what it checks. `make test` runs this with the rest."""

import os
from pathlib import Path

LIMIT = 400
ROOT = Path(__file__).resolve().parent.parent
# Generated or not ours: Django's migrations, and whatever lives in hidden folders (.venv, .git, caches).
SKIPPED_FOLDERS = {"migrations", "__pycache__", "node_modules", "staticfiles"}


def modules(root: Path):
    """Every .py file under `root`, hidden and skipped folders left out (not walked into at all)."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def line_count(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def offenders(root: Path, limit: int = LIMIT) -> list[tuple[str, int]]:
    """(path relative to `root`, lines) of every module over `limit` lines."""
    counted = ((path, line_count(path)) for path in modules(root))
    return [(path.relative_to(root).as_posix(), lines) for path, lines in counted if lines > limit]


def test_no_module_is_over_400_lines():
    over = offenders(ROOT)

    assert not over, f"{len(over)} module(s) over {LIMIT} lines; split each by what it holds:\n" + "\n".join(
        f"  {path}: {lines} lines" for path, lines in over
    )


def write(path: Path, lines: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n" * lines)


def test_the_check_names_every_module_over_the_limit_with_its_line_count(tmp_path):
    write(tmp_path / "app" / "big.py", 401)
    write(tmp_path / "tests" / "test_big.py", 450)
    write(tmp_path / "app" / "at_the_limit.py", 400)

    assert offenders(tmp_path) == [("app/big.py", 401), ("tests/test_big.py", 450)]


def test_migrations_hidden_folders_and_other_files_are_left_out(tmp_path):
    write(tmp_path / "app" / "migrations" / "0001_initial.py", 900)
    write(tmp_path / ".venv" / "lib" / "site.py", 900)
    write(tmp_path / "app" / "__pycache__" / "big.py", 900)
    write(tmp_path / "docs" / "long.md", 900)

    assert offenders(tmp_path) == []
