# Aliasing as PyTorch defines it: every view kind x every in-place write
# kind, through views of an op's result, of an input (written back to the
# caller) and of a buffer, with reads of another alias taken before the
# write, of the written view, and of the base afterwards. The view kinds:
# a slice with a step, an integer index, narrow, view, transpose, unsqueeze,
# a chunk piece, `...`/None indexing, a view of a view of a view (permute,
# slice, unbind), a split piece transposed, expand (read only: a write into
# it is PyTorch's error). The writes: add_, mul_ by a tensor, +=, a slice
# assignment of a number, copy_, fill_, zero_, clamp_, masked_fill_, an
# integer-indexed assignment, sub_ of itself, index_put_. The batch dim
# takes 2 or 4 (zip gears, every gear checked). (tests/conform/run.sh)
import torch
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]
NV = 10
NW = 12


def take(X, kind):
    # X: [B, 6, 8]
    if kind == 0:
        return X[:, 1:5:2]
    if kind == 1:
        return X[:, 2]
    if kind == 2:
        return X.narrow(2, 1, 4)
    if kind == 3:
        return X.view(X.shape[0], 48)
    if kind == 4:
        return X.transpose(1, 2)
    if kind == 5:
        return X.unsqueeze(1)
    if kind == 6:
        return X.chunk(2, dim=2)[1]
    if kind == 7:
        return X[..., None, 3]
    if kind == 8:
        return X.permute(2, 0, 1)[1:3].unbind(0)[1]
    return X.split(3, dim=1)[1].transpose(1, 2)


def write(v, kind):
    if kind == 0:
        v.add_(1.5)
    elif kind == 1:
        v.mul_(v * 0.5 + 1.0)
    elif kind == 2:
        v += 2.0
    elif kind == 3:
        v[...] = 3.0
    elif kind == 4:
        v.copy_(v * 2.0 + 1.0)
    elif kind == 5:
        v.fill_(-1.0)
    elif kind == 6:
        v.zero_()
    elif kind == 7:
        v.clamp_(-0.5, 0.5)
    elif kind == 8:
        v.masked_fill_(v > 0, 7.0)
    elif kind == 9:
        v[0] = 4.0
    elif kind == 10:
        v.sub_(v, alpha=0.5)
    else:
        v.index_put_((torch.arange(2),), torch.full((), 9.0))


def flat(t):
    return t.reshape(t.shape[0], -1) if t.dim() > 1 else t.reshape(-1, 1)


class OpResults(nn.Module):
    def forward(self, x):
        # x: [B, 6, 8]; every write goes into an op's result
        outs = []
        for vk in range(NV):
            for wk in range(NW):
                X = x * 1.0 + vk
                other = take(X, (vk + 3) % NV)   # another alias, taken before the write
                e = X[:, :1].expand(-1, 6, -1)  # an expanded view, read after
                v = take(X, vk)
                write(v, wk)
                outs.append(flat(X))
                outs.append(flat(other) * 1.0)
                outs.append(flat(e) + 0.0)
        return torch.cat(outs, dim=1)


class Inputs(nn.Module):
    def forward(self, x, y):
        # x, y: [B, 6, 8] inputs, updated in place through their views
        outs = []
        for vk in range(NV):
            for wk in range(0, NW, 3):
                v = take(x, vk)
                other = take(x, (vk + 1) % NV)
                write(v, wk)
                outs.append(flat(other) * 1.0)
                outs.append(flat(v) * 1.0)
        w = y[:, 1:].transpose(1, 2)[:, 2]   # a view of a view of an input
        w.mul_(3.0)
        w[1:3] = 0.5
        return torch.cat(outs, dim=1), y * 1.0


class Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(4, 6, 8))

    def forward(self, x):
        # x: [4, 6, 8]; the buffer written through its views, read back
        self.buf.copy_(x)
        outs = []
        for vk in range(NV):
            v = take(self.buf, vk)
            write(v, vk)
            outs.append(flat(self.buf) * 1.0)
        s = self.buf[:, 0]
        self.buf[:, 0] += 1.0
        return torch.cat(outs, dim=1), s * 1.0


class Scan(nn.Module):
    def forward(self, x):
        # x: [B, 8]: a parallel scan written the ordinary way
        X = x.clone()
        for i in range(1, 8):
            X[:, i].add_(X[:, i - 1].mul(2.0))
        Y = x.clone()
        Y[:, 0].mul_(10.0)
        Xa = x.clone()
        cols = Xa.unbind(1)
        for i in range(1, 8):
            cols[i].add_(cols[i - 1] * 0.5)
        return X, Y, Xa


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
x = torch.randn(4, 6, 8).npu()
y = torch.randn(4, 6, 8).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(y, dim_gears={0: GEARS})
s = torch.randn(4, 8).npu()
torchair.inference.set_dim_gears(s, dim_gears={0: GEARS})
m1 = torch.compile(OpResults().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
m2 = torch.compile(Inputs().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
m3 = torch.compile(Buffers().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
m4 = torch.compile(Scan().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
with torch.no_grad():
    m1(x)
    m2(x, y)
    m3(torch.randn(4, 6, 8).npu())
    m4(s)
