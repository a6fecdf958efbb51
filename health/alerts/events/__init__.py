"""The brand rules over its live events (orders stopped, handed-off orders waiting, a problem spike, a new
problem), the capture rate a reconciliation measures, and the service-side fault: rules, facts, descriptions."""
