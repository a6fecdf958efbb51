"""Connecting a shop with its platform's consent (docs/integration.md, "Connecting a shop"): Shopify's OAuth
(shopify_oauth.py), WooCommerce's key handover (woocommerce_keys.py), both ending in one place that keeps the
proved connection (connections.py, which also disconnects one whose credential is refused); the Shopify app's own
webhooks, app/uninstalled and the three compliance topics (views.py, acting through privacy.py)."""
