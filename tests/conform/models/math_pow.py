# pow with a tensor exponent (math family): tensor ** tensor
# (broadcast; float32, float16, bfloat16; int64 exact, incl. exponent 0),
# a Python number ** tensor (the RoPE idiom base ** (i / dim), an int base
# on an int tensor stays int64, a float base on an int tensor is float32),
# torch.pow(x, e) and x.pow(e) with tensor exponents. The batch dim takes 2
# or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, e, h, b, i, j):
        # x: [B, 32] float32 in (0.5, 2); e: [32] float32 in (-2, 2);
        # h, b: x as float16 / bfloat16; i: [B, 32] int64 in [-3, 3]; j: [32] int64 in [0, 4]
        inv_freq = 1.0 / (10000.0 ** (torch.abs(e) * 8 / 32))
        return (x ** e, torch.pow(x, e), x.pow(e * 0.5), 2.0 ** x, inv_freq,
                h ** e.half(), b.pow(e.bfloat16()), 1.5 ** h,
                i ** j, 2 ** j, 3.0 ** j, torch.pow(i, j))


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.rand(4, 32) * 1.5 + 0.5).npu()
e = (torch.rand(32) * 4 - 2).npu()
h = x.half()
b = x.bfloat16()
i = torch.randint(-3, 4, (4, 32)).npu()
j = torch.randint(0, 5, (32,)).npu()
for t in (x, h, b, i):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, e, h, b, i, j)
print(len(outs))
