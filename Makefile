# The README's promise: `make run` and `make test` work on a fresh machine with only Python 3.11.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
# `make run RESET=1`: new demo developer keys (by default the keys in demo-world.json keep working).
RESET ?=

.PHONY: install run test bench bench-cost bench-db bench-phases bench-health bench-partitions bench-reconcile bench-sync clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

# The task runner (alerts, notifications, roll-up, spool replay, locking, pruning: docs/alerts.md) runs
# beside the web server; Ctrl-C stops the server, and the trap stops the runner. The runner gets a session
# of its own (os.setsid, portable where the setsid command is not): a stop signal sent to the whole group
# (an IDE's stop button, `timeout`) would reach django-q2's worker processes directly, and one killed
# while holding the cluster's shared stop event leaves the runner hung; the trap stops it in order.
#
# Beside them, a stand-in of Shopify's and WooCommerce's APIs (python manage.py run_platform_standin) on
# STANDIN_PORT, holding the demo brands' shops, so "Connect with Shopify" / "Connect with WooCommerce" and the
# sync work offline: the service calls it over plain http (PLATFORM_PLAIN_HTTP_HOSTS) with a demo app's client
# id and secret. Each of these settings keeps the value the environment gives it, and is written to demo.env,
# which config/settings.py reads, so that `.venv/bin/python manage.py sync_orders …` typed beside make run
# reaches the same stand-in. At its start the stand-in takes back the credentials the service holds for its
# shops (run_platform_standin), so a shop connected in an earlier make run stays connected.
STANDIN_PORT ?= 9100
run: export SITE_URL = http://$(HOST):$(PORT)
run: export SHOPIFY_API_ORIGIN ?= http://$(HOST):$(STANDIN_PORT)/{shop}
run: export PLATFORM_PLAIN_HTTP_HOSTS ?= $(HOST):$(STANDIN_PORT),$(HOST):$(PORT)
run: export SHOPIFY_CLIENT_ID ?= demo-shopify-app
run: export SHOPIFY_CLIENT_SECRET ?= demo-shopify-app-secret
run: $(STAMP)
	@printf '%s\n' "# Written by make run: the settings it serves with, read by manage.py commands typed beside it" \
		"SITE_URL=$(SITE_URL)" "SHOPIFY_API_ORIGIN=$(SHOPIFY_API_ORIGIN)" \
		"PLATFORM_PLAIN_HTTP_HOSTS=$(PLATFORM_PLAIN_HTTP_HOSTS)" "SHOPIFY_CLIENT_ID=$(SHOPIFY_CLIENT_ID)" \
		"SHOPIFY_CLIENT_SECRET=$(SHOPIFY_CLIENT_SECRET)" > demo.env
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py seed_demo --json demo-world.json --summary --base-url http://$(HOST):$(PORT) $(if $(RESET),--reset)
	@$(BIN)/python -c 'import os, sys; os.setsid(); os.execv(sys.executable, [sys.executable, "manage.py", "qcluster"])' & worker=$$!; \
	$(BIN)/python manage.py run_platform_standin --host $(HOST) --port $(STANDIN_PORT) & standin=$$!; \
	trap 'kill -TERM $$worker $$standin 2>/dev/null; wait $$worker $$standin' INT TERM EXIT; \
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# pytest includes tests/test_module_sizes.py: no module of ours over 400 lines (migrations aside).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python manage.py makemigrations --check --dry-run -v1
	$(BIN)/python -m pytest -rs

# Benchmarks need PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/attribution_bench),
# wrk and valgrind with a C compiler (Debian packages `wrk`, `valgrind`, `gcc`; the first two installed
# here when missing). `make bench` runs the throughput rounds and then the instruction counts of
# `make bench-cost` (bench/README.md).
bench: $(STAMP)
	@command -v wrk >/dev/null || (apt-get install -y -qq wrk || (apt-get update -qq && apt-get install -y -qq wrk)) >/dev/null 2>&1 || (echo "install wrk (apt-get install wrk)"; exit 1)
	@command -v valgrind >/dev/null || (apt-get install -y -qq valgrind || (apt-get update -qq && apt-get install -y -qq valgrind)) >/dev/null 2>&1 || (echo "install valgrind (apt-get install valgrind)"; exit 1)
	$(BIN)/python -m bench.run $(if $(WORKERS),--workers $(WORKERS)) $(if $(ROUNDS),--rounds $(ROUNDS))

bench-cost: $(STAMP)
	@command -v valgrind >/dev/null || (apt-get install -y -qq valgrind || (apt-get update -qq && apt-get install -y -qq valgrind)) >/dev/null 2>&1 || (echo "install valgrind (apt-get install valgrind)"; exit 1)
	$(BIN)/python -m bench.cost

# The database's share per request (WAL bytes by relation, index entries, row locks, rows, buffers dirtied and
# time in PostgreSQL) of the project and both Django floors (bench/dbshare.py).
bench-db: $(STAMP)
	$(BIN)/python -m bench.dbshare

# Instructions per request by phase (bench/phases.py): where an order's and a cancel's work goes.
bench-phases: $(STAMP)
	@command -v valgrind >/dev/null || (apt-get install -y -qq valgrind || (apt-get update -qq && apt-get install -y -qq valgrind)) >/dev/null 2>&1 || (echo "install valgrind (apt-get install valgrind)"; exit 1)
	$(BIN)/python -m bench.phases

bench-health: $(STAMP)
	$(BIN)/python bench/health_pages.py $(if $(EVENTS),--events $(EVENTS))

# EVENTS=10000000 by default: one month of events loaded with COPY, then dropped (bench/partitions.py).
bench-partitions: $(STAMP)
	$(BIN)/python bench/partitions.py $(if $(EVENTS),--events $(EVENTS))

# Reconciling 100,000 rows, applying 10,000 missing orders, memory from 10,000 to 200,000 rows (bench/reconcile.py).
bench-reconcile: $(STAMP)
	$(BIN)/python bench/reconcile.py

# The nightly sync of a 10,000-order shop against the platforms' stand-in: its cost, its memory at 1,000 and
# 10,000 orders, and the live order path's p99 beside it (bench/sync.py; gunicorn on 127.0.0.1:8106).
bench-sync: $(STAMP)
	@command -v wrk >/dev/null || (apt-get install -y -qq wrk || (apt-get update -qq && apt-get install -y -qq wrk)) >/dev/null 2>&1 || (echo "install wrk (apt-get install wrk)"; exit 1)
	$(BIN)/python -m bench.sync $(if $(TURNS),--turns $(TURNS)) $(if $(PLAN),--plan $(PLAN))

clean:
	rm -rf $(VENV) db.sqlite3 demo-world.json demo.env staticfiles
