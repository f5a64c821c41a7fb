"""einops.layers.torch.Rearrange as a module calling the stand-in rearrange."""
import torch.nn as nn

from einops import rearrange


class Rearrange(nn.Module):
    def __init__(self, pattern, **axes_lengths):
        super().__init__()
        self.pattern = pattern
        self.axes_lengths = axes_lengths

    def forward(self, x):
        return rearrange(x, self.pattern, **self.axes_lengths)
