#!/usr/bin/env python3
"""A DeepSeek-style MoE block (bench/moe/model.py over
examples/moe/modeling.py: router, top-2 of 8 experts, one shared expert on
a second stream; hidden 512, expert FFN 256) on 16 and 64 tokens, one
bundle per token count: tngc vs ONNX Runtime (1 intra-op thread) vs
PyTorch eager vs TorchScript, every contender's output checked against
PyTorch's, the load average before and after.

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
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    shutil.copy(MODELING, os.path.join(tmp, "modeling.py"))
    sys.path.insert(0, tmp)
    import modeling    # noqa: E402  (the copy: the script's own import)
    with open(os.path.join(HERE, "model.py")) as f:
        src = f.read()
    g = torch.Generator().manual_seed(1)
    rows = []
    load0 = os.getloadavg()
    for tokens in TOKENS:
        script = os.path.join(tmp, "moe%d.py" % tokens)
        with open(script, "w") as f:
            f.write(C.sized_source(src, TOKENS=tokens))
        ns = {"__name__": "tngc_bench"}
        with open(script) as f:
            exec(compile(f.read(), script, "exec"), ns)

        def make():
            torch.manual_seed(0)
            return modeling.DeepseekMoE(ns["config"]).eval()
        x = torch.randn(tokens, ns["HIDDEN"], generator=g)
        label = "MoE, %d tokens" % tokens
        res, errs, flops = C.module_case(tngc, tmp, "m%d" % tokens, script, make,
                                         [("hidden_states", x)], 20, 300, label)
        rows.append(C.contender_row(label, res, errs, flops) + C.cpu_cells(res))
    load1 = os.getloadavg()
    C.table("MoE block (bench/moe): hidden 512, top-2 of 8 experts of FFN 256, a shared "
            "expert on a second stream", C.CONTENDER_HEADER + C.CPU_HEADER, rows,
            os.path.join(outd, "tables.md"),
            C.contender_notes() + [C.cpu_note(), "300 calls per round. " + C.load_note(load0, load1),
                                   "Target: at least 1.5x ONNX Runtime."])


if __name__ == "__main__":
    main()
