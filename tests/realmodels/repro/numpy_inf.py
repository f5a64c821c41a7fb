# numpy's infinity filling a causal-mask buffer (openai/whisper's
# TextDecoder: torch.empty(n_ctx, n_ctx).fill_(-np.inf).triu_(1), registered
# as the non-persistent buffer "mask"). PyTorch: -inf above the diagonal, 0
# elsewhere. tngc, before it compiled this: the buffer is not known, TNG205 "an operand of '+' is not
# known at compile time" where forward reads it (with float("-inf") it
# plans); in whisper/model.py the unknown mask makes the is_causal argument
# of scaled_dot_product_attention unknown.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair


class M(nn.Module):
    def __init__(self):
        super().__init__()
        mask = torch.empty(4, 4).fill_(-np.inf).triu_(1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):
        return x + self.mask


npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(M().eval(), backend=npu_backend, dynamic=False, fullgraph=True)
y = compiled(torch.randn(2, 4, 4))
