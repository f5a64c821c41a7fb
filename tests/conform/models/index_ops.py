# Indexing and scatter: index_select (dims 0 and 1, int64 and
# int32 indices, 0-d index), gather of the top-k logits' values, advanced
# indexing x[idx] (2-d and negative indices), x[:, idx], x[i, j], lists
# of ints (t[:, [2, 0], [-1, 3]], upd[[0, 5], 2] = 7.0),
# x[i, :, j] (separated: the indexed dims first), with None and ints;
# scatter (src, value, reduce add / multiply), scatter_add, index_add
# (alpha), index_copy, F.one_hot; out-of-place and in place into an input
# (scatter_, index_add_, index_copy_, scatter_add_) and a buffer. float32,
# float16, bfloat16, int32 and int64 (exact). The batch dim takes 2 or 4
# (zip gears, every gear checked).
import torch
import torch.nn.functional as F
import torch_npu
import torchair

GEARS = [2, 4]
V, H = 12, 8


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("hits", torch.zeros(V, H))

    def forward(self, x, h, b, n, logits, ids, ids32, top, rows, cols, upd, acc):
        # x, h, b: [B, V, H] f32 / f16 / bf16; n: [B, V, H] int32;
        # logits [B, V] f32; ids [3] int64 in [-V, V) (advanced indexing);
        # ids32 [3] int32 in [0, V); top [B, 2] int64 in [0, V) (distinct
        # per row); rows [4] distinct in [0, V); cols [2, 3] in [0, H);
        # upd [V, H] f32 updated in place; acc [B, V] f32 updated in place
        outs = []
        for t in (x, h, b, n):
            outs.append(t.index_select(1, rows))
            outs.append(torch.index_select(t, 2, ids32))
            outs.append(t[:, ids])
            outs.append(t[:, [2, 0], [-1, 3]])
            outs.append(t[:, ids, cols[0]])
            outs.append(t[0, :, cols])
            outs.append(t[:, None, rows[:2], 1:3])
            outs.append(t[..., cols[1]])
            src = t[:, :4] * 2
            outs.append(t.index_copy(1, rows, src))
            outs.append(t.index_add(1, rows, src, alpha=2))
        outs.append(torch.gather(logits, 1, top))
        outs.append(logits.gather(-1, torch.cat((top[:, 1:], top[:, :1]), 1)))
        outs.append(logits.scatter(1, top, 5.0))
        outs.append(logits.scatter(1, top, logits[:, :2] * 3, reduce="add"))
        outs.append(logits.scatter(1, top, logits[:, 2:4], reduce="multiply"))
        outs.append(torch.scatter_add(logits, 1, top, -logits[:, :2]))
        outs.append(logits.half().scatter(1, top, 2.5))
        outs.append(logits.bfloat16().scatter_add(1, top, logits[:, :2].bfloat16()))
        outs.append(F.one_hot(top, V))
        outs.append(F.one_hot(rows, num_classes=16).float())
        tok = torch.zeros(V, H)                      # MoE combine: expert rows summed per token
        outs.append(tok.index_add(0, torch.cat((rows, rows)), upd[:8] * 0.5))
        outs.append(torch.index_put(upd, (rows,), x[0, :4], accumulate=True))
        outs.append(upd.index_put((rows, rows[:1] * 0 + 3), torch.tensor(9.0)))
        upd.index_add_(0, rows, x[0, :4], alpha=3)
        upd.index_copy_(0, rows[1:3], x[1, :2])
        upd[[0, 5], 2] = 7.0
        upd.scatter_(1, torch.zeros(V, 3, dtype=torch.long) + cols[:1], 1.5)
        acc.scatter_add_(1, top, logits[:, :2])
        self.hits.index_add_(0, rows, torch.ones(4, H))
        outs.append(upd * 1.0)
        outs.append(self.hits * 1.0)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(4, V, H).npu()
h = torch.randn(4, V, H).half().npu()
b = torch.randn(4, V, H).bfloat16().npu()
n = torch.randint(-50, 50, (4, V, H), dtype=torch.int32).npu()
logits = torch.randn(4, V).npu()
ids = torch.tensor([0, -1, 5]).npu()
ids32 = torch.tensor([7, 0, 7], dtype=torch.int32).npu()
top = torch.tensor([[3, 9], [0, 11], [4, 2], [10, 6]]).npu()
rows = torch.tensor([6, 1, 11, 4]).npu()
cols = torch.tensor([[0, 7, 3], [2, 2, 5]]).npu()
upd = torch.randn(V, H).npu()
acc = torch.randn(4, V).npu()
for t in (x, h, b, n, logits, top, acc):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, h, b, n, logits, ids, ids32, top, rows, cols, upd, acc)
print(len(outs))
