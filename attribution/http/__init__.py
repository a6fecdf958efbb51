"""What every way in over HTTP shares (the event API, attribution.api; the storefront platforms' receiver,
attribution.platforms.receiver; the reconciliation's API, attribution.reconciliation.views):

- middleware: the API stack's request id and log line, CORS of the browser endpoint, the host check;
- throttles: the rate counters (429 rate_limited), every refusal counted where every worker sees it;
- access: answers in JSON whatever the Accept header, and a developer key required;
- answers: the answers and headers the keyed endpoints share in the OpenAPI description.

No view here: attribution/api/ is the event API's way in only.
"""
