# A config object whose fields are set through self.__dict__.update
# (karpathy/minGPT's CfgNode: __init__(**kwargs) and merge_from_dict), then
# read as attributes to size the model. PyTorch: cfg.n_layer == 2, two Linear
# layers. tngc, before it compiled this: the fields are not seen, and the loop over the layers built
# from them is TNG205 "'for' over a value not known at compile time".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def merge_from_dict(self, d):
        self.__dict__.update(d)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = CfgNode(n_layer=None, width=8)
        cfg.merge_from_dict({"n_layer": 2})
        self.h = nn.ModuleList([nn.Linear(cfg.width, cfg.width) for _ in range(cfg.n_layer)])

    def forward(self, x):
        for layer in self.h:
            x = layer(x)
        return x

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
