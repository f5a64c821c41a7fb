# Strings built toward the interpreter's 1 MiB string limit by
# every operation that makes one: the limit is checked before the text is
# allocated (a TNG212 naming the operation, never a larger allocation).
import torch
import torchair
from torchair.scope import npu_stream_switch, super_kernel

parts = ["layer"] * 1000
name = "_".join(parts)
name = name.replace("layer", "blk" * 3, 500)
name = "{}:{}".format(name, len(name)) + f"{name[:10]!r:>20}" + "%s-%d" % (name[:5], 7)
tags = ",".join(str(i) for i in range(2000)).split(",")
fields = name.split("_") + name.rsplit("_", 3)
s = "ab"
for i in range(16):
    s = s + s
    s = "".join([s[:100], s[100:]])
    s = "{}".format(s)
    s = f"{s}"
    s = "%s" % s
wide = "x" * (1 << 16)
wide = wide.replace("x", "xy")
wide = ",".join([wide, wide])
wide = f"{wide}{wide}"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        with super_kernel("sk_" + "_".join(tags[:50]), "stream-fusion=1"):
            y = self.proj(x)
        with npu_stream_switch("{}".format(len(tags)), 0):
            z = y * 2
        return z + x


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False)
out = model(torch.randn(4, 8))
