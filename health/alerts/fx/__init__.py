"""The account managers' alert on stale currency rates: its rule and what it says."""
