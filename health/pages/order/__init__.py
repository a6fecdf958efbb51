"""One order's page (/health/orders/): its events, commission and what the service would decide now."""
