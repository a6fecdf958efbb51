"""Reconciliation of a brand's own order book against the orders the service received.

books/: which export a CSV is and how its rows read; matching: each book order's category
(matched, drifted amount, cancelled at the brand, missing, invalid), judged by judging.py and totalled
by totals.py; applying: the missing and drifted orders put right through the same decision and writers
as the API; urls, views and schema: its way in.
"""
