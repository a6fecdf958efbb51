"""An order confirmation's path, one module per concept: the entry service (confirm), the decision
(decision), the hosts an order event names, used by the throttles too (hosts), what the decision reads
(signals), its trace (trace), the write of the order's rows (store), one order by two paths (joins) and
the what-if of an order judged again (whatif)."""
