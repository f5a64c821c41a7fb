# An import cycle (tests/imports.sh): cyc_a imports cyc_b, which imports
# cyc_a back and sees it partially initialised (as Python's import system
# does); the names are read when the functions run, after both finished.
import torch
from . import cyc_b

SCALE_A = 3.0


def f(x):
    return cyc_b.g(x) * SCALE_A
