"""timm.models (tests/realmodels stand-in)."""
