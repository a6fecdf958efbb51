"""Review holds (/health/review/): the held commissions, the decisions on them, the review settings."""
