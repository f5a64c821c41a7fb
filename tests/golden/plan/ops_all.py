# Every operator family of the compilable subset in one model:
# arithmetic with broadcasting and scalars, pow/neg/abs/exp/log/sqrt/rsqrt,
# the activations (relu, gelu erf and tanh, silu, sigmoid, tanh), mm, bmm,
# matmul/@ (batched, broadcasting), addmm, linear (nn.Linear, F.linear),
# view/reshape(-1)/transpose/permute/t/contiguous/unsqueeze/squeeze/flatten,
# constant slicing, narrow, cat, stack, split, chunk, sum/mean/amax with dim
# and keepdim, softmax, log_softmax, layer_norm, npu_rms_norm, embedding,
# the casts, in-place slice assignment and copy_ into an input and a buffer,
# nn.Parameter, register_buffer, npu_format_cast, npu_quant_matmul,
# npu_dequant_swiglu_quant and npu_swiglu.
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(32)
        self.fc = nn.Linear(32, 64)
        self.embed = nn.Embedding(50, 32)
        self.gamma = nn.Parameter(torch.ones(32))
        self.bias = nn.Parameter(torch.zeros(64))
        self.register_buffer("scale", torch.full((32,), 0.5))
        self.register_buffer("state", torch.zeros(4, 16))

    def forward(self, x, ids, w, bmat, cache, x1, x2, qscale, wscale, ascale):
        # x: [4, 8, 32] float32, ids: [4, 8] int64, w: [64, 32], bmat: [64, 16],
        # cache: [4, 16]; x1: int8 [8, 32], x2: int8 [32, 16], qscale: [16],
        # wscale: [16], ascale: [8]

        # elementwise arithmetic, broadcasting, scalars on either side
        a = (x + 1.0) - x * 0.5
        a = 2.0 - a / 2.0
        a = a * self.scale + x
        b = torch.sqrt(a.pow(2) + 1.0)
        b = torch.rsqrt(b) + torch.log(torch.exp(-b).abs() + 1e-3)
        b = torch.neg(b) + torch.abs(b)
        # activations
        c = F.gelu(b) + F.gelu(b, approximate="tanh") + F.silu(b)
        c = c + torch.sigmoid(b) + torch.tanh(b) + torch.relu(b)
        # norms and embedding
        n1 = self.ln(c)
        n2 = torch_npu.npu_rms_norm(c, self.gamma, epsilon=1e-6)[0]
        h = n1 + n2 + self.embed(ids)                       # [4, 8, 32]
        # the matmul family
        f = self.fc(h)                                      # [4, 8, 64]
        g = F.linear(h, w)                                  # [4, 8, 64]
        f2 = torch.matmul(f + g, bmat)                      # [4, 8, 16]: broadcast
        m1 = torch.mm(h.reshape(-1, 32), w.t())             # [32, 64]
        m2 = torch.addmm(self.bias, h.view(32, 32), w.t())  # [32, 64]
        m3 = torch.bmm(h, h.transpose(1, 2))                # [4, 8, 8]
        m4 = h @ h.permute(0, 2, 1)                         # [4, 8, 8]
        # shapes
        p = f.permute(2, 0, 1).contiguous()                 # [64, 4, 8]
        q = p.flatten(1)                                    # [64, 32]
        r = q.unsqueeze(0).squeeze(0)                       # [64, 32]
        s = r[:, 2:10]                                      # [64, 8]
        t = torch.narrow(r, 1, 10, 8)                       # [64, 8]
        u = torch.cat((s, t), dim=1)                        # [64, 16]
        v = torch.stack((s, t), dim=0)                      # [2, 64, 8]
        u1, u2 = torch.split(u, 8, dim=1)                   # [64, 8] each
        v1, v2 = v.chunk(2, dim=0)                          # [1, 64, 8] each
        # reductions
        red = u.sum(dim=1) + u.mean(dim=-1) + u.amax(dim=1)        # [64]
        red_k = (u1 * u2).sum(dim=1, keepdim=True) + (v1 - v2).squeeze(0).amax(dim=-1, keepdim=True)
        # softmax family
        probs = torch.softmax(m3, dim=-1) + torch.log_softmax(m4, dim=-1)
        # casts
        low = f2.half()
        brain = f2.to(torch.bfloat16)
        back = low.float() + brain.float()                  # [4, 8, 16]
        # in place: a slice of the cache input, the whole state buffer
        cache[:, 0:8] = back[:, 0, 8:]
        self.state.copy_(cache * 2.0)
        # torch_npu operators
        x2_nz = torch_npu.npu_format_cast(x2, 29)
        acc = torch_npu.npu_quant_matmul(x1, x2_nz, qscale, output_dtype=torch.int32)  # int32 [8, 16]
        y, y_scale = torch_npu.npu_dequant_swiglu_quant(acc, weight_scale=wscale, activation_scale=ascale,
                                                       quant_mode=1)                 # int8 [8, 8], [8]
        sw = torch_npu.npu_swiglu(f, dim=-1)                # [4, 8, 32]
        return (red + red_k.t().squeeze(0) + m1.sum(dim=0) + m2.amax(dim=0), probs,
                back.bfloat16(), self.state, y, y_scale, sw)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn(4, 8, 32).npu()
ids = torch.randint(0, 50, (4, 8)).npu()
w = torch.randn(64, 32).npu()
bmat = torch.randn(64, 16).npu()
cache = torch.zeros(4, 16).npu()
x1 = torch.randint(-10, 10, (8, 32), dtype=torch.int8).npu()
x2 = torch.randint(-10, 10, (32, 16), dtype=torch.int8).npu()
qscale = torch.ones(16).npu()
wscale = torch.rand(16).npu() * 0.01
ascale = torch.rand(8).npu()
with torch.no_grad():
    outputs = model(x, ids, w, bmat, cache, x1, x2, qscale, wscale, ascale)
print([tuple(o.shape) for o in outputs])
