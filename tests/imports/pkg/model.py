# The test model: its class lives here, its layer in a sibling module.
import torch
from .layers import Attention
from .utils import HIDDEN


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attention(HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, 16)

    def forward(self, x):
        return self.out(self.attn(x))
