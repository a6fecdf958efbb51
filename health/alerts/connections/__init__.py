"""The connection alert (a shop disconnected): what it reads, its rule and what it says."""
