# A module with a syntax error: reported at this file's line and column.
import torch


def f(x:
    return x
