import torch
import torchair
from torchair.scope import npu_stream_switch as sw, npu_wait_tensor
from torchair.scope import limit_core_num, super_kernel

TAG = "1"
NAME = f"sk{TAG!r:>4}" "tail" r"\n" b"bytes"
OPT = """multi
line */ option"""


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = torch.nn.Linear(d, d)

    def forward(self, x, y):
        with sw(TAG, 3), limit_core_num(op_aicore_num=4, op_vectorcore_num=8):
            a = self.lin(x)
            npu_wait_tensor(a, y)
        with super_kernel(NAME, OPT) if x.shape[0] > 1 else super_kernel("b", ""):
            b = a.relu() + y
        with sw("2"):
            c = torch.cat([b, a], dim=-1)
        return c.sum(dim=(0,)), lambda q=x: q


config = torchair.CompilerConfig()
config.ge_config.enable_single_stream = False
config.experimental_config.aclgraph._aclnn_static_shape_kernel = True
config.experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir = "sk_build"
config.debug.graph_dump.type = "pbtxt"
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Block(8), backend=backend, fullgraph=True, dynamic=True)
x = torch.randn(4, 8, dtype=torch.float16)
y = torch.ones(4, 8).half()
torch._dynamo.mark_static(x, 1)
torchair.inference.set_dim_gears(x, dim_gears={0: [1, 2, 4]})
if __name__ == "__main__":
    out = model(x, y)
