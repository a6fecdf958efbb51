"""Billing (docs/billing.md): the writers that lock, pay and adjust (writers), the statements' figures,
lines and totals as the pages and the admin read them (statements), and a statement's CSV file (export)."""
