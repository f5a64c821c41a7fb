# The comparison family as static kernels: reduce-overhead with
# _aclnn_static_shape_kernel compiles every op with constant shapes from
# the inline bodies of runtime/tngrt_impl_compare.h (another code path than
# the generic kernels): comparisons with a tensor and a scalar, logical and
# bitwise ops, isnan, where, masked_fill (and masked_fill_ on an input),
# any/all, in float32, float16 and bfloat16. (tests/conform/run.sh builds
# a copy of this script next to an empty static_kernel_build folder.)
import os

import torch
import torch_npu
import torchair
from torch import nn

BUILD_DIR = "./static_kernel_build"


class Model(nn.Module):
    def forward(self, x, h, b, i):
        # x [6, 16] float32, h [6, 16] float16, b [6, 16] bfloat16,
        # i [6, 16] int32 (updated in place)
        m = x > h
        n = (b <= 0.5) | ~m
        w = torch.where(m, h, b)
        f = x.masked_fill(n, float("-inf"))
        i.masked_fill_(i < 0, 0)
        return (m, n, w, f, torch.isnan(f - f), (i & 3) ^ 1, torch.logical_xor(m, n),
                m.any(dim=0), n.all(), h.masked_fill(m, 2.0), b == b.float())


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model().npu(), backend=npu_backend)
    x = torch.randn(6, 16).npu()
    h = torch.randn(6, 16, dtype=torch.float16).npu()
    b = torch.randn(6, 16).bfloat16().npu()
    i = torch.randint(-5, 5, (6, 16), dtype=torch.int32).npu()
    with torch.no_grad():
        outs = model(x, h, b, i)
    print([tuple(o.shape) for o in outs])
