"""The sync's incidents: opened and resolved from a shop's sync run (incidents), and what they say."""
