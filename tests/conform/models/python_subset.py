# The Python model code is written in, lowered as
# PyTorch runs it: a dataclass config with defaults and a default_factory,
# an HF-style config (**kwargs stored with setattr, getattr defaults),
# functools.partial of an nn class and of a function, nn.ModuleDict
# (items, [], in), nn.ParameterList, nn.Identity, nn.Dropout in eval mode,
# isinstance/hasattr, % formatting, sorted(key=), min/max, math on known
# numbers. The batch dim takes 2 or 4 (zip gears); float32 and float16.
import math
from dataclasses import dataclass, field
from functools import partial

import torch
import torch.nn as nn
import torch_npu
import torchair

GEARS = [2, 4]


@dataclass
class Cfg:
    hidden: int = 16
    heads: int = 2
    names: list = field(default_factory=lambda: ["q", "k", "v"])
    eps: float = 1e-6


class HFConfig:
    def __init__(self, hidden_size=16, **kwargs):
        self.hidden_size = hidden_size
        for key, value in kwargs.items():
            setattr(self, key, value)


def scaled(x, scale=1.0, shift=0.0):
    return x * scale + shift


class Block(nn.Module):
    def __init__(self, cfg, hf, norm_layer):
        super().__init__()
        self.proj = nn.ModuleDict({n: nn.Linear(cfg.hidden, cfg.hidden) for n in cfg.names})
        self.proj["o"] = nn.Linear(cfg.hidden, cfg.hidden, bias=getattr(hf, "use_bias", False))
        self.norm = norm_layer(cfg.hidden)
        self.gains = nn.ParameterList([nn.Parameter(torch.rand(cfg.hidden) + 0.5) for _ in range(2)])
        self.drop = nn.Dropout(getattr(hf, "dropout", 0.1))
        self.skip = nn.Identity() if isinstance(cfg, Cfg) else nn.Linear(cfg.hidden, cfg.hidden)
        self.act = partial(scaled, scale=1.0 / math.sqrt(cfg.hidden // cfg.heads))

    def forward(self, x):
        h = self.norm(x)
        outs = []
        for name, lin in sorted(self.proj.items(), key=lambda kv: kv[0]):
            if name in self.proj and name != "o":
                outs.append(lin(h))
        s = sum(outs[1:], outs[0])
        for i, g in enumerate(self.gains):
            s = s * g if i % 2 == 0 else s + g
        s = self.act(s, shift=min(0.5, max(0.25, 0.1)))
        s = self.proj["o"](self.drop(s))
        if hasattr(self, "skip"):
            s = s + self.skip(x)
        return s


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Cfg(heads=4)
        hf = HFConfig(hidden_size=cfg.hidden, use_bias=True, num_layers=2)
        norm_layer = partial(nn.LayerNorm, eps=cfg.eps)
        make = lambda: nn.ModuleDict({"block_%d" % i: Block(cfg, hf, norm_layer) for i in range(hf.num_layers)})
        self.blocks = nn.ModuleDict({"%s" % str(torch.float32).split(".")[1]: make(),
                                     "%s" % str(torch.float16).split(".")[1]: make().half()})

    def forward(self, x, h):
        outs = []
        for v in (x, h):
            blocks = self.blocks[str(v.dtype)[len("torch."):]]
            for key in blocks:
                v = blocks[key](v)
            outs.append(v)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu().eval()
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, 16).npu()
h = torch.randn(4, 16).half().npu()
for t in (x, h):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = compiled(x, h)
print(len(outs))
