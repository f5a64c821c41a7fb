# dynamic=True with mark_static on one input and no gears: the weight's
# dims are fixed at the example shape, the activation's dims stay symbolic
# (batch and sequence), so shapes and memory depend on symbols.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        # x: [batch, seq, 64] (dynamic), w: [64, 64] (static)
        h = torch.matmul(x, w)
        return torch.softmax(h, dim=-1).mean(dim=1)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 10, 64).npu()
w = torch.randn(64, 64).npu()
torch._dynamo.mark_static(w)
print(model(x, w).shape)
