#!/usr/bin/env python3
"""Super kernels: a scope of 64 small ops (float32[16] elementwise: add,
mul, sub, relu in turn) built with torchair.scope.super_kernel around them
(one segment function, dispatched once) vs the same ops without the scope
(64 kernel calls, each traced and dispatched on its own); PyTorch eager for
scale.

On the CPU a dispatch is a function call (bench/dispatch: ~9 ns), so the
scope saves little here; on an NPU each dispatch is a kernel launch.

usage: /usr/bin/python3 bench/super_kernel/bench.py TNGC [OUT_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

OPS = ("x = x + y", "x = x * y", "x = x - y", "x = torch.relu(x)")


def source(scope):
    body = "".join("        %s%s\n" % ("    " if scope else "", OPS[i % 4]) for i in range(64))
    head = '        with tng.scope.super_kernel("sk64", ""):\n' if scope else ""
    return ("import torch, torch_npu, torchair as tng\n"
            "class Model(torch.nn.Module):\n"
            "    def forward(self, x, y):\n" + head + body +
            "        return x\n"
            "model = torch.compile(Model(), backend=tng.get_npu_backend(), fullgraph=True)\n"
            "model(torch.ones(16), torch.ones(16))\n")


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    g = torch.Generator().manual_seed(0)
    x = torch.rand(16, generator=g) + 0.5
    y = torch.rand(16, generator=g) * 0.01 + 1.0
    args = C.save_inputs(os.path.join(tmp, "in"), [("x", x), ("y", y)])
    exes = {}
    for tag, scope in (("scope", True), ("plain", False)):
        src = source(scope)
        path = os.path.join(tmp, "sk_%s.py" % tag)
        with open(path, "w") as f:
            f.write(src)
        C.build(tngc, path, os.path.join(tmp, tag))
        exes[tag] = C.launcher(os.path.join(tmp, tag))
        with open(os.path.join(tmp, tag, "sk_%s.c" % tag)) as f:
            segs = f.read().count("static int g0_seg")
        if (segs == 1) != scope:
            C.die("sk_%s: %d segment functions, expected %d" % (tag, segs, int(scope)))
        ns = {"__name__": "tngc_bench"}
        exec(compile(src.rsplit("model(", 1)[0], path, "exec"), ns)
        model = ns["model"]
    ref = model(x, y)
    out = os.path.join(tmp, "o")

    def measure():
        r = {tag: C.run_launcher(exe, args, out + tag, 100, 3000) for tag, exe in exes.items()}
        r["eager"] = C.time_torch(lambda: model(x, y), 20, 3000)
        return r
    r = C.rounds(measure)
    for tag in exes:
        err = C.max_rel_err(ref, os.path.join(out + tag, "out0.npy"))
        if err > 1e-5:
            C.die("%s: the bundle's result differs from PyTorch's (rel err %.2g)" % (tag, err))
    C.table("Super kernels: 64 small ops in one scope",
            ["", "bundle, super_kernel scope (1 dispatch)", "bundle, no scope (64 dispatches)",
             "no scope / scope", "PyTorch eager"],
            [["64 ops on float32[16]", C.fmt_us(r["scope"]), C.fmt_us(r["plain"]),
              "%.2fx" % (r["plain"] / r["scope"]), C.fmt_us(r["eager"])]],
            os.path.join(outd, "tables.md"), ["Medians of %d rounds of 3000 runs." % C.ROUNDS])


if __name__ == "__main__":
    main()
