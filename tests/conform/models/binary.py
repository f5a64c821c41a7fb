# Binary arithmetic (+ - * /, torch.add/sub with alpha) with NumPy
# broadcasting ([4,1,16] with [3,16] and [16]), Python scalars on either
# side, on float32, float16 and bfloat16, and mixed float dtypes (float16 +
# float32 promotes to float32, float16 * bfloat16 to float32).
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, a, b, c, ha, hb, ba, bb):
        # a, ha, ba: [4, 1, 16]; b, hb, bb: [3, 16]; c: [16] float32
        outs = []
        for x, y in ((a, b), (ha, hb), (ba, bb)):
            outs.append(x + y)                       # [4, 3, 16]
            outs.append(x - y)
            outs.append(x * y)
            outs.append(x / (y.abs() + 0.5))
            outs.append(y - x)
            outs.append(2.0 - x)
            outs.append(3.0 / (y.abs() + 1.0))
            outs.append(x * 0.1)
            outs.append(x + 0.1)
            outs.append(x / 3.0)
            outs.append(torch.add(x, y, alpha=0.3))
            outs.append(torch.sub(y, x, alpha=2.0))
            outs.append(torch.mul(x, y).div(y.abs() + 1.0))
        outs.append(a * c + c)                       # [4, 1, 16]
        outs.append(c - b)                           # [3, 16]
        outs.append(ha + a)                          # float16 + float32 -> float32
        outs.append(hb * bb)                         # float16 * bfloat16 -> float32
        outs.append(ba - c)                          # bfloat16 - float32 -> float32
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
a = torch.randn(4, 1, 16).npu()
b = torch.randn(3, 16).npu()
c = torch.randn(16).npu()
ha = torch.randn(4, 1, 16, dtype=torch.float16).npu()
hb = torch.randn(3, 16, dtype=torch.float16).npu()
ba = torch.randn(4, 1, 16).bfloat16().npu()
bb = torch.randn(3, 16).bfloat16().npu()
with torch.no_grad():
    outs = model(a, b, c, ha, hb, ba, bb)
print(len(outs))
