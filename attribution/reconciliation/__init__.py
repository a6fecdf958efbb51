"""Reconciliation of a brand's own order book against the orders the service received.

books/: which export a CSV is and how its rows read; runs: the run, reading the book a batch at a time;
matching: each book order matched against the orders received and judged into its category (matched,
drifted amount, cancelled at the brand, missing, invalid), then totalled by totals.py; applying: the missing and drifted orders put right through the same decision and writers
as the API; urls, views and schema: its way in.
"""
