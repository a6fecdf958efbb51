"""Commission statements (/health/statements/): a brand's statements and their CSV."""
