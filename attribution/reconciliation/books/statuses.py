"""The statuses a book's status column may hold, by whose vocabulary it is: completed, or cancelled
(cancelled and refunded orders earn nothing)."""

from attribution.models import Reconciliation
from attribution.parsing import FieldError

from .platform_terms import SHOPIFY_STATUSES, WOO_STATUSES

Format = Reconciliation.Format

MAPPED = "mapped"  # Columns.statuses of a read through a map: the generic and the WooCommerce statuses

GENERIC_STATUSES = {"": False, "completed": False, "cancelled": True, "canceled": True, "refunded": True}

# A status column the brand mapped holds a vocabulary it did not say: the generic and the WooCommerce
# statuses together (they agree where they overlap; Shopify's `pending` is a completed order, WooCommerce's
# an unpaid one, so Shopify's stay its export's own).
STATUSES = {
    Format.GENERIC: GENERIC_STATUSES,
    Format.SHOPIFY: SHOPIFY_STATUSES,
    Format.WOOCOMMERCE: WOO_STATUSES,
    MAPPED: {**GENERIC_STATUSES, **WOO_STATUSES},
}


def read_status(text: str, vocabulary: str) -> bool:
    """Whether a status cell of `vocabulary` (a format, or MAPPED) cancels its order; FieldError naming the
    statuses it knows otherwise."""
    statuses = STATUSES[vocabulary]
    value = text.strip().lower().replace(" ", "_" if statuses is SHOPIFY_STATUSES else "-")
    value = value.removeprefix("wc-")
    if value not in statuses:
        known = ", ".join(sorted(s for s in statuses if s))
        raise FieldError(f"{text[:30]!r} is not a status of this format ({known})")
    return statuses[value]
