"""Reconciliation of a brand's own order book against the orders the service received.

formats: which export a CSV is and how its rows read; matching: each book order's category
(matched, drifted amount, cancelled at the brand, missing, invalid); apply: the missing and
drifted orders put right through the same decision and writers as the API.
"""
