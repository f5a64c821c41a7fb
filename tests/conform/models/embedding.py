# tolerance: exact
# nn.Embedding (float32) and F.embedding with float16 and bfloat16 tables,
# looked up by int64 and int32 ids of several shapes (repeated ids, the
# first and the last row). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

VOCAB = 50


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 16)
        self.table_h = nn.Parameter(torch.randn(VOCAB, 8).half())
        self.table_b = nn.Parameter(torch.randn(VOCAB, 8).bfloat16())

    def forward(self, ids, ids32, row):
        # ids [4, 6] int64, ids32 [10] int32, row [1] int64
        return (self.embed(ids), self.embed(ids32), F.embedding(ids, self.table_h),
                F.embedding(ids32, self.table_b), self.embed(row) * 2.0)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
ids = torch.cat((torch.tensor([0, VOCAB - 1, 3, 3]), torch.randint(0, VOCAB, (20,)))).view(4, 6).npu()
ids32 = torch.randint(0, VOCAB, (10,), dtype=torch.int32).npu()
row = torch.tensor([VOCAB - 1]).npu()
with torch.no_grad():
    outs = model(ids, ids32, row)
print([tuple(o.shape) for o in outs])
