# Python that feeds the graph: a dataclass config, functools.partial of an
# nn class (its eps reaches the layer_norm op), nn.ModuleDict (state_dict
# names "<attr>.<key>.<param>", items in insertion order), nn.ParameterList
# ("<attr>.<index>"), nn.Identity and nn.Dropout (eval) as no ops, and "%"
# formatted scope names.
from dataclasses import dataclass, field
from functools import partial

import torch
import torch.nn as nn
import torchair


@dataclass
class Cfg:
    hidden: int = 8
    names: list = field(default_factory=lambda: ["up", "gate"])
    eps: float = 1e-5


class Block(nn.Module):
    def __init__(self, cfg, norm_layer):
        super().__init__()
        self.norm = norm_layer(cfg.hidden)
        self.proj = nn.ModuleDict({n: nn.Linear(cfg.hidden, cfg.hidden, bias=False) for n in cfg.names})
        self.gains = nn.ParameterList([nn.Parameter(torch.ones(cfg.hidden)) for _ in range(2)])
        self.skip = nn.Identity()
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = self.norm(x)
        for i, (name, lin) in enumerate(self.proj.items()):
            with torchair.scope.super_kernel("%s_%02d" % (name, i), ""):
                h = lin(h) * self.gains[i]
        return self.drop(h) + self.skip(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Cfg()
        self.blocks = nn.ModuleDict({"b%d" % i: Block(cfg, partial(nn.LayerNorm, eps=cfg.eps * 10)) for i in range(2)})

    def forward(self, x):
        for key in self.blocks:
            x = self.blocks[key](x)
        return x


model = Model().eval()
config = torchair.CompilerConfig()
compiled = torch.compile(model, backend=torchair.get_npu_backend(compiler_config=config), fullgraph=True)
compiled(torch.randn(2, 8))
