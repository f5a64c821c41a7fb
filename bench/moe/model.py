# A DeepSeek-style MoE block for bench/moe: examples/moe/modeling.py (a
# softmax router, greedy top-2 of 8 routed SiLU-gated experts, renormalised
# weights, a dense combine matrix, one shared expert on stream
# "moe_shared") at hidden 512, expert FFN 256, on TOKENS tokens (one static
# shape: bench/moe/bench.py sets TOKENS per bundle and puts modeling.py
# beside this script).
import torch
import torch_npu
import torchair

from modeling import DeepseekMoE, DeepseekMoEConfig

TOKENS = 16
HIDDEN = 512
EXPERT_FFN = 256

config = DeepseekMoEConfig(hidden_size=HIDDEN, moe_intermediate_size=EXPERT_FFN,
                           n_routed_experts=8, num_experts_per_tok=2, n_shared_experts=1,
                           scoring_func="softmax", topk_method="greedy", norm_topk_prob=True)

if __name__ == "__main__":
    torch.manual_seed(0)
    model = DeepseekMoE(config).npu().eval()
    model = torch.compile(model, backend=torchair.get_npu_backend(), fullgraph=True)
    with torch.no_grad():
        out = model(torch.randn(TOKENS, HIDDEN).npu())
    print("moe:", tuple(out.shape))
