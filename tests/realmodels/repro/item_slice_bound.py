# A slice bound read from a tensor's value inside forward (mistral-src
# one_file_ref's decode branch: cur_pos = positions[-1].item() + 1, then
# self.cache_k[:bsz, :cur_pos]). The shape of the slice depends on data:
# torch.compile(fullgraph=True) refuses Tensor.item() too (a graph break
# without torch._dynamo.config.capture_scalar_outputs). tngc: TNG203 at the
# item() call, saying so.
import torch
import torch.nn as nn
import torch_npu
import torchair

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(2, 16, 8)

    def forward(self, x, positions):
        self.cache[:, 6:7] = x
        cur = positions[-1].item() + 1
        return self.cache[:, :cur] * 2

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(M().eval(), backend=npu_backend, dynamic=False, fullgraph=True)
with torch.no_grad():
    y = compiled(torch.randn(2, 1, 8), torch.tensor([6]))
