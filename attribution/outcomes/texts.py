"""Every sentence an answer carries, with the one table of fix sentences ("Fix: ..."): services pick a
sentence from here by key; nothing else writes a user-facing sentence. No database here.
"""

# The fix of a field that breaks its rule, by the name the brand sent it under ("change.*" for cancel
# and update, whose wording differs where their fields do). An answer about a field reads
# "<field> <what is wrong>. Fix: <this>." (see `field_error`).
FIELD_FIXES: dict[str, str] = {
    "orderId": "send your order's id as a string or an integer",
    "orderAmount": "send a number greater than 0 without symbols or markup, such as 59.90",
    "currency": "send the order's three-letter ISO 4217 code, such as USD",
    "test": "send true or false, or leave it out",
    "is_returning_customer": "send true or false, or leave it out",
    "code": "send the discount code as a string, or leave it out",
    "customer_email": "send the shopper's address as a string, or leave it out",
    "clickId": "send the sms_click_id cookie value exactly as stored (no quotes, no URL encoding, no cookie name)",
    "order_id": "send the orderId of the original order",
    "new_order_amount": "send the order's new total as a plain number such as 49.90",
    "change.currency": "send the order's currency, such as USD",
    "review.decision": 'send "release" or "reject"',
    "review.note": "send a sentence of at most 1000 characters, or leave it out",
}

