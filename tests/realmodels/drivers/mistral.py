# tolerance: network
# mistralai/mistral-src one_file_ref.py, unchanged: a two-layer Mistral with
# grouped-query attention (repeat_interleave), complex RoPE (torch.polar,
# view_as_complex) over a 128000-position table kept as a plain attribute,
# and the KV cache as tensor attributes. The dataclass configs derive from
# simple_parsing's Serializable, and the file imports fire, safetensors and
# mistral_common for its loader and command line: stubs/ provides them.
# Prefill: 2 sequences of 6 tokens at positions 0..5, the sequence length
# geared 4 or 6 (dynamic); it writes the float16 KV cache attributes with
# scatter_. The file's decode branch (positions.shape[0] == 1) slices the
# cache at positions[-1].item() + 1, a value read from a tensor on the
# host: torch.compile(fullgraph=True) refuses that too (a graph break), so
# a TorchAir user compiles the prefill; tngc refuses the decode step at
# one_file_ref.py:131 (tests/realmodels/repro/item_slice_bound.py).
import torch
import torch_npu
import torchair

from one_file_ref import ModelArgs, Transformer

torch.manual_seed(0)
args = ModelArgs(dim=64, n_layers=2, head_dim=16, hidden_dim=128, n_heads=4, n_kv_heads=2,
                 norm_eps=1e-5, vocab_size=96, max_seq_len=16, max_batch_size=2)
model = Transformer(args).half()  # the file's KV cache is float16

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
prefill = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

input_ids = torch.randint(0, args.vocab_size, (2, 6))
positions = torch.arange(6)
torchair.inference.set_dim_gears(input_ids, dim_gears={1: [4, 6]})
torchair.inference.set_dim_gears(positions, dim_gears={0: [4, 6]})
with torch.no_grad():
    logits = prefill(input_ids, positions)
print(tuple(logits.shape))
