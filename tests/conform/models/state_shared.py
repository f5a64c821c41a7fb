# A KV cache shared by two compiled entries, as a serving loop compiles
# them: the prefill (the model itself, the sequence length geared 4 or 6)
# and a decode step of one token (a wrapper module around the same model,
# a static compile). Both write the caches each attention layer keeps as
# plain tensor attributes, so each entry keeps them as state, and the
# decode entry's are marked shared with the prefill's: a program running
# both bundles binds them to one copy (tngrt_bundle_share_state), so that
# the decode step reads the keys and values the prefill wrote, as the one
# attribute does in PyTorch. tests/conform/run.sh compares each bundle on
# its own (the decode bundle from the state recorded before its call);
# tests/conform/state_shared.sh runs the two in one program, bound.
# tolerance: matmul
import torch
import torch_npu
import torchair
from torch import nn

B, S, H = 2, 10, 16


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(H, H, bias=False)
        self.wk = nn.Linear(H, H, bias=False)
        self.wv = nn.Linear(H, H, bias=False)
        self.cache_k = torch.zeros((B, S, H))
        self.cache_v = torch.zeros((B, S, H))

    def forward(self, x, start_pos: int):
        bsz, seqlen, _ = x.shape
        self.cache_k = self.cache_k.to(x)
        self.cache_v = self.cache_v.to(x)
        self.cache_k[:bsz, start_pos:start_pos + seqlen] = self.wk(x)
        self.cache_v[:bsz, start_pos:start_pos + seqlen] = self.wv(x)
        keys = self.cache_k[:bsz, :start_pos + seqlen]
        values = self.cache_v[:bsz, :start_pos + seqlen]
        scores = torch.softmax(self.wq(x) @ keys.transpose(1, 2) / 4.0, dim=-1)
        return x + scores @ values


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Attn(), Attn()])
        self.out = nn.Linear(H, 8)

    def forward(self, x, start_pos: int):
        for layer in self.layers:
            x = layer(x, start_pos)
        return self.out(x)


class Step(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, start_pos: int):
        return self.model(x, start_pos)


torch.manual_seed(0)
model = Model().eval()
config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
prefill = torch.compile(model, backend=backend, dynamic=True, fullgraph=True)
decode = torch.compile(Step(model), backend=backend, dynamic=False, fullgraph=True)

prompt = torch.randn(B, 6, H)
torchair.inference.set_dim_gears(prompt, dim_gears={1: [4, 6]})
y = prefill(prompt, 0)
z = decode(torch.randn(B, 1, H), 6)
print(tuple(y.shape), tuple(z.shape))
