#!/usr/bin/env python3
"""Scale: 1 GiB of weights. A model of four 8192 x 8192
float32 Linears (no bias; 4 x 256 MiB in one safetensors file) at batch 1:
decode is a chain of GEMVs, bound by reading the weights from memory.

In each round, alternating:
readbw       bench/scale/readbw.c: one read of the weights file in 1 MiB
             chunks (page cache warm, median of 7), and the memory read
             bandwidth (a C loop summing the file mapped read-only, as the
             bundle reads its weights: the same memory; median of 7, as
             the launcher's p50)
launcher     the bundle's launcher with --stats: tngrt_bundle_load_weights's
             time (the file mapped, checked, and the weights read in place
             faulted in), the first run's time (no page faults left for it:
             it should be a run like the others), the process's peak RSS
             (VmHWM) after the runs, and the p50 of a run; GEMV GB/s = the
             weights' bytes / p50

Targets: peak RSS <= 1.1 x the weights, load <= 1.5 x one read of the
file, GEMV >= 80% of the read bandwidth. The weights file is written to
OUT/scale/ and removed at the end (BENCH_KEEP=1 keeps it).

usage: /usr/bin/python3 bench/scale/bench.py TNGC [OUT_DIR]
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import np, torch, harness    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
D = 8192
LAYERS = 4
SRC = ("import torch, torch_npu, torchair as tng\n"
       "class Model(torch.nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.l0 = torch.nn.Linear(%d, %d, bias=False)\n"
       "        self.l1 = torch.nn.Linear(%d, %d, bias=False)\n"
       "        self.l2 = torch.nn.Linear(%d, %d, bias=False)\n"
       "        self.l3 = torch.nn.Linear(%d, %d, bias=False)\n"
       "    def forward(self, x):\n"
       "        return self.l3(self.l2(self.l1(self.l0(x))))\n"
       "model = torch.compile(Model(), backend=tng.get_npu_backend(), fullgraph=True)\n"
       "model(torch.randn(1, %d))\n") % ((D,) * 9)


def num(pattern, text, what):
    m = re.search(pattern, text)
    if not m:
        C.die("%s: no '%s' in:\n%s" % (what, pattern, text))
    return float(m.group(1))


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    wdir = os.path.join(outd, "scale")
    os.makedirs(wdir, exist_ok=True)
    free = shutil.disk_usage(wdir).free
    if free < 3 << 30:
        C.die("%s: %.1f GiB free, the benchmark needs 3" % (wdir, free / (1 << 30)))
    script = os.path.join(tmp, "scale.py")
    with open(script, "w") as f:
        f.write(SRC)
    C.build(tngc, script, os.path.join(tmp, "b"))
    exe = C.launcher(os.path.join(tmp, "b"))
    readbw = os.path.join(tmp, "readbw")
    subprocess.run(["clang", "-O2", "-march=native", "-o", readbw,
                    os.path.join(HERE, "readbw.c")], check=True)

    g = torch.Generator().manual_seed(0)
    ws = [torch.randn(D, D, generator=g) * (1.0 / D ** 0.5) for _ in range(LAYERS)]
    weights = os.path.join(wdir, "weights.safetensors")
    try:
        harness.write_safetensors(torch, weights,
                                  [("l%d.weight" % i, w) for i, w in enumerate(ws)])
        wbytes = os.path.getsize(weights)
        x = torch.randn(1, D, generator=g)
        ref = x
        with torch.no_grad():
            for w in ws:
                ref = ref @ w.t()
        del ws
        args = ["--weights", weights, "--stats"] + C.save_inputs(os.path.join(tmp, "in"),
                                                                   [("x", x)])
        out = os.path.join(tmp, "out")

        def measure():
            r = subprocess.run([readbw, weights], stdout=subprocess.PIPE, text=True,
                               check=True).stdout
            res = {"read_ms": num(r"read: ([0-9.]+) ms", r, "readbw"),
                   "bw": num(r"bandwidth: ([0-9.]+) GB/s", r, "readbw")}
            p = subprocess.run([exe] + args + ["--out-dir", out, "--warmup", "2",
                                               "--iters", "10"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                C.die("%s failed (%d):\n%s" % (exe, p.returncode, p.stdout))
            res["load_ms"] = num(r"load: ([0-9.]+) ms", p.stdout, "launcher")
            res["first_ms"] = num(r"first run ([0-9.]+) ms", p.stdout, "launcher")
            res["rss_mib"] = num(r"peak RSS ([0-9.]+) MiB", p.stdout, "launcher")
            res["p50_us"] = num(r"latency: p50 ([0-9.]+) us", p.stdout, "launcher")
            return res

        r = C.rounds(measure)
        err = C.max_rel_err(ref, os.path.join(out, "out0.npy"))
        if err > 1e-4:
            C.die("bundle output differs from PyTorch's: max rel err %.2e" % err)
    finally:
        if os.environ.get("BENCH_KEEP") != "1" and os.path.exists(weights):
            os.remove(weights)
    wmib = wbytes / 1048576.0
    gemv = wbytes / (r["p50_us"] * 1e-6) / 1e9
    rows = [["4 x Linear 8192x8192 f32, batch 1 (%.0f MiB)" % wmib,
             "%.0f ms" % r["read_ms"], "%.0f ms (%.2fx)" % (r["load_ms"],
                                                            r["load_ms"] / r["read_ms"]),
             "%.0f MiB (%.2fx)" % (r["rss_mib"], r["rss_mib"] / wmib),
             "%.0f ms" % r["first_ms"],
             "%s = %.1f GB/s" % (C.fmt_us(r["p50_us"]), gemv),
             "%.1f GB/s (%.0f%%)" % (r["bw"], 100.0 * gemv / r["bw"])]]
    C.table("Weights at scale (1 GiB safetensors, %d rounds, medians)" % C.ROUNDS,
            ["model", "one read of the file", "launcher's load", "peak RSS (x weights)",
             "first run", "batch-1 run p50 (GEMV)", "read bandwidth (GEMV %)"], rows,
            os.path.join(outd, "tables.md"),
            notes=["Targets: load <= 1.5x one read, peak RSS <= 1.1x the weights, GEMV >= "
                   "80%% of the read bandwidth. Outputs match PyTorch (max rel err %.1e)." % err])


if __name__ == "__main__":
    main()
