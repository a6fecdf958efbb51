"""A stand-in of Shopify's and WooCommerce's APIs, built from their documented answers: a WSGI app over an
in-memory World (world.py). The tests route the platform client to it (httpx.WSGITransport), and the demo serves
it with `python manage.py run_platform_standin`, so a newcomer can connect a shop and sync it offline; the bench
holds its shops' orders in it. No production code: it lives beside the demo world, and an import contract keeps
every package the service runs off it (pyproject.toml).

Routes (app.py): Shopify under /{shop}/ (OAuth authorize and access_token, the Admin GraphQL API), WooCommerce
under /woo/{slug}/ (wc-auth key handover, /wp-json/, webhooks, orders). The orders' answers live in orders.py.
"""
