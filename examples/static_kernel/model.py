# Static kernel compilation: in reduce-overhead mode, compile one
# operator binary per operator shape ahead of time.
#
# TorchAir's documented configuration, made self-contained: a small matmul + add model
# with concrete inputs, and a relative build directory instead of
# "/path/test".  The build directory must exist and be writable.
import os

import torch
import torch_npu
import torchair

BUILD_DIR = "./static_kernel_build"

M = 1
K = 2048
N = 256


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, weight, bias):
        return torch.matmul(x, weight) + bias


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)

    config = torchair.CompilerConfig()
    # 配置图执行模式 (graph execution mode)
    config.mode = "reduce-overhead"  # tngc: ignore[TNG175]: static kernels need this mode
    # 开启静态Kernel编译 (enable static kernel compilation)
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)

    model = Model().npu()
    opt_model = torch.compile(model, backend=npu_backend)

    x = torch.randn(M, K, dtype=torch.float32).npu()
    weight = torch.randn(K, N, dtype=torch.float32).npu()
    bias = torch.randn(N, dtype=torch.float32).npu()
    # The first run records the operators (MatMulV2 1x2048 @ 2048x256, Add)
    # and builds one kernel per shape; later runs with the same shapes use it.
    print(opt_model(x, weight, bias))
    print(opt_model(x, weight, bias))

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls, so
# they are compared at the matmul tolerances.
# tolerance: matmul
