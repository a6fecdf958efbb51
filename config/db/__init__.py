"""How the service talks to its database beyond the ORM: a PostgreSQL backend whose connection check
costs no round trip (`config.db.base`), and INSERT and UPDATE statements built once for the hot paths
(`config.db.statements`)."""
