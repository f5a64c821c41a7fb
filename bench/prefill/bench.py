#!/usr/bin/env python3
"""A LLaMA-style prefill (bench/prefill/model.py: hand-written RMSNorm, RoPE,
grouped-query attention as matmul-softmax-matmul under a causal mask,
SwiGLU; hidden 512, 8 heads of 64, 2 key/value heads, FFN 1408, 2 layers,
vocab 1024) at prompts of 32 and 64 tokens, one bundle per prompt length:
tngc vs ONNX Runtime (1 intra-op thread) vs PyTorch eager vs TorchScript,
every contender's logits checked against PyTorch's, the CPU time per run
of tngc and ORT, the load average before and after.

usage: /usr/bin/python3 bench/prefill/bench.py TNGC [OUT_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPTS = (32, 64)


def case(tmp, src, prompt, g):
    script, ns = C.sized_script(tmp, src, "prefill%d" % prompt, PROMPT=prompt)

    def make():
        torch.manual_seed(0)
        return ns["Prefill"]().eval()
    tokens = torch.randint(0, ns["VOCAB"], (1, prompt), generator=g)
    return ("prefill, %d tokens" % prompt, "p%d" % prompt, script, make, [("tokens", tokens)])


def main():
    C.tngc_path()
    tmp = C.workdir()
    with open(os.path.join(HERE, "model.py")) as f:
        src = f.read()
    g = torch.Generator().manual_seed(1)
    C.model_table("LLaMA-style prefill (bench/prefill): hidden 512, 8 heads (2 KV), FFN 1408, "
                  "2 layers", [case(tmp, src, p, g) for p in PROMPTS], 10, 100,
                  "Target: at least 1.5x ONNX Runtime.")


if __name__ == "__main__":
    main()
