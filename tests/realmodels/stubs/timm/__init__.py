"""Stand-in for timm (tests/realmodels): the layers DiT imports."""
