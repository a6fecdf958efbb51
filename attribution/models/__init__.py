"""The attribution app's tables, one module per concept: clicks and creator links, orders, commissions
(states, moves and their history, amount history), statements and adjustments, the spool's replay ledger, dead letters and backlog, reconciliations of the brand's order book, the
storefront platforms' deliveries, the nightly sync of their orders, the daily reference rates of currencies."""

from .clicks import LINK_CODE_ALPHABET, Click, CreatorLink, new_click_id, new_link_code
from .commissions import AmountChange, Commission, CommissionStateChange
from .fx_rates import FxRate
from .orders import Attribution, Order
from .platforms import PlatformDelivery
from .ratelimits import RateCounter
from .reconciliations import BookRow, Reconciliation
from .replays import DeadLetter, SpoolBacklog, SpoolReplay
from .review import CommissionHold, ReviewFlag, ReviewSettings, Rule
from .statements import Adjustment, Statement
from .syncs import DailyCapture, QueuedSync, SyncedOrder, SyncRun

__all__ = [
    "LINK_CODE_ALPHABET",
    "Adjustment",
    "AmountChange",
    "Attribution",
    "BookRow",
    "Click",
    "Commission",
    "CommissionHold",
    "CommissionStateChange",
    "CreatorLink",
    "DailyCapture",
    "FxRate",
    "Order",
    "PlatformDelivery",
    "RateCounter",
    "ReviewFlag",
    "ReviewSettings",
    "Rule",
    "Reconciliation",
    "DeadLetter",
    "SpoolBacklog",
    "SpoolReplay",
    "Statement",
    "QueuedSync",
    "SyncRun",
    "SyncedOrder",
    "new_click_id",
    "new_link_code",
]
