# The other half of the import cycle of cyc_a.py.
import torch
from . import cyc_a


def g(x):
    return torch.relu(x) + cyc_a.SCALE_A
