"""Review holds (docs/review.md): rules that ask whether a tracked order's commission was earned, judged
inside the order's own decision (attribution.orders), so the order confirmation, the platforms' webhooks
and the reconciliation's recoveries all meet the same rules.

- rules/: one module per rule, each a pure judgement of a `Case` (what the decision already has) and the
  brand's `Review` (settings_copy), at most one indexed probe of its own;
- runner: which rules a brand has on, in order, and the trace steps of their holds;
- holds: the hold rows written with a held commission, and the holds the read API shows;
- decisions: release and reject, one at a time or in bulk (the API, the admin and the Review page);
- figures: the refund-rate and code-share figures (the daily flags the rules read; the creators page);
- the throwaway-address verdict is brands.emails', decided before the address is hashed.
"""
