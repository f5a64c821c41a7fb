# Named outputs: a dict, a collections.namedtuple, a typing.NamedTuple and
# a dataclass returned by the compiled method name the outputs by key/field
# (a None field leaves no output); a plain tuple gives out0, out1.
import collections
from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch
import torch_npu
import torchair

Pair = collections.namedtuple("Pair", "first, second")


class Stats(NamedTuple):
    mean: torch.Tensor
    peak: torch.Tensor


@dataclass
class Output:
    logits: torch.Tensor
    hidden: Optional[torch.Tensor] = None
    extra: Optional[torch.Tensor] = None


class Model(torch.nn.Module):
    def forward(self, x):
        return {"logits": x * 2, "layer.0-norm": x + 1}

    def pair(self, x):
        return Pair(x * 3, second=x - 1)

    def stats(self, x):
        return Stats(peak=x.amax(dim=1), mean=x.mean(dim=1))

    def out(self, x):
        return Output(torch.tanh(x), hidden=x.relu())

    def plain(self, x):
        return x * 2, (x + 1, {"k": x - 1})


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
m = Model().npu()
fwd = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
pair = torch.compile(m.pair, backend=npu_backend, dynamic=False, fullgraph=True)
stats = torch.compile(m.stats, backend=npu_backend, dynamic=False, fullgraph=True)
out = torch.compile(m.out, backend=npu_backend, dynamic=False, fullgraph=True)
plain = torch.compile(m.plain, backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
print(fwd(x), pair(x), stats(x), out(x), plain(x))
