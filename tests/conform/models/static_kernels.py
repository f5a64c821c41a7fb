# tolerance: matmul
# Static kernels: in reduce-overhead mode with
# _aclnn_static_shape_kernel, every operator is compiled as a kernel with its
# shapes as compile-time constants (the inline bodies of
# runtime/tngrt_kernel_impl.h specialised by the compiler), a different code
# path from the generic kernels the other models run. One op of each family
# on float32, float16 and bfloat16, two instances of one signature (one
# kernel serves both). (tests/conform/run.sh builds a copy of this script
# next to an empty static_kernel_build folder.)
import os

import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

BUILD_DIR = "./static_kernel_build"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24, 16)
        self.ln = nn.LayerNorm(16)
        self.gamma = nn.Parameter(torch.rand(16) + 0.5)
        self.embed = nn.Embedding(30, 16)

    def forward(self, x, ids, h, b, cache):
        # x [6, 24] float32, ids [6] int64, h [6, 16] float16,
        # b [6, 16] bfloat16, cache [6, 8, 16] float32
        y = self.fc(x) + self.embed(ids)                     # linear, embedding, add
        z = F.gelu(self.ln(y)) * 0.5 - torch.tanh(y)
        r = torch_npu.npu_rms_norm(z, self.gamma)[0]
        s = torch.softmax(torch.matmul(r, r.t()) * 0.25, dim=-1)
        t = torch.cat((s, r[:, ::2].permute(1, 0).contiguous().t()), dim=1)   # [6, 14]
        u = t.sum(dim=-1, keepdim=True) + t.amax(dim=0).mean()
        cache[:, 3:4] = r.unsqueeze(1)
        hh = torch.exp(h * 0.5) + F.silu(h)                 # float16
        bb = torch.sigmoid(b) * b + b.float().half().bfloat16()     # bfloat16
        sw = torch_npu.npu_swiglu(torch.cat((y, z), dim=-1))
        v = torch.exp(y * 0.5) + torch.exp(z * 0.5)          # one signature, two instances
        return t, u, cache.sum(dim=1), hh, bb, sw, v, torch.log_softmax(hh.float(), dim=0)


if __name__ == "__main__":
    os.makedirs(BUILD_DIR, exist_ok=True)
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
    config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = BUILD_DIR
    npu_backend = torchair.get_npu_backend(compiler_config=config)
    model = torch.compile(Model().npu(), backend=npu_backend)
    x = torch.randn(6, 24).npu()
    ids = torch.randint(0, 30, (6,)).npu()
    h = torch.randn(6, 16, dtype=torch.float16).npu()
    b = torch.randn(6, 16).bfloat16().npu()
    cache = torch.randn(6, 8, 16).npu()
    with torch.no_grad():
        outs = model(x, ids, h, b, cache)
    print([tuple(o.shape) for o in outs])
