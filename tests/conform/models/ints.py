# Integer and bool arithmetic: int8, int32 and int64 with Python ints and
# with each other (type promotion: int8 + int32 -> int32, int32 * int64 ->
# int64), neg/abs, true division of ints (float32), bool masks (bool * float
# -> float, bool + bool) and integer reductions (sum of int32 -> int64,
# amax), promotion with Python numbers (int + 2.5 -> float32, int8 + 300
# wraps in int8, bool + 3 -> int64, float16 * int32 -> float16). Integers
# must match exactly. (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, i8, i32, i64, mask, x):
        # i8 [4, 8] int8 in [-10, 10); i32 [4, 8] int32; i64 [8] int64;
        # mask [4, 8] bool; x [4, 8] float32
        a = i8 + i32                # int32
        b = i32 * i64               # int64 [4, 8]
        c = i64 - 3                 # int64
        d = 2 * i32 + 1             # int32
        e = -i8                     # int8
        f = torch.abs(i32 - 50)     # int32
        g = i32 / 4                 # float32 (true division)
        h = mask * x                # float32
        k = mask.float() + x        # float32
        m = i32.sum(dim=1)          # int64
        n = i64.sum()               # int64 scalar
        p = i8.amax(dim=0)          # int8
        q = i32.amax(dim=-1, keepdim=True)
        r = (i8 * i8).sum(dim=0)    # int8 * int8 wraps in int8; the sum is int64
        # type promotion with Python numbers and across kinds
        s1 = i32 + 2.5              # float32
        s2 = i64 * 1.5              # float32
        s3 = mask + 3               # int64
        s4 = i8 + 300               # int8 (wraps)
        s5 = torch.add(i32, i32, alpha=2)     # int32
        s6 = i32 ** 2               # int32
        s7 = i32 / i64              # float32
        s8 = x.half() * i32         # float16
        s9 = mask * mask + mask     # bool
        return (a, b, c, d, e, f, g, h, k, m, n, p, q, r, s1, s2, s3, s4, s5, s6, s7, s8, s9,
                mask.sum(dim=1), i8.float().mean(dim=0))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
i8 = torch.randint(-10, 10, (4, 8), dtype=torch.int8).npu()
i32 = torch.randint(-1000, 1000, (4, 8), dtype=torch.int32).npu()
i64 = torch.randint(-100000, 100000, (8,)).npu()
mask = torch.randint(0, 2, (4, 8)).bool().npu()
x = torch.randn(4, 8).npu()
with torch.no_grad():
    outs = model(i8, i32, i64, mask, x)
print([o.dtype for o in outs])
