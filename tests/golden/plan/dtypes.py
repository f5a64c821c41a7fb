# dtypes: float32, float16 and bfloat16 activations, int64 and int32
# inputs, and the casts .half(), .to(torch.bfloat16), .bfloat16(), .float(),
# .to(torch.int64). Integer arithmetic with Python ints stays integer.
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(64, 16)

    def forward(self, x, w, ids, offsets):
        # x: float32 [8, 16], w: float16 [16, 16], ids: int64 [8], offsets: int32 [8]
        h = torch.mm(x.half(), w)                 # float16
        b = h.to(torch.bfloat16) * 2.0            # bfloat16
        c = torch.relu(b).float()                 # float32
        shifted = ids + 1                         # int64
        pos = offsets.to(torch.int64) * 2         # int64
        e = self.embed(shifted + pos)             # float32 [8, 16]
        return c + e, shifted, x.bfloat16() + b


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(8, 16).npu()
w = torch.randn(16, 16, dtype=torch.float16).npu()
ids = torch.randint(0, 30, (8,)).npu()
offsets = torch.randint(0, 8, (8,), dtype=torch.int32).npu()
with torch.no_grad():
    out, shifted, mixed = model(x, w, ids, offsets)
print(out.dtype, shifted.dtype, mixed.dtype)
