"""Stand-in for safetensors (tests/realmodels): the model files import it to
load checkpoints, which the suite never does (weights are random)."""
