"""Calls out to the storefront platforms' own APIs (Shopify's Admin GraphQL API, WooCommerce's REST API): one
small client per platform on one guarded httpx client (http.py), and the errors a caller acts on (errors.py).
Tested against the platforms' stand-in (attribution.management.demo.standin), which the demo serves too."""
