# tolerance: matmul
# karpathy/minGPT mingpt/model.py (and mingpt/utils.py for its CfgNode
# config), unchanged: the "gpt-nano" configuration (3 layers, 3 heads, width
# 48) chosen by model_type, the merged config read through attributes; NewGELU
# written with math.sqrt and torch.pow, the causal mask a registered buffer,
# the MLP an nn.ModuleDict called through a lambda. forward(idx) returns
# (logits, None). The batch is geared 2 or 3.
import torch
import torch_npu
import torchair

from mingpt.model import GPT

torch.manual_seed(0)
config = GPT.get_default_config()
config.model_type = "gpt-nano"
config.vocab_size = 80
config.block_size = 16
model = GPT(config).eval()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

idx = torch.randint(0, config.vocab_size, (3, 10))
torchair.inference.set_dim_gears(idx, dim_gears={0: [2, 3]})
with torch.no_grad():
    logits, loss = compiled(idx)
print(tuple(logits.shape), loss)
