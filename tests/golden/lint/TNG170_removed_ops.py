import torch
import torch_npu
import torchair
import torchair as tng
from torchair.ops import npu_wait_tensor

# torchair.ops.npu_stream_switch, NpuStreamSwitch and npu_wait_tensor moved to
# torchair.scope in March 2025; python/torchair/ops/__init__.py has none of
# them (fced8842, 770a4d54).

try:
    from torchair.scope import npu_stream_switch
except ImportError:   # older TorchAir: only a fallback
    from torchair.ops import npu_stream_switch

try:
    from torchair.ops import NpuStreamSwitch as OldSwitch   # raises ImportError: the handler runs
except ImportError:
    OldSwitch = None


class Model(torch.nn.Module):
    def forward(self, x, y):
        with torchair.ops.NpuStreamSwitch('11'):  # expect: TNG170
            a = x + y
        npu_wait_tensor(a, x)  # expect: TNG170
        with npu_stream_switch("1"):
            b = a * 2
        return b

    def probe(self, x):
        try:
            with tng.scope.npu_stream_switch("2"):
                x = x + 1
        except AttributeError:
            with tng.ops.NpuStreamSwitch("2"):
                x = x + 1
        if hasattr(tng.scope, "npu_wait_tensor"):
            tng.scope.npu_wait_tensor(x, x)
        else:
            tng.ops.npu_wait_tensor(x, x)
        with OldSwitch("3"):
            return x

    def unguarded_fallback(self, x):
        try:
            y = x + 1
        except Exception:   # the try does not use the new name
            with tng.ops.npu_stream_switch("4"):  # expect: TNG170
                y = x - 1
        return y
