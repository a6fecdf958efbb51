"""Storefront platforms (Shopify, WooCommerce) that send a brand's orders by signed webhook.

One module per platform on a shared receiver: the receiver keeps each delivery as it came, runs the
platform's signature check and turns its payload into one normalised order event; the decision
(attribution.orders) and the commission writers never see a platform's shape.
"""
