# The tensor-parallel LLaMA of modeling.py as tngc compiles it: built with
# `tngc build --world-size N`, this script runs once per rank (rank r sees
# dist.get_rank() == r), so each rank's plan holds its own shard. One
# entry, the prompt length geared.
#
#   forward  input_ids [1, S] int64, S in SEQ_GEARS -> logits [1, S, vocab] float32
import torch
import torchair

from modeling import TPConfig, TPLlama

SEQ_GEARS = [4, 8]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TPLlama(TPConfig()).eval()
    npu_backend = torchair.get_npu_backend(compiler_config=torchair.CompilerConfig())
    forward = torch.compile(model, backend=npu_backend, dynamic=True, fullgraph=True)
    input_ids = torch.randint(0, 128, (1, 8))
    torchair.inference.set_dim_gears(input_ids, dim_gears={1: SEQ_GEARS})
    with torch.no_grad():
        print("logits:", tuple(forward(input_ids).shape))
