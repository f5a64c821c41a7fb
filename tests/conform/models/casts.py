# tolerance: exact
# Casts between every pair of dtypes tngc handles: float32, float16,
# bfloat16 (.float(), .half(), .bfloat16(), .to(dtype)), int8, int32, int64
# (.to, .int(), .long(), .char(): floats truncate toward zero) and bool
# (.bool(): nonzero; bool to numbers: 0/1), type_as. The float inputs stay
# within every integer type's range. (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, i32, i64, m):
        # x [64] float32 in [-100, 100] with exact zeros and halves;
        # i32 [64] int32, i64 [64] int64 in [-100, 100]; m [64] bool
        h = x.half()
        b = x.bfloat16()
        return (
            h, b, x.to(torch.float16).float(), b.float(), h.to(torch.bfloat16),
            b.to(torch.float16), h.float() - x,
            x.int(), x.long(), x.char(), x.to(torch.int8), h.int(), b.long(),
            x.bool(), h.bool(), b.bool(),
            i32.float(), i32.half(), i32.bfloat16(), i64.float(), i64.to(torch.int32),
            i32.long(), i64.char(), i32.bool(),
            m.float(), m.half(), m.bfloat16(), m.int(), m.long(), m.char(),
            i32.type_as(x), x.type_as(i64),
        )


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.cat((torch.rand(56) * 200 - 100, torch.tensor([0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 99.99, -99.99]))).npu()
i32 = torch.randint(-100, 100, (64,), dtype=torch.int32).npu()
i64 = torch.randint(-100, 100, (64,)).npu()
m = torch.randint(0, 2, (64,)).bool().npu()
with torch.no_grad():
    outs = model(x, i32, i64, m)
print(len(outs))
