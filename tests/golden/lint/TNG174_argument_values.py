import torch
import torch_npu
import torchair
from torchair.scope import npu_wait_tensor, limit_core_num

# Values the entry points refuse when they run: custom_decompositions goes
# to dict.update (npu_fx_compiler.py:919); cache_compile reads
# backend.keywords (_cache_compiler.py:607,610); wait_tensor's schema takes
# two tensors (scope/_wait_tensor.py:8-10); limit_core_num's str(value) is
# read back with int() in reduce-overhead (graph_pass.py:746).

b1 = torchair.get_npu_backend(custom_decompositions=[torch.ops.aten.gelu, 3])  # expect: TNG174
b2 = torchair.get_npu_backend(custom_decompositions=1)  # expect: TNG174
b3 = torchair.get_npu_backend(custom_decompositions=[(torch.ops.aten.gelu, None)])
b4 = torchair.get_npu_backend(custom_decompositions=None)

ro = torchair.CompilerConfig()
ro.mode = "reduce-overhead"  # expect: TNG175
ro_backend = torchair.get_npu_backend(compiler_config=ro)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = torchair.inference.cache_compile(self.core, backend="npu")  # expect: TNG174

    def core(self, x, y):
        z = npu_wait_tensor(x, [y])  # expect: TNG174
        with limit_core_num(1.5, 8):  # expect: TNG174
            z = z + 1
        with limit_core_num("4", "8"):
            z = z + 1
        return z

    def forward(self, x, y):
        return self.cached(x, y)


class Eager(torch.nn.Module):
    def forward(self, x):
        with limit_core_num(4, 2.0):  # expect: TNG174
            x = x + 1
        return x


model = torch.compile(Eager(), backend=ro_backend)
