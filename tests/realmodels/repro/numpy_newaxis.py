# numpy in a buffer's construction: np.log of a Python number and
# np.newaxis as a tensor index (openai/whisper's sinusoids(), registered as
# AudioEncoder.positional_embedding). PyTorch: np.newaxis is None, the
# buffer is a float32 [4, 8] table. tngc, before it compiled this: the buffer is not known, TNG205
# "an operand of '+' is not known at compile time" where forward reads it;
# each of the two is enough (np.newaxis replaced by None still fails on
# np.log, np.log replaced by math.log still fails on np.newaxis).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair
import numpy as np


def sinusoids(length, channels, max_timescale=10000):
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("positional_embedding", sinusoids(4, 8))

    def forward(self, x):
        return x + self.positional_embedding

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
