"""einops.layers (tests/realmodels stand-in)."""
