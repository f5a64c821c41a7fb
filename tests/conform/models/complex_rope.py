# tolerance: matmul
# Complex numbers in rotary embeddings, the way the reference LLaMA,
# Mistral and DeepSeek files write them: a complex64 table made by
# torch.polar in __init__ (a plain attribute in one module, a non-persistent
# buffer in the other), sliced by an int start position passed to forward
# or indexed by a tensor of positions, pairs of the last dim viewed as
# complex numbers (view_as_complex of a reshape / view), the table viewed
# for broadcasting (by a list of sizes built from x.shape, and by explicit
# sizes read with x.size()), a complex product, view_as_real and flatten,
# cast back with type_as / to(dtype). Also .real and .imag, torch.complex,
# a complex times a real tensor and a number, complex + and -, unsqueeze
# and negative dims of a complex tensor, and a polar table built inside
# forward, and in-place writes through view_as_real and .imag. Sequence
# length geared 4 or 8 (every gear checked).
# (tests/conform/run.sh)
import torch
import torch.nn as nn
import torch_npu
import torchair

HEADS, HD, MAXLEN = 2, 8, 16


def rope_table(dim, n, theta=10000.0):
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    angles = torch.outer(torch.arange(n), inv).float()
    return torch.polar(torch.ones_like(angles), angles)


def for_broadcast(table, z):
    # keep dim 1 and the last dim of z, size 1 elsewhere
    n = z.ndim
    assert table.shape == (z.shape[1], z.shape[-1])
    sizes = [d if i == 1 or i == n - 1 else 1 for i, d in enumerate(z.shape)]
    return table.view(*sizes)


def rotate_listed(x, table):
    z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    out = torch.view_as_real(z * for_broadcast(table, z)).flatten(3)
    return out.type_as(x)


def rotate_sized(x, table):
    kind = x.dtype
    z = torch.view_as_complex(x.float().view(*x.shape[:-1], -1, 2))
    table = table.view(1, z.size(1), 1, z.size(-1))
    return torch.view_as_real(z * table).flatten(3).to(kind)


class LlamaStyle(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(HEADS * HD, HEADS * HD, bias=False)
        self.freqs_cis = rope_table(HD, MAXLEN * 2)

    def forward(self, x, start_pos: int):
        b, s, _ = x.shape
        self.freqs_cis = self.freqs_cis.to(x.device)
        table = self.freqs_cis[start_pos : start_pos + s]
        q = self.wq(x).view(b, s, HEADS, HD)
        qb = q.bfloat16()
        return rotate_listed(q, table), rotate_listed(qb, table), rotate_sized(q, table)


class MistralStyle(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("freqs_cis", rope_table(HD, MAXLEN), persistent=False)

    def forward(self, x, positions):
        table = self.freqs_cis[positions]
        y = rotate_sized(x, table)
        # parts, and complex arithmetic beyond the product
        z = torch.view_as_complex(x.reshape(*x.shape[:-1], HD // 2, 2))
        w = table.unsqueeze(-2).unsqueeze(0)
        re = (z * w).real
        im = (z * w).imag
        mixed = torch.complex(re, im) * 0.5 + z - w * torch.sigmoid(z.real)
        scaled = torch.view_as_real(-mixed.transpose(1, 2)).flatten(-2)
        local = rope_table(HD, x.shape[1])
        again = torch.view_as_real(z * local[None, :, None, :]).flatten(-2)
        # writes through the real views of a complex tensor reach it
        t = torch.view_as_complex(x[0].clone().view(-1, HEADS, HD // 2, 2))
        torch.view_as_real(t).mul_(2.0)
        t.imag.add_(1.0)
        return y, re + im, scaled, again, torch.view_as_real(t * t)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
llama = torch.compile(LlamaStyle(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(2, 8, HEADS * HD)
torchair.inference.set_dim_gears(x, dim_gears={1: [4, 8]})
with torch.no_grad():
    outs = llama(x, 3)
print([tuple(o.shape) for o in outs])

mistral = torch.compile(MistralStyle(), backend=npu_backend, dynamic=False, fullgraph=True)
xm = torch.randn(2, 5, HEADS, HD)
with torch.no_grad():
    outs = mistral(xm, torch.tensor([3, 4, 5, 6, 7]))
print([tuple(o.shape) for o in outs])
