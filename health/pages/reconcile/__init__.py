"""The reconciliation of a brand's order book (/health/reconcile/): upload, the run, apply, its CSV."""
