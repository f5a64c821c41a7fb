# nn.ParameterDict (state_dict names "<attr>.<key>", [], in, keys/items,
# update, item assignment), sets (literals, set(), add, in, len, sorted)
# and iter/next choosing what the graph computes, as PyTorch runs it. The
# batch dim takes 2 or 4 (zip gears); float32 and float16.
import torch
import torch.nn as nn
import torch_npu
import torchair

GEARS = [2, 4]
SKIP = {"shift", "unused", "shift"}


class Gated(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.params = nn.ParameterDict({"scale": nn.Parameter(torch.rand(hidden) + 0.5),
                                        "bias": nn.Parameter(torch.randn(hidden))})
        self.params["shift"] = nn.Parameter(torch.randn(hidden))
        self.params.update({"gate": nn.Parameter(torch.rand(hidden))})
        used = set()
        for name in ("scale", "gate", "scale"):
            used.add(name)
        self.order = sorted(used)
        self.lin = nn.Linear(hidden, hidden)

    def forward(self, x):
        h = self.lin(x)
        for name in self.order:            # gate, scale
            if name in self.params and name not in SKIP:
                h = h * self.params[name]
        names = iter(sorted(self.params.keys()))
        first = next(names)                 # bias
        h = h + self.params[first]
        for key, p in self.params.items():
            if key in {"shift"} and len(SKIP) == 2:
                h = h - p
        rest = next(iter([]), None)
        return h if rest is None else h * 0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Gated(16)
        self.b = Gated(16).half()

    def forward(self, x, h):
        return self.a(x), self.b(h)


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
