"""The nightly sync of a platform's shop: its orders changed in a window read through the platform's API
and run through the same decision and writers as its webhooks, so that an order a webhook missed does not stay
missed (docs/integration.md, "The nightly sync"). orchestration (queued, run and said in a line, as the task
runner, sync_orders and Sync now run it), signals (a finished run, for health's incidents), queued (Sync now's one
queued sync a shop), runner (one connection's run), runs (its life in the database: window, lease, checkpoint),
acting (a page of orders), shopify_orders and woocommerce_orders (the readers), webhooks (their health), capture
(the daily figures), sources (which reader for which platform).
"""
