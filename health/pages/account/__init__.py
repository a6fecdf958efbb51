"""The user's account (/health/account/): her time zone."""
