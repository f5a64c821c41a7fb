# tolerance: matmul
# Acceptance: a DeepSeek-style MoE layer in the ordinary
# PyTorch idiom: a gating linear, softmax scoring, topk routing with
# renormalised weights, dense combine weights built twice (scatter of the
# top-k weights, and one_hot of the indices weighted and summed: they must
# agree), routed SiLU-gated experts in an nn.ModuleList, and a shared
# expert on a second stream joined with npu_wait_tensor. The token count
# takes 8 or 16 (every gear checked against PyTorch). (tests/conform/run.sh)
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_npu
import torchair

HIDDEN, INTER, EXPERTS, TOP_K = 32, 48, 4, 2


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(HIDDEN, INTER, bias=False)
        self.up_proj = nn.Linear(HIDDEN, INTER, bias=False)
        self.down_proj = nn.Linear(INTER, HIDDEN, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.experts = nn.ModuleList([Expert() for _ in range(EXPERTS)])
        self.shared_expert = Expert()

    def forward(self, hidden_states):
        # hidden_states [T, HIDDEN]
        with torchair.scope.npu_stream_switch("1"):
            shared = self.shared_expert(hidden_states)
        scores = self.gate(hidden_states).softmax(dim=-1)
        topk_weight, topk_idx = torch.topk(scores, TOP_K, dim=-1, sorted=False)
        topk_weight = topk_weight / topk_weight.sum(dim=-1, keepdim=True)
        combine = torch.zeros_like(scores).scatter(1, topk_idx, topk_weight)
        one_hot = F.one_hot(topk_idx, num_classes=EXPERTS).to(topk_weight.dtype)
        combine2 = (one_hot * topk_weight.unsqueeze(-1)).sum(dim=1)
        out = torch.zeros_like(hidden_states)
        for e, expert in enumerate(self.experts):
            out = out + expert(hidden_states) * combine[:, e:e + 1]
        torchair.scope.npu_wait_tensor(out, shared)
        return out + shared, combine2 - combine, topk_idx.sort(dim=-1).values


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(MoE().npu(), backend=npu_backend, dynamic=True, fullgraph=True)
x = torch.randn(16, HIDDEN).npu()
torchair.inference.set_dim_gears(x, dim_gears={0: [8, 16]})
with torch.no_grad():
    outs = model(x)
print([tuple(o.shape) for o in outs])
