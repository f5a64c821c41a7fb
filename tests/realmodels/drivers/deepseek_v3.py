# tolerance: matmul
# deepseek-ai/DeepSeek-V3 inference/model.py, unchanged: a two-layer
# DeepSeek-V3 in bfloat16, both layers dense (n_dense_layers = n_layers: the
# file's MoE forward counts each expert's tokens with bincount(...).tolist()
# and skips the experts that got none, a branch on data that
# torch.compile(fullgraph=True) refuses, and tngc with it, TNG203 at
# model.py:683; the MoE pattern tngc compiles is Mixtral's), with
# multi-head latent attention with the
# "absorb" implementation: the compressed KV and rope-key caches registered
# as non-persistent buffers written by slices at start_pos, wkv_b's weight
# read through einsum; complex RoPE by view_as_complex; RMSNorm by
# F.rms_norm, PyTorch 2.4's, which pyonly/ gives the PyTorch 1.13 run). The
# file imports the triton FP8 kernels of inference/kernel.py: stubs/kernel.py
# provides their names (bfloat16 never calls them). Like the file's own __main__, the
# driver sets the default dtype to bfloat16; the weights, left
# uninitialised by the file (torch.empty), are drawn at random. Prefill: 2
# sequences of 6 tokens, the length geared 4 or 6 (dynamic); decode: one
# token at position 6, the step one super kernel (a static compile).
import torch
import torch_npu
import torchair

from inference.model import ModelArgs, Transformer

torch.set_default_dtype(torch.bfloat16)
torch.manual_seed(0)
args = ModelArgs(max_batch_size=2, max_seq_len=16, vocab_size=96, dim=64, inter_dim=128,
                 moe_inter_dim=32, n_layers=2, n_dense_layers=2, n_heads=4,
                 n_routed_experts=4, n_shared_experts=1, n_activated_experts=2,
                 kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16)
model = Transformer(args)
with torch.no_grad():
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.1)


class DecodeStep(torch.nn.Module):
    """One decode step of the whole model as a single super kernel."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tokens, start_pos: int):
        with torchair.scope.super_kernel("deepseek_decode"):
            return self.model(tokens, start_pos)


npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
prefill = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
decode = torch.compile(DecodeStep(model), backend=npu_backend, dynamic=False, fullgraph=True)

tokens = torch.randint(0, args.vocab_size, (2, 6))
torchair.inference.set_dim_gears(tokens, dim_gears={1: [4, 6]})
logits = prefill(tokens, 0)
out = decode(logits.argmax(-1, keepdim=True), 6)
print(tuple(logits.shape), tuple(out.shape))
