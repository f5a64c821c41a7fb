# Memory plan: a long elementwise chain between two matmuls. Each
# intermediate dies right after its only use, so the arena reuses a few
# buffers instead of holding one per value.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w1, b1, w2):
        h = torch.mm(x, w1)          # [64, 256]
        h = h + b1
        h = torch.relu(h)
        h = h * 0.5
        h = torch.sigmoid(h)
        h = h - 0.25
        h = torch.tanh(h)
        h = torch.exp(h)
        h = torch.sqrt(h)
        h = torch.neg(h)
        h = torch.abs(h)
        h = h / 3.0
        h = h.pow(2)
        h = torch.rsqrt(h + 1.0)
        return torch.mm(h, w2)       # [64, 32]


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(64, 128).npu()
w1 = torch.randn(128, 256).npu()
b1 = torch.randn(256).npu()
w2 = torch.randn(256, 32).npu()
print(model(x, w1, b1, w2).shape)
