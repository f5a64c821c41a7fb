# tolerance: matmul
# F.multi_head_attention_forward called directly: an attention pooling
# written as openai/CLIP writes its own (a mean token prepended to the
# flattened feature map, a positional table added; the query the first
# position only; separate q/k/v projection weights of three nn.Linear, their
# biases concatenated into in_proj_bias; an out projection to another
# width; need_weights=False, dropout_p=0, training=self.training, every
# argument by keyword), and the packed form with positional arguments
# (in_proj_weight [3E, E]; weights averaged over the heads and per head;
# a bool key_padding_mask, a float attn_mask). Sequence-first inputs; the
# batch dim takes 2 or 4 (every gear checked). (tests/conform/run.sh)
import torch
import torch.nn.functional as F
import torch_npu
import torchair
from torch import nn

GEARS = [2, 4]


class Pool(nn.Module):
    def __init__(self, side, dim, heads, out_dim):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(side * side + 1, dim) / dim ** 0.5)
        self.k_proj = nn.Linear(dim, dim)
        self.q_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.c_proj = nn.Linear(dim, out_dim)
        self.heads = heads

    def forward(self, x):
        x = x.flatten(start_dim=2).permute(2, 0, 1)
        x = torch.cat([x.mean(dim=0, keepdim=True), x], dim=0)
        x = x + self.pos[:, None, :].to(x.dtype)
        x, _ = F.multi_head_attention_forward(
            query=x[:1], key=x, value=x, embed_dim_to_check=x.shape[-1], num_heads=self.heads,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight, in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0,
            out_proj_weight=self.c_proj.weight, out_proj_bias=self.c_proj.bias,
            use_separate_proj_weight=True, training=self.training, need_weights=False)
        return x.squeeze(0)


class Packed(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.in_w = nn.Parameter(torch.randn(3 * dim, dim) / dim ** 0.5)
        self.in_b = nn.Parameter(torch.randn(3 * dim) * 0.1)
        self.out = nn.Linear(dim, dim)

    def forward(self, q, kv, pad, mask):
        o, w = F.multi_head_attention_forward(q, kv, kv, 16, 4, self.in_w, self.in_b, None, None, False, 0.1,
                                              self.out.weight, self.out.bias, False, pad, True, mask)
        o2, w2 = F.multi_head_attention_forward(q, kv, kv, 16, 2, self.in_w, None, None, None, False, 0.0,
                                                self.out.weight, None, training=False,
                                                average_attn_weights=False)
        return o, w, o2, w2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = Pool(3, 16, 4, 8)
        self.packed = Packed(16)

    def forward(self, img, q, kv, pad, mask):
        # img: [B, 16, 3, 3]; q: [5, B, 16]; kv: [6, B, 16]; pad: [B, 6] bool; mask: [5, 6]
        return (self.pool(img),) + self.packed(q, kv, pad, mask)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().eval().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
img = torch.randn(4, 16, 3, 3).npu()
q = torch.randn(5, 4, 16).npu()
kv = torch.randn(6, 4, 16).npu()
pad = torch.zeros(4, 6, dtype=torch.bool)
pad[:, 4:] = True
pad[1, 0] = True
pad = pad.npu()
mask = torch.randn(5, 6).npu()
torchair.inference.set_dim_gears(img, dim_gears={0: GEARS})
torchair.inference.set_dim_gears(q, dim_gears={1: GEARS})
torchair.inference.set_dim_gears(kv, dim_gears={1: GEARS})
torchair.inference.set_dim_gears(pad, dim_gears={0: GEARS})
with torch.no_grad():
    outs = model(img, q, kv, pad, mask)
print(len(outs))
