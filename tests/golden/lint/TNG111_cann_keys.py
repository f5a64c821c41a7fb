import torch
import torch_npu
import torchair
from torchair import scope


# Every key CANN's super-kernel option parser registers is accepted, with
# the values its parsers take: the dcci-* keys take any op type list.
class Model(torch.nn.Module):
    def forward(self, x, w):
        with scope.super_kernel("sk1", "func-align=512:preload-code=max:early-start=1:stream-fusion=1"):
            y = torch.mm(x, w)
        with scope.super_kernel("sk2", "debug-dcci-all=1:debug-sync-all=0:feed-sync-all=1:profiling=1"):
            y = torch.relu(y)
        with scope.super_kernel("sk3", "compile-options=-g:strict-scope-check=abort:split-mode=4"):
            y = y + 1
        with scope.super_kernel("sk4", "dcci-before-kernel-start=MatMulV2:dcci-after-kernel-end=AddN,Cast"):
            y = y * 2
        with scope.super_kernel("sk5", "dcci-disable-on-kernel=MatMulV2,,Add-N:debug-aic-num=0:debug-aiv-num=24"):
            y = torch.mm(y, w)
        with scope.super_kernel("sk6", "stream_fusion=1"):  # expect: TNG111
            y = y - 1
        return y


# In reduce-overhead mode the scope is ignored (TNG115), so its options are
# never parsed: no TNG111 here.
class Ignored(torch.nn.Module):
    def forward(self, x):
        with scope.super_kernel("sk", "no-such-option=1"):  # expect: TNG115
            return x + 1


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 64).npu()
w = torch.randn(64, 64).npu()
out = model(x, w)

ro = torchair.CompilerConfig()
ro.mode = "reduce-overhead"  # expect: TNG175
ignored = torch.compile(Ignored(), backend=torchair.get_npu_backend(compiler_config=ro))
out = ignored(x)
