"""The one shape of an order inside the service (issue 54): what every way in builds once and the decision
takes as it is. No database here.

- the order confirmation API: its serializer's clean values (attribution.orders.confirmation.read_confirmation);
- a storefront platform's delivery and its sync: the platform's read order, its code and click picked
  (attribution.platforms.recording);
- an order book's row the service never received (attribution.reconciliation.applying).

Each knows the order's brand and property in its own way: the API from the host the body names, a platform
from its connection, a book from the upload's brand (`resolution`).
"""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from brands.resolution import BrandInfo, Resolution

from .lines import NO_LINES, OrderLines


@dataclass
class IncomingOrder:
    """An order as the decision judges it: its values clean (the field rules passed), its brand and property
    when known, its lines when named."""

    order_id: str
    amount: Decimal
    currency: str
    is_test: bool
    is_returning_customer: bool
    click_id: str | None
    code: str | None
    email_hash: str | None
    return_window_closes_at: datetime | None
    warnings: list = field(default_factory=list)
    referring_site: str = ""  # issue 38: a platform's order's referring site (the code_leak rule)
    lines: OrderLines = NO_LINES  # issue 56: what a commission plan prices line by line
    # The brand and property the order belongs to, as its way in knows them; None before they are known.
    resolution: Resolution | None = None

    @property
    def brand(self) -> BrandInfo | None:
        return self.resolution.brand if self.resolution is not None else None
