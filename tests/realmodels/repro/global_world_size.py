# A module global rebound by 'global' in __init__ from torch.distributed
# (deepseek-ai/DeepSeek-V3: world_size = dist.get_world_size() if
# dist.is_initialized() else 1), then tested in forward. PyTorch without a
# process group: world_size == 1, the branch is not taken. tngc, before it compiled this: TNG205
# "the condition of this 'if' is not known at compile time".
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair
import torch.distributed as dist

world_size = 1


class M(nn.Module):
    def __init__(self):
        global world_size
        world_size = dist.get_world_size() if dist.is_initialized() else 1
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        y = self.proj(x)
        if world_size > 1:
            dist.all_reduce(y)
        return y

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
m = M().eval()
compiled = torch.compile(m, backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 4, 8))
