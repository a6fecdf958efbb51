"""The portfolio (/health/portfolio/): every brand on one row, for account managers."""
