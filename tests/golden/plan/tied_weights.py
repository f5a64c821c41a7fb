# Tied weights: the lm_head's weight is the embedding's Parameter, so the
# state_dict holds it under both keys. It is one weight (its first key,
# "embed.weight"); "lm_head.weight" and the ModuleList item sharing it are
# listed as tied keys of it, which a weights file may hold instead or too.
# A non-persistent buffer shared by two modules is no weight: no tied key.
import torch, torch_npu, torchair
from torch import nn


class Rope(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.register_buffer("table", table, persistent=False)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(16, 8)
        self.lm_head = nn.Linear(8, 16, bias=False)
        self.lm_head.weight = self.embed.weight
        self.heads = nn.ParameterList([self.embed.weight])
        table = torch.arange(8).float()
        self.rope_a = Rope(table)
        self.rope_b = Rope(table)

    def forward(self, ids):
        h = self.embed(ids) * self.rope_a.table + self.rope_b.table
        return self.lm_head(h) + self.heads[0].sum()


m = torch.compile(M(), fullgraph=True)
m(torch.tensor([[1, 2, 3]]))
