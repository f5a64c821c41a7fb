# tolerance: matmul
# mistralai/mistral-src moe_one_file_ref.py, unchanged: a two-layer Mixtral
# (a mixture of 4 experts, 2 per token: topk routing, softmax of the chosen
# logits, experts applied to the rows torch.where selects) with
# grouped-query attention (repeat_interleave), complex RoPE (torch.polar,
# view_as_complex) over a 128000-position table that a property creates on
# its first read, and KV caches that forward creates on its first call
# (torch.empty), as tensor attributes. The dataclass configs derive from
# simple_parsing's Serializable, and the file imports fire, safetensors and
# mistral_common for its loader and command line: stubs/ provides them.
# Prefill: 2 sequences of 6 tokens at positions 0..5, the sequence length
# geared 4 or 6 (dynamic). As for mistral, the file's decode branch reads
# positions[-1].item() (torch.compile(fullgraph=True) refuses it too), so a
# TorchAir user compiles the prefill.
import torch
import torch._dynamo
import torch_npu
import torchair

from moe_one_file_ref import ModelArgs, MoeArgs, Transformer

# the MoE layer selects each expert's rows with torch.where(selected == i):
# torch.compile(fullgraph=True) takes that only with this set
torch._dynamo.config.capture_dynamic_output_shape_ops = True

torch.manual_seed(0)
args = ModelArgs(dim=64, n_layers=2, head_dim=16, hidden_dim=128, n_heads=4, n_kv_heads=2,
                 norm_eps=1e-5, vocab_size=96, moe=MoeArgs(num_experts=4, num_experts_per_tok=2),
                 max_batch_size=2, max_seq_len=16)
model = Transformer(args)

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
prefill = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

input_ids = torch.randint(0, args.vocab_size, (2, 6))
positions = torch.arange(6)
torchair.inference.set_dim_gears(input_ids, dim_gears={1: [4, 6]})
torchair.inference.set_dim_gears(positions, dim_gears={0: [4, 6]})
with torch.no_grad():
    logits = prefill(input_ids, positions)
print(tuple(logits.shape))
