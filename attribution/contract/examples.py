"""The names the OpenAPI examples use (attribution.api.schema), all from the demo world that `make run`
builds (attribution/management/commands/seed_demo.py), so that Swagger's "Try it out" and a schemathesis
run against `make run` get the outcome each example names (docs/api.md, "Examples in the schema").

seed_demo keeps them true on every run: it stores the orders the keyed examples act on (READ_ORDER and
UPDATE_ORDER, attributed by CODE) and frees the order ids the order confirmation examples send."""

HOST = "shop.acme-demo.example"  # the demo brand Acme Demo's primary property
PAGE = f"https://{HOST}/checkout/thank-you"
CODE = "ANA10"  # registered to Ana Active, Acme Demo's active creator

READ_ORDER = "1001"  # the read and cancel examples' order (a cancelled order is still found)
UPDATE_ORDER = "1002"  # the update example's order, which nothing cancels
TRACKED_ORDER = "1003"  # order confirmation: tracked by a code, from a thank-you page
DIRECT_ORDER = "A-1004"  # order confirmation: no_attribution, sent by a server with strings
DOMAIN_ORDER = "1005"  # order confirmation: tracked, sent by a server with `domain` instead of page_url
# Every order id field's own example in a body (orderId, order_id): an id no demo order has, so that a body tools
# build from the fields' examples changes no order of the demo world (the read API's path shows READ_ORDER).
FIELD_ORDER = "1006"

SEEDED = (READ_ORDER, UPDATE_ORDER)
FREED = (TRACKED_ORDER, DIRECT_ORDER, DOMAIN_ORDER, FIELD_ORDER)

# The demo world's fresh click of Ana on HOST (clicks.valid): seed_demo gives it this id.
CLICK = "clk_0123456789abcdef0123456789abcdef"
