# The README's promise: `make run` and `make test` work on a fresh machine with only Python 3.11.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test bench bench-health clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py seed_demo --json demo-world.json --summary
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python manage.py makemigrations --check --dry-run -v1
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) db.sqlite3 demo-world.json staticfiles
