"""The alerts pages (/health/alerts/): incidents, the brand's rules, its webhook channels."""
