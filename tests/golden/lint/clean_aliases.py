# tngc-args: --soc Ascend910_9382
from contextlib import nullcontext
import torch

try:
    import torchair as tng
    from torchair.scope import super_kernel as sk_scope
except ImportError:
    tng = None
SK_OPTIONS = "stream-fusion=1:feed-sync-all=1:strict-scope-check=bypass:debug-aic-num=12:debug-aiv-num=24"
DCCI = "dcci-before-kernel-start=1:dcci-after-kernel-end=0:dcci-disable-on-kernel=MatMulV2,AddN"


class Model(torch.nn.Module):
    def __init__(self, use_ms, tag, prio):
        super().__init__()
        self.use_ms, self.tag, self.prio = use_ms, tag, prio

    def forward(self, x, w):
        from torchair.scope import npu_stream_switch as switch
        with (tng.scope.npu_stream_switch("1") if self.use_ms else nullcontext()):
            a = torch.mm(x, w)
        fused = sk_scope("sk0", SK_OPTIONS)
        with fused:
            b = torch.mm(a, w)
            with switch("2"):
                c = b * 2
            with switch("3", self.prio):
                d = b + 1
        with sk_scope("sk1", DCCI), switch(self.tag, 0):
            e = torch.relu(c + d)
        with tng.scope.super_kernel(self.tag, f"debug-aic-num={self.prio}"):
            return e + a


if __name__ == "__main__":
    config = tng.CompilerConfig()
    npu_backend = tng.get_npu_backend(compiler_config=config)
    model = torch.compile(Model(True, "4", 0), backend=npu_backend, dynamic=False, fullgraph=True)
    out = model(torch.randn(16, 16).npu(), torch.randn(16, 16).npu())
