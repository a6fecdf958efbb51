"""What the storefront platforms write in their exports: the note attribute that carries the click, and each
platform's order statuses (True: the order earns nothing, cancelled or never paid)."""

CLICK_ATTRIBUTE = "sms_click_id"  # the note/cart attribute the click script writes on a Shopify storefront

SHOPIFY_STATUSES = {
    "paid": False,
    "partially_paid": False,
    "partially_refunded": False,
    "authorized": False,
    "pending": False,
    "": False,
    "refunded": True,
    "voided": True,
}
WOO_STATUSES = {
    "completed": False,
    "processing": False,
    "on-hold": False,
    "": False,
    "cancelled": True,
    "refunded": True,
    "failed": True,
    # Never paid: such an order earns nothing (and may never have reached the thank-you page).
    "pending": True,
    "pending-payment": True,
    "checkout-draft": True,
    "draft": True,
    "trash": True,
}
