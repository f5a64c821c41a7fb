# The super_kernel example (examples/super_kernel) made small, for tests/e2e/run.sh:
# npu_quant_matmul (bfloat16 output) followed by npu_dequant_swiglu_quant,
# compiled once as plain ops and once inside the super kernel "sp1".  Unlike
# the example it returns only the results of the swiglu step (int8 y and the
# float32 scale), which .npy files can hold, so both bundles run, are compared
# with PyTorch and with each other (bitwise).  weight_scale is [m, n] as in the
# example.
import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig

M, K, N = 16, 64, 32


class ModelOrigin(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2, scale, pertoken_scale, weight_scale):
        q = torch_npu.npu_quant_matmul(x1, x2, scale, pertoken_scale=pertoken_scale,
                                       output_dtype=torch.bfloat16)
        return torch_npu.npu_dequant_swiglu_quant(q, weight_scale=weight_scale)


class ModelSuperKernel(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x1, x2, scale, pertoken_scale, weight_scale):
        with torchair.scope.super_kernel("sp1", ""):
            q = torch_npu.npu_quant_matmul(x1, x2, scale, pertoken_scale=pertoken_scale,
                                           output_dtype=torch.bfloat16)
            return torch_npu.npu_dequant_swiglu_quant(q, weight_scale=weight_scale)


config = CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
x1 = torch.randint(-10, 10, (M, K), dtype=torch.int8).npu()
x2 = torch.randint(-10, 10, (K, N), dtype=torch.int8).npu()
scale = torch.randn(N, dtype=torch.float32).npu()
pertoken_scale = torch.randn(M, dtype=torch.float32).npu()
weight_scale = torch.randn(M, N, dtype=torch.float32).npu()
model_no_sk = torch.compile(ModelOrigin(), backend=npu_backend, dynamic=False)
y_origin, s_origin = model_no_sk(x1, x2, scale, pertoken_scale, weight_scale)
model_sk = torch.compile(ModelSuperKernel(), backend=npu_backend, dynamic=False)
y_sk, s_sk = model_sk(x1, x2, scale, pertoken_scale, weight_scale)
same = torch.equal(y_origin, y_sk) and torch.equal(s_origin, s_sk)
print("Precision ====== Success!!!" if same else "Precision ====== Failed.")

# Conformance (tests/e2e/compare.py): the int8 matmul accumulates exactly in
# integers and the epilogues are elementwise, so the outputs are compared at
# the default tolerances (the int8 results exactly).
# tolerance: default
