# The reductions family's kernels as static kernels: in
# reduce-overhead mode with _aclnn_static_shape_kernel every op is compiled
# with its shapes as compile-time constants (the inline bodies of
# runtime/tngrt_impl_reduce.h specialised by the compiler): topk, sort,
# argsort, max/min along a dim, argmax, amin, prod, cumsum, on float32 and
# bfloat16 with distinct values (no ties) and int32. (tests/conform/run.sh
# builds a copy of this script next to an empty static_kernel_build folder.)
import os

import torch
import torch_npu
import torchair
from torch import nn

BUILD_DIR = "./static_kernel_build"


class Model(nn.Module):
    def forward(self, x, b, i, p):
        # x [6, 24] float32 and b [6, 24] bfloat16 (distinct values k / 8),
        # i [6, 24] int32, p [6, 8] float32 near 1
        v, k = torch.topk(x, 4)
        s = b.sort(dim=0, descending=True)
        m = x.max(dim=-1, keepdim=True)
        n = torch.min(i, 0)
        return (v, k, s.values, s.indices, torch.argsort(i, dim=-1), m.values, m.indices, n.values,
                n.indices, torch.argmax(b, dim=1), x.amin(dim=0), torch.prod(p, dim=-1),
                torch.cumsum(x, dim=1), b.cumsum(0), i.cumsum(-1))


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model().npu(), backend=npu_backend)
    x = ((torch.randn(144).argsort().reshape(6, 24) - 72).float() / 8).npu()
    b = ((torch.randn(144).argsort().reshape(6, 24) - 72).float() / 8).bfloat16().npu()
    i = (torch.randn(144).argsort().reshape(6, 24) - 50).int().npu()
    p = (torch.rand(6, 8) * 0.5 + 0.75).npu()
    with torch.no_grad():
        outs = model(x, b, i, p)
    print([tuple(o.shape) for o in outs])
