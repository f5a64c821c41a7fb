"""Stand-in for simple_parsing (tests/realmodels)."""
