# Named outputs: a forward returning a dict, a namedtuple
# (collections.namedtuple and typing.NamedTuple) or a dataclass (an
# HF-style ModelOutput, a None field left out) gives outputs named by key,
# written as <key>.npy; the harness records them under the same names.
# float32 and float16; the batch dim takes 2 or 4 (zip gears, every gear
# checked). (tests/conform/run.sh)
import collections
from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch
import torch_npu
import torchair

GEARS = [2, 4]

Pair = collections.namedtuple("Pair", ["scaled", "shifted"])


class Stats(NamedTuple):
    mean: torch.Tensor
    peak: torch.Tensor


@dataclass
class ModelOutput:
    logits: torch.Tensor
    hidden_states: Optional[torch.Tensor] = None
    attentions: Optional[torch.Tensor] = None
    past: Optional[torch.Tensor] = None


class DictModel(torch.nn.Module):
    def forward(self, x, h):
        return {"logits": torch.relu(x) * 2, "hidden.half": h * h, "x-plus": x + 1}


class TupleModel(torch.nn.Module):
    def forward(self, x, h):
        p = Pair(x * 3, shifted=h - 1)
        s = Stats(x.mean(dim=1), h.amax(dim=1))
        return Pair(p.scaled + s.mean.unsqueeze(1), p.shifted)


class StatsModel(torch.nn.Module):
    def forward(self, x, h):
        return Stats(peak=x.amax(dim=1), mean=h.mean(dim=1))


class OutputModel(torch.nn.Module):
    def forward(self, x, h):
        return ModelOutput(logits=torch.tanh(x), hidden_states=h.float() + x)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
x = (torch.rand(4, 16) * 4 - 2).npu()
h = (torch.rand(4, 16) * 4 - 2).half().npu()
for t in (x, h):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
dict_model = torch.compile(DictModel().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
tuple_model = torch.compile(TupleModel().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
stats_model = torch.compile(StatsModel().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
output_model = torch.compile(OutputModel().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
with torch.no_grad():
    d = dict_model(x, h)
    p = tuple_model(x, h)
    s = stats_model(x, h)
    o = output_model(x, h)
print(sorted(d), p._fields, s._fields, o.logits.shape)
