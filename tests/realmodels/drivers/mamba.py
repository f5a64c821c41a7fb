# tolerance: matmul
# johnma2006/mamba-minimal model.py, unchanged: a two-layer Mamba
# (depthwise causal Conv1d, the selective scan as a Python loop over the
# sequence, softplus, einsum by named axes) with tied embedding and head.
# einops is not installed here: stubs/einops provides rearrange, repeat and
# einsum. The sequence is 6 tokens (the scan unrolls over it); the batch is
# geared 2 or 3.
import torch
import torch_npu
import torchair

from model import Mamba, ModelArgs

torch.manual_seed(0)
model = Mamba(ModelArgs(d_model=32, n_layer=2, vocab_size=64)).eval()

npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
compiled = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)

input_ids = torch.randint(0, 64, (3, 6))
torchair.inference.set_dim_gears(input_ids, dim_gears={0: [2, 3]})
with torch.no_grad():
    logits = compiled(input_ids)
print(tuple(logits.shape))
