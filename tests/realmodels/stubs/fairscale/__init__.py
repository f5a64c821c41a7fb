"""Stand-in for the parts of fairscale that model files import: model
parallelism of world size 1 (tests/realmodels)."""