# Every other sentence, by what happened; `{name}` parts are filled by `say`.
TEXTS: dict[str, str] = {
    # order confirmation
    "order.not_an_object": "The request body must be a JSON object with the order's fields.",
    "order.page_url_missing": "page_url is missing. Fix: send the URL of the page that sends the event, "
    "or your domain in domain.",
    "order.host_unreadable": "{field} could not be read as a web address. "
    "Fix: send a URL such as https://shop.example/thank-you.",
    "order.no_brand": "No registered brand matches {host}. Fix: page_url or domain must match your "
    "registered domain.",
    "order.duplicate": "Order {order_id} was already received; this repeat was ignored. "
    "Fix: send each order once.",
    "order.click_not_found": "clickId matches no click. "
    "Fix: send the sms_click_id cookie value exactly as stored.",
    "order.unreadable_return_window": "returnWindowClosesAt {problem}; the order was kept without it. "
    "Send ISO 8601 such as 2026-12-24T00:00:00Z or Unix epoch seconds.",
    "order.items_ignored": "items were ignored: {problem}; the order was judged on orderAmount alone. "
    'Send each item as {{"sku", "product_id", "quantity", "amount", "collections"}}.',
    # added to any answer whose event carries a warning
    "answer.warning": " Warning: {warning}",
    "order.tracked": "Order attributed; a commission was created.",
    "order.no_attribution": "Order recorded; it matched no click, discount code or known shopper.",
    "order.shopify_handoff": "Order recorded and handed off to your storefront-platform integration.",
    "order.blacklisted_code": "Order recorded; its discount code is excluded from tracking.",
    "order.expired_click": "Order recorded; the click is older than the attribution window, so no commission.",
    "order.cross_brand_click": "Order recorded; the click belongs to another brand, so no commission.",
    "order.property_mismatch": "Order recorded; the click was made on another of your properties, "
    "so no commission.",
    "order.banned_user": "Order recorded; the attributed account is inactive, so no commission was created.",
    "order.unregistered_property": "Order recorded but not attributed: {host} is not a registered property. "
    "Fix: ask your account manager to register it, or send page_url from a registered property.",
    "order.unregistered_code": "Order recorded, but discount code {code!r} is not registered to a creator. "
    "Fix: register the code to the matching creator's account.",
    # cancel and update
    "change.not_an_object": 'The request body must be a JSON object. Fix: send {{"order_id": ...}}.',
    "change.missing": "Missing required field(s): {missing}. Fix: send {required}.",
    "change.brand_inactive": "The brand of this developer key is inactive. Fix: contact your account manager.",
    "change.domain_not_yours": "{host} is not a registered property of your brand. "
    "Fix: send one of your registered domains, or leave domain out.",
    "change.not_found": "No commission for {namespace} order {order_id} (usually the order was not attributed).",
    "change.already_cancelled": "The commission of order {order_id} was already cancelled.",
    "change.cancelled": "The commission of order {order_id} was cancelled.",
    "change.cancelled_after_payment": "The commission of order {order_id} was cancelled after it was paid; "
    "{clawback}.",
    "change.nothing_to_claw_back": "nothing was left to claw back",
    "change.adjustment": "{amount} {currency} is {what} on your statement of {statement}",
    "change.update_of_cancelled": "The commission of order {order_id} is cancelled; its amount was not changed.",
    "change.other_currency": "currency {sent} differs from the order's {currency}. "
    "Fix: send the new total in the order's currency.",
    "change.updated": "The commission of order {order_id} now follows the new total {total} {currency}.",
    "change.updated_after_payment": " It was already paid: {adjustment}.",
    "change.updated_after_payment_unchanged": " It was already paid; the amount is unchanged, so nothing is billed.",
    "change.cancel_failed": "Event received; cancelling failed on our side and the event is kept for "
    "processing. Nothing to change.",
    # a storefront platform's webhook deliveries (attribution/platforms/)
    "platform.pending": "The {platform} connection of {shop} waits for your account manager's approval: "
    "until then it receives nothing. Fix: ask your account manager to approve it; the platform sends the "
    "delivery again.",
    "platform.unknown_shop": "No connection for the {platform} shop {shop}. Fix: add it on your Setup page.",
    "platform.no_shop": "The {header} header is missing: no shop to find. Fix: send the webhook from the "
    "platform itself.",
    "platform.no_signature": "The {header} header is missing. Fix: send the webhook from the platform, which "
    "signs each delivery with the connection's secret.",
    "platform.bad_signature": "The {header} header does not match the body signed with the connection's "
    "secret. Fix: paste the signing secret your platform shows into the connection on your Setup page.",
    "platform.stale_signature": "The delivery was signed with the secret this connection replaced on "
    "{replaced}. Fix: paste the secret your platform shows now into the connection on your Setup page.",
    "platform.not_kept": "The delivery could not be verified or kept on our side; the platform sends it again. "
    "Nothing to change.",
    "platform.too_large": "The body is larger than {limit} KiB; nothing was read.",
    "platform.disabled": "The {platform} connection of {shop} is disabled: the delivery changed nothing.",
    "platform.brand_inactive": "The brand of the {platform} shop {shop} is inactive: the delivery changed "
    "nothing.",
    "platform.redelivery": "Delivery {delivery} was already received; this copy changed nothing.",
    "platform.already_received": "Order {order_id} was already received from the platform; nothing changed.",
    "platform.joined_commission": "Order {order_id} joined its order confirmation, whose commission stands.",
    "platform.ignored_topic": "Topic {topic} asks nothing of this service; the delivery was recorded and ignored.",
    "platform.ignored_status": "Order {order_id} is {status}: it is recorded once it is paid (processing or "
    "completed).",
    "platform.not_received": "No {namespace} order {order_id} was received; nothing to follow.",
    "platform.deleted_by_number": "A deleted order's body carries only its id, and this connection names orders "
    "by their number: nothing to cancel. Fix: cancel the order before deleting it, or name orders by id.",
    "platform.not_cancelled": "Order {order_id} came as {topic}, but its body is not cancelled, refunded or "
    "voided: nothing was cancelled. The topic header is not signed; the service acts on what the signed body says.",
    "platform.deleted_with_fields": "Order {order_id} came as order.deleted, but its body carries the order's "
    "fields, which a deletion never does: nothing was cancelled. The topic header is not signed; a deletion's body "
    "is the id alone.",
    "platform.deleted_not_ours": "Order {order_id} was deleted, but this site's webhook never delivered it: "
    "nothing was cancelled. A deletion carries only an id, so it counts only for an order the same connection sent.",
    "platform.unchanged": "Order {order_id}: its counted amount ({total} {currency}) did not change.",
    "platform.older_version": "Order {order_id}: this version ({changed_at}) is older than one already "
    "applied; ignored.",
    "platform.not_json": "The body is not JSON ({problem}).",
    "platform.not_an_order": "The body is not an order object.",
    "platform.ping": "Webhook {webhook} reached the service. Deliveries are verified with the connection's secret.",
    "platform.recorded": "{text} (Recorded from {platform}.)",
    # a creator link's checks (attribution.models.clicks.CreatorLink.clean: the admin's form shows them)
    "link.no_code": "Enter a code.",
    "link.creator_of_other_brand": "The creator belongs to another brand.",
    "link.code_of_other_brand": "The discount code belongs to another brand.",
    "link.code_of_other_creator": "The discount code is registered to another creator.",
    "link.invalid_url": "Enter a valid URL.",
    "link.not_http": "The destination must be an http:// or https:// address.",
    "link.credentials": "The destination must not carry a user name or password.",
    "link.no_host": "The destination has no usable host name.",
    "link.not_a_property": "{host} is not a registered property of {brand}. Fix: register it as a property of the "
    "brand first, or link to one of its registered hosts.",
    # a reconciliation's book that cannot be read (attribution.reconciliation.books, its upload)
    "book.too_large": "The file is larger than {mb} MB. Fix: upload it in parts, a month at a time.",
    "book.too_many_rows": "The file has more than {rows:,} rows. Fix: upload it in parts, a month at a time.",
    "book.not_csv": "Line {line} cannot be read as CSV: {problem}.",
    "book.too_wide": "Line {line} has {columns:,} columns; a book has at most {most}. "
    "Fix: export only the orders' columns.",
    "book.line_too_long": "Line {line} is longer than 1 MB. Fix: export the orders again; a book's line holds one "
    "order's columns.",
    "book.row_too_long": "The row starting on line {line} is longer than 1 MB. Fix: export the orders again; a "
    "book's row holds one order's columns.",
    "book.not_utf8": "Line {line} is not UTF-8 text. Fix: save the file as CSV UTF-8 (with or without a BOM).",
    "book.empty": "The file is empty. Fix: upload a CSV file whose first line names the columns.",
    "book.filename_too_long": "filename is longer than {most} characters. Fix: send a shorter name to show the run "
    "under.",
    "book.map_too_long": "{field} is longer than {most} characters. Fix: name the column as the file's header does.",
    "book.map_unknown": "{field} is not a field of a book. Fix: map {fields}.",
    "book.map_twice": "The column {column} is mapped to both {other} and {name}. Fix: map each column to one field.",
    "book.map_missing": "The header has no column {column} ({field}). Fix: map a column the file has: {columns}.",
    "book.woocommerce_missing": "The WooCommerce export has no {label} column. Fix: map the column that holds the "
    "{what}.",
    "book.missing": "The header has no {missing} column. Fix: map the file's columns that hold {them}, name the "
    "columns order_id, amount and currency (optional: status, code, click_id, ordered_at, test), or upload "
    "Shopify's or a WooCommerce orders export as it comes.",
    "book.amount_column": "amount_column must be subtotal or total.",
    "book.shopify_missing": "The Shopify export has no {label} column.",
    "book.order_id_column": "order_id_column must be id or name for a Shopify export.",
    "book.shopify_no_id": "The Shopify export has no Id column. Fix: export with every column, or use name.",
    "book.multipart_unreadable": "The multipart body cannot be read ({problem}). Fix: send the CSV in the field "
    "named file, or as the body with Content-Type text/csv.",
    "book.no_file": "Send the CSV in the multipart field named file, or as the body with Content-Type text/csv.",
    "book.choose_file": "Choose a CSV file to upload.",
    # a reconciliation's API (attribution.reconciliation.views) and page (health.pages.reconcile)
    "reconciliation.not_found": "Your brand has no reconciliation {pk}.",
    "reconciliation.page": "page must be a whole number from 1.",
    "reconciliation.status": "status must be one of {statuses}.",
    "reconciliation.apply_failed": "Applying failed on our side; what was applied before stays applied, nothing "
    "else changed. Apply again to carry on.",
    "reconciliation.brand_inactive": "This brand is inactive: ask your account manager.",
    # a book row's category, as the matching says it (attribution.reconciliation.matching)
    "matching.cancelled_never_received": "Cancelled in the book and never received here: nothing to recover.",
    "matching.never_received": "Never received: no order confirmation with this order id arrived.",
    "matching.refused": "An order confirmation arrived on {at} UTC and was refused: {outcome}. Its event page says "
    "what to fix.",
    "matching.no_property": "{said} No estimate: the brand has no registered property to judge it on.",
    "matching.platform_records": "{said} Your storefront platform's integration records your orders: applying "
    "leaves it to that integration.",
    "matching.unresolved": "{said} No estimate: the brand's property no longer resolves to it.",
    "matching.click_not_found": "{said} Its click id matches no click here, so applying would refuse it as an "
    "order confirmation is refused (click_not_found). Fix: correct the click id in the book, or leave it empty, "
    "and upload again.",
    "matching.would_earn": "{said} It would earn a commission of {commission} {currency}.",
    "matching.would_record": "{said} It would be recorded as {outcome}, without a commission.",
    "matching.cancelled_commission": "Cancelled in the book; its commission here is {state}.",
    "matching.not_moved": " A locked or paid commission is not moved by a reconciliation.",
    "matching.cancelled_none_live": "Cancelled in the book; no live commission here.",
    "matching.currency_differs": "The book says {book}; the order here is in {here}.",
    "matching.completed_but_cancelled": "Completed in the book; its commission here was cancelled.",
    "matching.amount_differs_none_live": "The amount differs ({here} here, {book} in the book); no live commission "
    "depends on it.",
    "matching.amount_differs": "The amount differs: {here} {currency} here, {book} {currency} in the book; the "
    "commission would change by {change} {currency}.",
    "matching.commission_stays": " Its commission is {state}: a reconciliation does not move it.",
    # a reconciliation's changes (attribution.reconciliation.applying)
    "reconciliation.cancelled": "The commission of order {order_id} was cancelled: the order book cancelled it.",
    "reconciliation.updated": "The commission of order {order_id} now follows the order book's total {total} {currency}.",
    # service-side faults, any endpoint
    "insert_failed": "Event received; saving it failed on our side and it is kept for processing. "
    "Nothing to change.",
    "handler_error": "Event received; a processing error occurred on our side and it is kept for processing. "
    "Nothing to change.",
    "server_error": "Processing error on the service side.",
    # what the framework refuses before a service runs
    "auth.missing": "Authorization header missing. Fix: send 'Authorization: Bearer <developer key>'.",
    "auth.malformed": "Authorization must be 'Bearer <developer key>'. "
    "Fix: send the word Bearer, one space, then the key.",
    "auth.unknown_key": "The developer key is unknown or revoked. Fix: send a current key from your account manager.",
    "auth.expired_key": "The developer key has expired. Fix: ask your account manager for a new key.",
    "auth.replayed_key": "The developer key is missing, unknown or revoked.",
    "rate_limited": "Too many requests. Retry after {seconds:.0f} seconds.",
    "body.too_large": "The request body is larger than 64 KiB.",
    "body.unreadable": "{problem} Fix: send a JSON object.",
    "body.replayed_unreadable": "The request body is not valid JSON.",
    "replay.stored_at_arrival": "Stored when it arrived; the answer was lost to a service-side fault.",
    "options": "POST a JSON body to this path; the schema is at /api/schema/ and the docs at /api/docs/.",
    "not_found": "No endpoint at {path}.",
    # the review API (attribution.review.decisions)
    "review.released": "The hold on the commission of order {order_id} was released: it is pending and locks "
    "when its return window closes.",
    "review.rejected": "The hold on the commission of order {order_id} was rejected: the commission was cancelled.",
    "review.not_held": "The commission of order {order_id} is {state}, not held: nothing was decided.",
    "review.failed": "Reviewing failed on our side and nothing was decided. Fix: send the same review again.",
    # the platforms' calls about a connection (attribution.platforms.connect.views)
    "connect.too_large": "The body is over {limit} KB.",
    "connect.no_app_signature": "X-Shopify-Hmac-Sha256 is missing or not the app's signature.",
    "connect.wrong_topic": "This address receives {topic} only.",
    "connect.not_the_shop": "The body must be the topic's JSON object, naming the shop of X-Shopify-Shop-Domain.",
    "connect.retried": "This request was already received and acted on.",
    "connect.repeated": "This request repeats one received on {at} UTC: nothing more was done.",
    "connect.too_many_handovers": "Too many key handovers from this address; try again later.",
    "connect.not_json": "The body must be JSON.",
    "connect.keys_waiting": "The keys of {site} were checked; they wait for the brand's confirmation.",
    "connect.method": "Send POST.",
    "plans.brand_inactive": "Your brand is inactive.",
    # The key handover's refusals (attribution.platforms.connect.woocommerce_keys).
    "connect.handover_unknown": (
        "This key handover was not started by this service, was used already or is too old: start it again "
        "from the setup page."
    ),
    "connect.keys_expected": "Expected a JSON object with {fields}.",
    "connect.keys_rights": "The keys were asked with {scope} rights, not {given}.",
    "connect.keys_unread": "The keys could not read the site's orders: {problem}",
    "connect.other_site": "The site answers as {home}, not {site}: nothing was connected.",
    "connect.webhooks_refused": "The site refused the service's webhooks: {problem}",
    "connect.nothing_waiting": "No keys of this handover wait to be confirmed: start it again.",
    "connect.site_not_https": "Your site must be served over https: WooCommerce hands keys over to an https site only.",
    "connect.site_refused": "This cannot be your shop's address ({problem}): enter your site's public https address.",
    # the read API
    "read.test_flag": "test must be true or false.",
    "read.brand_inactive": "The brand of this developer key is inactive.",
    "read.not_found": "Your brand has no {namespace} order {order_id}.",
}


def say(key: str, **values) -> str:
    """The sentence `key` of TEXTS with its `{name}` parts filled."""
    return TEXTS[key].format(**values)


def field_error(name: str, problem: str, *, fix: str | None = None) -> str:
    """ "<name> <problem>. Fix: <the field's fix>." (FIELD_FIXES, under `fix` when the wording differs)."""
    return f"{name} {problem}. Fix: {FIELD_FIXES[fix or name]}."
