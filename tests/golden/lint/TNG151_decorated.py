import functools
import torch
import torch_npu
import torchair


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached_forward = torchair.inference.cache_compile(self._forward)  # expect: TNG151
        self.cached_score = torch.npu.npugraph_ex.inference.cache_compile(self._score)  # expect: TNG151

    def forward(self, x, y):
        return self.cached_forward(x, y) + self.cached_score(x)

    @torch.inference_mode()
    def _forward(self, x, y):
        return x + y

    @timed
    def _score(self, x):
        return x * 2
