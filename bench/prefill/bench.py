#!/usr/bin/env python3
"""A LLaMA-style prefill (bench/prefill/model.py: hand-written RMSNorm, RoPE,
grouped-query attention as matmul-softmax-matmul under a causal mask,
SwiGLU; hidden 512, 8 heads of 64, 2 key/value heads, FFN 1408, 2 layers,
vocab 1024) at prompts of 32 and 64 tokens, one bundle per prompt length:
tngc vs ONNX Runtime (1 intra-op thread) vs PyTorch eager vs TorchScript,
every contender's logits checked against PyTorch's, the load average
before and after.

usage: /usr/bin/python3 bench/prefill/bench.py TNGC [OUT_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPTS = (32, 64)


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    with open(os.path.join(HERE, "model.py")) as f:
        src = f.read()
    g = torch.Generator().manual_seed(1)
    rows = []
    load0 = os.getloadavg()
    for prompt in PROMPTS:
        s = C.sized_source(src, PROMPT=prompt)
        script = os.path.join(tmp, "prefill%d.py" % prompt)
        with open(script, "w") as f:
            f.write(s)
        ns = {"__name__": "tngc_bench"}
        exec(compile(s, script, "exec"), ns)

        def make():
            torch.manual_seed(0)
            return ns["Prefill"]().eval()
        tokens = torch.randint(0, ns["VOCAB"], (1, prompt), generator=g)
        label = "prefill, %d tokens" % prompt
        res, errs, flops = C.module_case(tngc, tmp, "p%d" % prompt, script, make,
                                         [("tokens", tokens)], 10, 100, label)
        rows.append(C.contender_row(label, res, errs, flops) + C.cpu_cells(res))
    load1 = os.getloadavg()
    C.table("LLaMA-style prefill (bench/prefill): hidden 512, 8 heads (2 KV), FFN 1408, "
            "2 layers", C.CONTENDER_HEADER + C.CPU_HEADER, rows, os.path.join(outd, "tables.md"),
            C.contender_notes() + [C.cpu_note(), "100 calls per round. " + C.load_note(load0, load1),
                                   "Target: at least 1.5x ONNX Runtime."])


if __name__ == "__main__":
    main()
