"""The Creators pages (/health/creators/): each creator's figures of a period, its CSV, one creator's page."""
