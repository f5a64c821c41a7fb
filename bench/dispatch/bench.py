#!/usr/bin/env python3
"""Per-op dispatch: a chain of N tiny elementwise ops (x = x + y on
float32[8]) in one compiled forward, N = 10, 100, 1000, as one bundle run vs
one PyTorch eager call vs one TorchScript (trace + freeze) call.

The per-op cost is the slope (t(1000) - t(10)) / 990, so the fixed cost of
a call (Python's, the launcher's timer) cancels out.

usage: /usr/bin/python3 bench/dispatch/bench.py TNGC [OUT_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

NS = (10, 100, 1000)


def source(n):
    body = "".join("        x = x + y\n" for _ in range(n))
    return ("import torch, torch_npu, torchair as tng\n"
            "class Model(torch.nn.Module):\n"
            "    def forward(self, x, y):\n" + body +
            "        return x\n"
            "model = torch.compile(Model(), backend=tng.get_npu_backend(), fullgraph=True)\n"
            "model(torch.ones(8), torch.ones(8))\n")


def main():
    tngc = C.tngc_path()
    out = C.out_dir()
    tmp = C.workdir()
    x = torch.randn(8)
    y = torch.randn(8)
    args = C.save_inputs(os.path.join(tmp, "in"), [("x", x), ("y", y)])
    res = {}
    for n in NS:
        src = source(n)
        script = os.path.join(tmp, "chain%d.py" % n)
        with open(script, "w") as f:
            f.write(src)
        C.build(tngc, script, os.path.join(tmp, "b%d" % n))
        exe = C.launcher(os.path.join(tmp, "b%d" % n))
        ns = {"__name__": "bench_chain"}
        exec(compile(src, script, "exec"), ns)
        model = ns["model"]
        ts = C.torchscript(model, (x, y))
        ref = model(x, y)
        o = os.path.join(tmp, "o%d" % n)
        iters = 2000 if n < 1000 else 500

        def measure():
            return {"bundle": C.run_launcher(exe, args, o, 100, iters),
                    "eager": C.time_torch(lambda: model(x, y), 20, iters),
                    "torchscript": C.time_torch(lambda: ts(x, y), 20, iters)}
        res[n] = C.rounds(measure)
        err = C.max_rel_err(ref, os.path.join(o, "out0.npy"))
        if err > 1e-5:
            C.die("chain %d: the bundle's result differs from PyTorch's (rel err %.2g)" % (n, err))
    rows = []
    for n in NS:
        r = res[n]
        rows.append(["chain of %d adds, one call" % n, C.fmt_us(r["bundle"]), C.fmt_us(r["eager"]),
                     C.fmt_us(r["torchscript"]), "%.0fx" % (r["eager"] / r["bundle"]),
                     "%.0fx" % (r["torchscript"] / r["bundle"])])
    per = {k: (res[1000][k] - res[10][k]) * 1000 / 990 for k in ("bundle", "eager", "torchscript")}
    rows.append(["per op: (t(1000) - t(10)) / 990", "%.1f ns" % per["bundle"], "%.0f ns" % per["eager"],
                 "%.0f ns" % per["torchscript"], "**%.0fx**" % (per["eager"] / per["bundle"]),
                 "%.0fx" % (per["torchscript"] / per["bundle"])])
    C.table("Per-op dispatch (float32[8] adds)",
            ["", "bundle", "PyTorch eager", "TorchScript", "eager / bundle", "TorchScript / bundle"],
            rows, os.path.join(out, "tables.md"),
            ["Medians of %d rounds; each round is the median of 500-2000 calls. "
             "Target: per-op dispatch at least 20x cheaper than eager." % C.ROUNDS])


if __name__ == "__main__":
    main()
