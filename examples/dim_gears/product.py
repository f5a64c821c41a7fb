# Dynamic gears, product policy: every combination of the
# gear values of the geared dims is a gear.
#
# Same structure as model.py with dynamic_gears_merge_policy = "product".
# model.py's x1 + x2 cannot add a (2, 2) to a (4, 2), so this model computes
# x1 @ x2.T instead, which is defined for every combination: gears are
# (2, 2)(2, 2), (2, 2)(4, 2), (4, 2)(2, 2) and (4, 2)(4, 2).
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        return torch.matmul(x1, x2.t())


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
# product方式,排列组合 (product: all combinations of the gear values)
config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
# 必须整图编译 (the whole graph must be compiled: fullgraph=True)
model = torch.compile(model, fullgraph=True, backend=npu_backend)
# 设置档位 (set the gears)
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(input2, dim_gears={0: [2, 4]})
# 首次编译+执行,shape为(2, 2)、(2, 2) (first run: compile and execute)
print(model(input1, input2))
# The other three combinations are gears too: no recompilation.
print(model(torch.ones(2, 2).npu(), torch.ones(4, 2).npu()))
print(model(torch.ones(4, 2).npu(), torch.ones(2, 2).npu()))
print(model(torch.ones(4, 2).npu(), torch.ones(4, 2).npu()))

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
