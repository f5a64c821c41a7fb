# Indexing and scatter as static kernels: in reduce-overhead mode
# with _aclnn_static_shape_kernel every op is compiled with its shapes as
# constants (the inline bodies of runtime/tngrt_impl_index.h): index_select,
# gather, x[idx], x[i, j], cache[pos] = v into an input, scatter,
# scatter_add, index_add, index_copy, F.one_hot, on float32 and float16.
# (tests/conform/run.sh builds a copy of this script next to an empty
# static_kernel_build folder.)
import os

import torch
import torch.nn.functional as F
import torch_npu
import torchair

BUILD_DIR = "./static_kernel_build"


class Model(torch.nn.Module):
    def forward(self, x, h, idx, top, pos, cache):
        # x [6, 8] float32, h [6, 8] float16, idx [3] int64 in [-5, 6),
        # top [6, 2] int64 in [0, 8) distinct per row, pos [2] in [0, 5),
        # cache [5, 8] float32
        a = x.index_select(0, idx.abs()) + x[idx]
        g = x.gather(1, top)
        m = h[idx.abs(), top[:3, 0]]
        cache[pos] = x[:2] * 2.0
        s = torch.zeros(6, 8).scatter_add(1, top, g) + x.scatter(1, top, 0.5)
        ia = h.index_add(0, idx.abs(), h[:3], alpha=2) + h.index_copy(0, pos, h[4:])
        return a, g, m, s, ia, F.one_hot(top, 8), cache * 1.0


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model().npu(), backend=npu_backend)
    x = torch.randn(6, 8).npu()
    h = torch.randn(6, 8).half().npu()
    idx = torch.tensor([-5, 2, 5]).npu()
    top = torch.tensor([[0, 7], [1, 2], [3, 4], [5, 6], [7, 1], [2, 0]]).npu()
    pos = torch.tensor([4, 1]).npu()
    cache = torch.randn(5, 8).npu()
    with torch.no_grad():
        outs = model(x, h, idx, top, pos, cache)
    print(len(outs))
