"""An order's path from every way in, one module per concept: the typed order each way in builds once
(incoming) and its lines (lines), the entry services (confirmation), the decision (decision), the host and
brand an order event names, read by the throttles too (event_brand), what the decision reads (lookups), its
trace (trace), the write of the order's rows (store), one order by two paths (joins), the what-if of an order
judged again (whatif), and an order's cancel and update (changes)."""
