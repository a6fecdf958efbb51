"""Creator links, clicks, orders, commissions and billing statements for account managers, one module per
concept: `tracking` (links, clicks, orders, commissions and their histories), `statements` (statements and
adjustments), `replays` (dead letters and spool backlogs), `fx` (the currency rates, read-only); `common` holds what they
share.

Orders, commissions, statements and adjustments are read-only here: they change only through the services
(attribution.orders.changes, attribution.billing, Commission.move_to), so their history stays complete. The one write
is the "Mark paid" action of statements, for users with the pay_statement permission; and `review` (issue 38):
review settings, and the release and reject actions on held commissions' holds; `connections` (issue 47): how each
shop was connected, a pasted Admin API token, the platforms' privacy requests; `syncs` (issue 57): the shops' sync
runs across brands, read-only."""

from . import connections, fx, replays, review, statements, syncs, tracking

__all__ = ["connections", "fx", "replays", "review", "statements", "syncs", "tracking"]
