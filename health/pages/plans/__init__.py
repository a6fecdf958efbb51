"""The Commission plan page (docs/plans.md): the brand's rules in their order, its versions, a change with a
preview before saving, and an order simulated under the plan in effect."""
