from dataclasses import dataclass
from typing import Optional

import torch
import torch_npu
import torchair


@dataclass
class Out:
    logits: torch.Tensor
    past: Optional[tuple] = None


# A returned dict, named tuple or dataclass names the outputs by key: a key
# must be a string of 1 to 64 of [A-Za-z0-9_.-], not starting with '.' (it
# becomes <key>.npy), and a value a tensor (or None: no output), not a
# container.
class Model(torch.nn.Module):
    def forward(self, x):
        return {"../up": x * 2, "a b": x, ".hidden": x, "ok": x + 1}  # expect: TNG203

    def nested(self, x):
        return {"pair": (x, x * 2), "map": {"k": x}, "none": None}  # expect: TNG203

    def keys(self, x):
        return {1: x, "k" * 65: x, "a\x00b": x, "a\nb": x, "ключ": x, "a/b": x, "": x}  # expect: TNG203

    def dc(self, x):
        return Out(x, past=(x, x))  # expect: TNG203


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
m = Model().npu()
model = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
nested = torch.compile(m.nested, backend=npu_backend, dynamic=False, fullgraph=True)
keys = torch.compile(m.keys, backend=npu_backend, dynamic=False, fullgraph=True)
dc = torch.compile(m.dc, backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8).npu()
print(model(x), nested(x), keys(x), dc(x))
