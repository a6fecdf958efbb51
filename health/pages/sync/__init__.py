"""The sync's pages (docs/health.md, "The sync"): the sync history of a brand's shops (each run's window, orders
read, recovered, followed, errors) and one run's recovered orders, "Sync now" for a date range (the setup page's
form posts here), and the overview's capture per day and path. views, forms, queries."""
