"""Currency conversion of commissions into a reporting currency, at a rate locked on the order's date
(docs/currencies.md). The home of everything FX:

- arithmetic: the cross rate through the euro and the one rounding (pure; the ledger uses it for updates)
- ecb: the ECB's files (history zip of CSV, XML), read; and downloaded with httpx
- loading: rates into our table (the bundled history, a refresh), never changing a stored one
- lookup: the rates in force on a day, kept in memory per process
- conversion: a commission's locked conversion, its columns, and the reason when there is no rate
- backfill: commissions stored before conversion existed, converted once at their own dates
"""
