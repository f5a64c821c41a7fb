# DeepSeek-V2-style MoE block (modeling.py) compiled with the TorchAir
# backend: softmax scores, greedy top-2 of 8 routed experts, renormalised
# top-k weights, one shared expert on stream "moe_shared". The token count
# is geared: one compiled graph per gear (4, 8 or 16 tokens), no
# recompilation between them.
import torch
import torch_npu
import torchair

from modeling import DeepseekMoE, DeepseekMoEConfig

config = DeepseekMoEConfig(
    hidden_size=32,
    moe_intermediate_size=48,
    n_routed_experts=8,
    num_experts_per_tok=2,
    n_shared_experts=1,
    scoring_func="softmax",
    topk_method="greedy",
    norm_topk_prob=True,
    routed_scaling_factor=1.0,
)
model = DeepseekMoE(config).npu().eval()

compiler_config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=compiler_config)
model = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

hidden_states = torch.randn(8, config.hidden_size).npu()
# 档位: the token count takes 4, 8 or 16 (gears on dim 0)
torchair.inference.set_dim_gears(hidden_states, dim_gears={0: [4, 8, 16]})
with torch.no_grad():
    out = model(hidden_states)
print(tuple(out.shape))

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls.
# tolerance: matmul
