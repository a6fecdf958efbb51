"""The review rules, one module each: `RULE` (attribution.models.Rule) and `judge(case, review)`, which
answers the hold's evidence (a sentence of facts) or None. A rule reads the `Case` (what the order's
decision already has) and the brand's `Review` (attribution.review.settings_copy); at most one indexed probe."""
