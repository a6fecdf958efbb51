"""Django's PostgreSQL backend with a connection check that costs no round trip (`config.db.base`),
named as the ENGINE in settings when DATABASE_URL is PostgreSQL."""
