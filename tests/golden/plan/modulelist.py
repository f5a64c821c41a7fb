# User submodules in an nn.ModuleList, with nn.Embedding, nn.LayerNorm and
# nn.Linear: the calls are inlined, the loop over the list is unrolled, and
# the weights are named by their state_dict keys (blocks.0.norm.weight,
# blocks.0.fc1.bias, ..., head.weight).
import torch
import torch_npu
import torchair
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, vocab=100, dim=32, depth=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        h = self.embed(ids)
        for block in self.blocks:
            h = block(h)
        return self.head(self.final_norm(h))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
net = Net().npu()
model = torch.compile(net, backend=npu_backend, dynamic=False, fullgraph=True)
ids = torch.randint(0, 100, (2, 8)).npu()
with torch.no_grad():
    print(model(ids).shape)
