import torch
import torchair
from torchair.scope import npu_stream_switch, super_kernel, limit_core_num

SK = "*/ tngc_fuzz_pwned /*"
TAG = "\" tngc_fuzz_pwned \""


class Model(torch.nn.Module):
    """Docstring */ tngc_fuzz_pwned /* ??/
    \\ tngc_fuzz_pwned"""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.register_buffer("buf\n tngc_fuzz_pwned", torch.ones(8))

    def forward(self, x):
        with super_kernel(SK, "stream-fusion=1"):
            y = self.proj(x)
        with npu_stream_switch(TAG, 0):
            z = y * 2
        with limit_core_num(4, 8):
            w = z + x
        return w


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False)
model(torch.randn(2, 8))
