# Gears on a dim that the model reduces over: x - x.mean(0) mixes the rows of
# the geared dim 0, so zero rows added by the launcher's --pad would change
# every result.  The planner must not prove dim 0 row-independent, and the
# launcher must refuse --pad for a batch that is in no gear.
# (tests/e2e/run.sh, check "pad refused"; runs under tests/ref/stubs.)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x - x.mean(0, keepdim=True)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), dynamic=True, fullgraph=True, backend=npu_backend)
x = torch.randn(2, 8).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
print(model(x))

# Conformance (tests/e2e/compare.py): no float contraction (elementwise ops
# only), so the outputs are compared at the default tolerances.
# tolerance: default
