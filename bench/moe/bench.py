#!/usr/bin/env python3
"""A DeepSeek-style MoE block (bench/moe/model.py over
examples/moe/modeling.py: router, top-2 of 8 experts, one shared expert on
a second stream; hidden 512, expert FFN 256) on 16 and 64 tokens, one
bundle per token count: tngc vs ONNX Runtime (1 intra-op thread) vs
PyTorch eager vs TorchScript, every contender's output checked against
PyTorch's, the CPU time per run of tngc and ORT, the load average before
and after.

usage: /usr/bin/python3 bench/moe/bench.py TNGC [OUT_DIR]
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELING = os.path.join(C.ROOT, "examples", "moe", "modeling.py")
TOKENS = (16, 64)


def main():
    C.tngc_path()
    tmp = C.workdir()
    shutil.copy(MODELING, os.path.join(tmp, "modeling.py"))
    sys.path.insert(0, tmp)   # the scripts' own `from modeling import ...`
    with open(os.path.join(HERE, "model.py")) as f:
        src = f.read()
    g = torch.Generator().manual_seed(1)
    cases = []
    for tokens in TOKENS:
        script, ns = C.sized_script(tmp, src, "moe%d" % tokens, TOKENS=tokens)

        def make(ns=ns):
            torch.manual_seed(0)
            return ns["DeepseekMoE"](ns["config"]).eval()
        x = torch.randn(tokens, ns["HIDDEN"], generator=g)
        cases.append(("MoE, %d tokens" % tokens, "m%d" % tokens, script, make,
                      [("hidden_states", x)]))
    C.model_table("MoE block (bench/moe): hidden 512, top-2 of 8 experts of FFN 256, a shared "
                  "expert on a second stream", cases, 20, 300,
                  "Target: at least 1.5x ONNX Runtime.")


if __name__ == "__main__":
    main()
