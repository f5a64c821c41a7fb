# DeepSeek-V3-style MoE block (modeling.py) compiled with the TorchAir
# backend: sigmoid scores, group-limited top-k ("noaux_tc": 8 routed experts
# in 4 groups, the best 2 groups compete, a score-correction bias chooses
# the experts but not their weights), top-2 weights renormalised and scaled
# by routed_scaling_factor, one shared expert on stream "moe_shared". In
# bfloat16, as DeepSeek-V3 is served (the router computes in float32). A
# decode step of [batch, 1, hidden] (the block flattens the tokens); the
# batch is geared (2, 4 or 8).
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
    scoring_func="sigmoid",
    topk_method="noaux_tc",
    n_group=4,
    topk_group=2,
    norm_topk_prob=True,
    routed_scaling_factor=2.5,
)
model = DeepseekMoE(config).to(torch.bfloat16).npu().eval()

compiler_config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=compiler_config)
model = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

hidden_states = torch.randn(4, 1, config.hidden_size, dtype=torch.bfloat16).npu()
# 档位: the batch takes 2, 4 or 8 (gears on dim 0)
torchair.inference.set_dim_gears(hidden_states, dim_gears={0: [2, 4, 8]})
with torch.no_grad():
    out = model(hidden_states)
print(tuple(out.shape))

# Conformance (tests/e2e/compare.py): the outputs come from float matmuls.
# tolerance: matmul
