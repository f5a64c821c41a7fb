# Comparison idioms of real models: &= and |= on masks, eq_ and
# lt_ (a comparison written into a float tensor), an attention mask
# `am == 0` from int64, bool masks summed, cast and unsqueezed into a
# where, masked_fill with ~mask, (x != x).any(). The batch dim takes 2 or
# 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair

GEARS = [2, 4]


class Model(torch.nn.Module):
    def forward(self, x, am):
        m = x > 0
        n = x < 1
        m &= n
        n |= x > 2
        y = x.clone()
        y.eq_(1.5)
        z = x * 1.0
        z.lt_(0)
        e = am == 0
        s = (x > 0).sum(dim=-1)
        f = (x > 0).float() * x
        g = torch.where(e.unsqueeze(-1), x.unsqueeze(1), torch.zeros_like(x).unsqueeze(1))
        k = x.masked_fill(~m, 0)
        return m, n, y, z, e, s, f, g, k, (x != x).any(), am.ne(0).long()


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = (torch.randint(-6, 7, (4, 16)) * 0.5).npu()
am = torch.randint(0, 2, (4, 16)).npu()
for t in (x, am):
    torchair.inference.set_dim_gears(t, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(x, am)
print(len(outs))
