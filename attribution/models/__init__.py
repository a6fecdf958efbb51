"""The attribution app's tables, one module per concept: clicks and creator links, orders, commissions
(states, moves and their history, amount history), statements and adjustments, the spool's replay ledger, dead letters and backlog."""

from .clicks import LINK_CODE_ALPHABET, Click, CreatorLink, new_click_id, new_link_code
from .commissions import AmountChange, Commission, CommissionStateChange
from .orders import Attribution, Order
from .ratelimits import RateCounter
from .replays import DeadLetter, SpoolBacklog, SpoolReplay
from .statements import Adjustment, Statement

__all__ = [
    "LINK_CODE_ALPHABET",
    "Adjustment",
    "AmountChange",
    "Attribution",
    "Click",
    "Commission",
    "CommissionStateChange",
    "CreatorLink",
    "Order",
    "RateCounter",
    "DeadLetter",
    "SpoolBacklog",
    "SpoolReplay",
    "Statement",
    "new_click_id",
    "new_link_code",
]
