"""safetensors.torch's loaders: not available (the suite builds random weights)."""


def load_file(filename, device="cpu"):
    raise NotImplementedError("safetensors is not available in tests/realmodels")
