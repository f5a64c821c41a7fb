# A flat module beside the script (tests/imports.sh, star.py): its __all__
# decides what `from helpers import *` binds, and its main guard does not
# run when it is imported.
import torch

__all__ = ["act", "NAME"]


def act(x):
    return torch.relu(x) * 3


def _hidden(x):
    return x


if __name__ == "__main__":
    raise SystemExit("helpers.py is imported, never run")

NAME = __name__
