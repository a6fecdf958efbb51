"""The overview (/health/): a brand's outcomes of a period, its integration's status and platforms."""
