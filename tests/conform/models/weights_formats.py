# tolerance: matmul
# A small model whose state_dict has every kind of tensor a torch.save
# file holds: float32, float16 and bfloat16 parameters, an int64 buffer,
# and an output head tied to the embedding (one storage under two keys).
# tests/conform/weights_formats.sh saves it with torch.save (a weight also
# as a transposed view) and as sharded safetensors, and runs the launcher
# on each.
import torch
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.fc = nn.Linear(8, 8)
        self.scale_h = nn.Parameter(torch.randn(8).half())
        self.scale_b = nn.Parameter(torch.randn(8).bfloat16())
        self.head = nn.Linear(8, 16, bias=False)
        self.head.weight = self.emb.weight
        self.register_buffer("pos", torch.arange(8))

    def forward(self, ids):
        # ids [8] int64
        h = self.emb(ids) + self.emb(self.pos)
        h = torch.relu(self.fc(h))
        h = h * self.scale_h.float() + self.scale_b.float()
        return self.head(h)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
ids = torch.tensor([0, 15, 3, 3, 7, 1, 2, 9]).npu()
with torch.no_grad():
    print(model(ids).shape)
