import torch
import torch_npu
import torchair
from torch import nn

# reshape of a tensor whose memory layout tngc cannot decide (the product of
# a transposed view: PyTorch's result keeps the transposed strides, so its
# reshape is a copy or a view by the sizes): writing into the result, or
# reading it after its source was written, is refused.
class Model(nn.Module):
    def forward(self, x):
        p = x.t() * 2.0
        r = p.reshape(-1)
        p.add_(1.0)
        s = r * 1.0  # expect: TNG211
        q = x.t() * 3.0
        w = q.flatten()
        w.zero_()  # expect: TNG211
        return s, q


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=backend, dynamic=False, fullgraph=True)
print(model(torch.randn(4, 6).npu()))
