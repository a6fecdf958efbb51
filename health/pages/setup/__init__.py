"""The setup page (/health/setup/): the integration kit, a test order, the storefront-platform connections."""
