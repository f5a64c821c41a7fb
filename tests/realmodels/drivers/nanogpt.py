# tolerance: matmul
# karpathy/nanoGPT model.py, unchanged: a two-layer GPT-2 (LayerNorm with
# optional bias, fused QKV split, causal attention, GELU MLP, tied token
# embedding and head). The attention takes the flash path when
# torch.nn.functional has scaled_dot_product_attention: the PyTorch 1.13 run
# has it from tests/ref's stand-ins (is_causal=True), so both runs take it.
# forward(idx) returns (logits of the last position, None). The sequence
# length is geared 4 or 8.
import torch
import torch_npu
import torchair

from model import GPT, GPTConfig

torch.manual_seed(0)
config = GPTConfig(block_size=32, vocab_size=96, n_layer=2, n_head=4, n_embd=64,
                   dropout=0.0, bias=True)
model = GPT(config).eval()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

idx = torch.randint(0, config.vocab_size, (2, 8))
torchair.inference.set_dim_gears(idx, dim_gears={1: [4, 8]})
with torch.no_grad():
    logits, loss = compiled(idx)
print(tuple(logits.shape), loss)
