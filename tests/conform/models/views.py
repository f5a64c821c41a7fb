# tolerance: exact
# Data movement, which must be exact in every dtype: view/reshape (with -1),
# transpose, permute, t, contiguous, unsqueeze, squeeze, flatten, constant
# slicing (steps, negative bounds, an integer index), narrow, cat (negative
# dim), stack, split (equal and listed sizes), chunk and unbind, on
# float32, float16, bfloat16, int8, int32, int64 and bool tensors.
# (tests/conform/run.sh)
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, h, b, i8, i32, i64, m):
        # every input: [2, 6, 8] of its dtype
        outs = []
        for v in (x, h, b, i8, i32, i64, m):
            outs.append(v.view(12, 8))
            outs.append(v.reshape(2, -1))
            outs.append(v.transpose(0, 2).contiguous())
            outs.append(v.permute(1, 2, 0))
            outs.append(v[0].t())
            outs.append(v.unsqueeze(1).flatten(2))
            outs.append(v[:, 1:2].squeeze(1))
            outs.append(v[:, ::2, -3:])
            outs.append(v[1, 2:5, 1::3])
            outs.append(torch.narrow(v, 2, 2, 4))
            outs.append(torch.cat((v, v[:, :2]), dim=-2))
            outs.append(torch.stack((v[0], v[1]), dim=1))
            p, q = torch.split(v, [2, 6], dim=2)
            outs.append(q)
            r, s, t = v.chunk(3, dim=1)
            outs.append(t)
            u0, u1 = v.unbind(0)
            outs.append(u1)
            outs.append(v.transpose(0, 2).reshape(-1, 2))          # reshape of a transpose
            outs.append(v.permute(2, 0, 1).flatten(0, 1))
            outs.append(v.unsqueeze(-1).squeeze())
            outs.append(v[:, -1])
            outs.append(torch.stack((v, v), dim=-1))
            e, f, g = torch.split(v, 3, dim=2)                      # 3, 3, 2
            outs.append(g)
            k1, k2, k3 = v.chunk(3, dim=2)                          # 3, 3, 2
            outs.append(k3)
        return outs


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(2, 6, 8).npu()
h = torch.randn(2, 6, 8, dtype=torch.float16).npu()
b = torch.randn(2, 6, 8).bfloat16().npu()
i8 = torch.randint(-128, 128, (2, 6, 8), dtype=torch.int8).npu()
i32 = torch.randint(-2 ** 31, 2 ** 31 - 1, (2, 6, 8), dtype=torch.int32).npu()
i64 = torch.randint(-2 ** 62, 2 ** 62, (2, 6, 8)).npu()
m = torch.randint(0, 2, (2, 6, 8)).bool().npu()
with torch.no_grad():
    outs = model(x, h, b, i8, i32, i64, m)
print(len(outs))
