# tolerance: matmul
# meta-llama/llama3 llama/model.py, unchanged: a two-layer Llama 3 with
# grouped-query attention (4 query heads, 2 key/value heads), complex RoPE
# (precompute_freqs_cis, view_as_complex) and the KV cache each Attention
# keeps as tensor attributes written by slices. fairscale's parallel layers
# come from stubs/fairscale (world size 1: nn.Linear, nn.Embedding);
# rope_theta 500000.
# Prefill: 2 sequences of 6 tokens from position 0, the sequence length
# geared 4 or 6 (dynamic). Decode: one token per sequence at position 6,
# the whole step one super kernel (a static compile: super kernels are for
# static graphs).
import torch
import torch_npu
import torchair

from llama.model import ModelArgs, Transformer

torch.manual_seed(0)
args = ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=96,
                 multiple_of=32, max_batch_size=2, max_seq_len=16)
model = Transformer(args).eval()


class DecodeStep(torch.nn.Module):
    """One decode step of the whole model as a single super kernel."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tokens, start_pos: int):
        with torchair.scope.super_kernel("llama3_decode"):
            return self.model(tokens, start_pos)


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
prefill = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
decode = torch.compile(DecodeStep(model), backend=npu_backend, dynamic=False, fullgraph=True)

prompt = torch.randint(0, args.vocab_size, (2, 6))
torchair.inference.set_dim_gears(prompt, dim_gears={1: [4, 6]})
logits = prefill(prompt, 0)
step = logits[:, -1].argmax(-1, keepdim=True)
out = decode(step, 6)
print(tuple(logits.shape), tuple(out.shape))
