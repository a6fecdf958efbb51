"""The database connection's settings that settings.py sets on DATABASES["default"] (docs/operations.md).
Reads no environment: settings.py passes what DATABASE_URL and the DB_* variables say."""


def tune(
    db: dict,
    *,
    conn_max_age: int,
    statement_timeout_ms: int,
    jit: bool,
    connect_timeout_s: int,
    wait_timeout_s: float,
    prepare_threshold: str,
) -> dict:
    # Reuse connections between requests, and check them before use so a restarted database costs one failed
    # check rather than one failed request.
    db["CONN_MAX_AGE"] = conn_max_age
    db["CONN_HEALTH_CHECKS"] = True
    options = db.setdefault("OPTIONS", {})
    if db["ENGINE"] != "django.db.backends.postgresql":
        # SQLite: wait for the writer lock instead of failing at once under concurrent requests, and take it
        # when a transaction begins: a transaction that read first and writes later (as update_or_create
        # does) is refused "database is locked" at once when another writer is in between, without waiting,
        # since SQLite would otherwise deadlock. `make run` writes from the server and the task runner's
        # workers at the same time.
        options["timeout"] = 20
        options["transaction_mode"] = "IMMEDIATE"
        return db
    # Django's backend, with a check of the reused connection that costs no round trip (config/db/base.py).
    db["ENGINE"] = "config.db"
    # One stuck query must not hold a worker forever. No JIT compilation: it pays off for long analytical
    # queries, and the service runs none; a read of the partitioned outcome log is costed for every partition
    # before the run prunes them, so PostgreSQL compiled reads of a few pages (~0.3 s each, docs/performance.md).
    options["options"] = f"-c statement_timeout={statement_timeout_ms} -c jit={'on' if jit else 'off'}"
    options.setdefault("connect_timeout", connect_timeout_s)
    # ... and one silent network must not either: the server's timeout cannot fire when no packet reaches it,
    # so the client bounds its own wait for every answer (config/db/base.py).
    options["wait_timeout"] = wait_timeout_s
    # Parameters travel apart from the SQL, so PostgreSQL can keep the plan of a statement a connection runs
    # again and again (every event runs the same few): after DB_PREPARE_THRESHOLD runs it is prepared, which
    # saves a third of the database's CPU per order (bench/README.md). Set it to "none" behind a
    # transaction-mode pooler that cannot keep prepared statements.
    options["server_side_binding"] = True
    options["prepare_threshold"] = None if prepare_threshold.lower() == "none" else int(prepare_threshold)
    return db
