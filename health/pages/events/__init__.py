"""The events list, one event and their CSV export (/health/events/)."""
