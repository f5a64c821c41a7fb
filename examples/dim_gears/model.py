# Dynamic gears, zip policy: compile once for a few fixed
# shapes of a dynamic dim instead of recompiling for every new shape.
#
# TorchAir's documented example with its indentation restored and `npu_bakcend` spelled
# `npu_backend`.  With "zip" the gear lists are taken position by position:
# gear 0 is x1 (2, 2) with x2 (2, 2), gear 1 is x1 (4, 2) with x2 (4, 2).
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2):
        return x1 + x2


input1 = torch.ones(2, 2).npu()
input2 = torch.ones(2, 2).npu()
config = torchair.CompilerConfig()
# zip方式,位置一一对应,支持(2, 2)(2, 2)和(4, 2)(4, 2)两种输入组合
# (zip: positions correspond one to one; supports (2, 2)(2, 2) and (4, 2)(4, 2))
config.inference_config.dynamic_gears_merge_policy = "zip"  # 缺省值 (the default)
# product方式,排列组合,支持(2, 2)(2, 2)、(2, 2)(4, 2)、(4, 2)(2, 2)和(4, 2)(4, 2)四种输入组合
# (product: every combination; see product.py)
# config.inference_config.dynamic_gears_merge_policy = "product"
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = Model().npu()
# 必须整图编译 (the whole graph must be compiled: fullgraph=True)
model = torch.compile(model, fullgraph=True, backend=npu_backend)
# 设置档位 (set the gears)
torchair.inference.set_dim_gears(input1, dim_gears={0: [2, 4]})
torchair.inference.set_dim_gears(input2, dim_gears={0: [2, 4]})
# 首次编译+执行,shape为(2, 2)、(2, 2)
# (first run compiles and executes with shapes (2, 2), (2, 2))
print(model(input1, input2))
# 再次执行,shape为(4, 2)、(4, 2)在档位中,不会触发重新编译
# (shapes (4, 2), (4, 2) are a gear: no recompilation)
input1 = torch.ones(4, 2).npu()
input2 = torch.ones(4, 2).npu()
print(model(input1, input2))

# Conformance (tests/e2e/compare.py): no float contraction (elementwise ops
# only), so the outputs are compared at the default tolerances.
# tolerance: default
