#!/usr/bin/env python3
"""Large matmul-bound shapes (hidden 2048): bundle vs PyTorch eager, and
GFLOP/s against the machine's measured peak.

The peak is measured by bench/matmul/peak.c (compiled here with clang):
every core runs independent fused multiply-adds on registers with the
widest vector ISA the CPU has; it is the FMA throughput, an upper bound no
real matmul reaches (loads, packing).

PyTorch 1.13 here runs its CPU ops on torch.get_num_threads() threads (1 by
default on this machine), but its matmuls on OpenBLAS's threads, all cores
whatever torch.set_num_threads says (common.torch_blas). The bundle's
large products run in libtngcrt's GEMM on TNGRT_THREADS threads
(runtime/par.c; by default one per CPU). So both are timed with 1 thread
and with every core, PyTorch's torch and OpenBLAS threads set alike
(common.set_torch_threads), and a ratio is reported for each; the two
bundle runs must give the same bits.

usage: /usr/bin/python3 bench/matmul/bench.py TNGC [OUT_DIR]
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = "import torch, torch_npu, torchair as tng\nimport torch.nn.functional as F\n"
TAIL = "model = torch.compile(Model(), backend=tng.get_npu_backend(), fullgraph=True)\n"

# (label, source, inputs, flops)
CASES = [
    ("linear [512, 2048] x [2048, 2048]",
     "class Model(torch.nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.proj = torch.nn.Linear(2048, 2048, bias=False)\n"
     "    def forward(self, x):\n"
     "        return self.proj(x)\n",
     [("x", (512, 2048))], 2 * 512 * 2048 * 2048),
    ("MLP [128, 2048] -> 8192 (gelu) -> 2048",
     "class Model(torch.nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.up = torch.nn.Linear(2048, 8192)\n"
     "        self.down = torch.nn.Linear(8192, 2048)\n"
     "    def forward(self, x):\n"
     "        return self.down(F.gelu(self.up(x)))\n",
     [("x", (128, 2048))], 2 * 2 * 128 * 2048 * 8192),
    ("bmm [16, 256, 128] x [16, 128, 256] -> @ [16, 256, 128]",
     "class Model(torch.nn.Module):\n"
     "    def forward(self, q, k, v):\n"
     "        return torch.matmul(torch.matmul(q, k), v)\n",
     [("q", (16, 256, 128)), ("k", (16, 128, 256)), ("v", (16, 256, 128))],
     2 * 16 * 256 * 128 * 256 * 2),
]


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    cores = os.cpu_count() or 1
    peak_exe = os.path.join(tmp, "peak")
    subprocess.run(["clang", "-O2", "-pthread", "-o", peak_exe, os.path.join(HERE, "peak.c")],
                   check=True)
    peak_line = subprocess.run([peak_exe], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.strip()
    peak = float(peak_line.split(":")[1].split()[0])
    default_threads = torch.get_num_threads()
    blas = C.torch_blas()
    default_blas = blas.openblas_get_num_threads() if blas is not None else None
    g = torch.Generator().manual_seed(0)
    rows = []
    for i, (label, body, shapes, flops) in enumerate(CASES):
        inputs = [(n, torch.randn(s, generator=g)) for n, s in shapes]
        call = "model(" + ", ".join("torch.randn%s" % (s,) for _, s in shapes) + ")\n"
        src = HEAD + body + TAIL + call
        script = os.path.join(tmp, "mm%d.py" % i)
        with open(script, "w") as f:
            f.write(src)
        bdir = os.path.join(tmp, "b%d" % i)
        C.build(tngc, script, bdir)
        exe = C.launcher(bdir)
        ns = {"__name__": "tngc_bench"}
        torch.manual_seed(0)
        exec(compile(HEAD + body + TAIL, script, "exec"), ns)
        model = ns["model"].eval()
        os.makedirs(os.path.join(tmp, "w%d" % i))
        largs = C.save_inputs(os.path.join(tmp, "in%d" % i), inputs) + \
            C.save_weights(os.path.join(tmp, "w%d" % i), model)
        xs = [t for _, t in inputs]
        with torch.no_grad():
            ref = model(*xs)
        out = os.path.join(tmp, "o%d" % i)

        def eager(threads):
            C.set_torch_threads(threads)
            try:
                return C.time_torch(lambda: model(*xs), 2, 15)
            finally:
                torch.set_num_threads(default_threads)
                if blas is not None:
                    blas.openblas_set_num_threads(default_blas)

        out_all = out + "_all"
        # The launchers run 20 warm-up calls: OpenBLAS's threads, started
        # when the process loads it, poll with sched_yield for about 0.1 s
        # (a process that only links OpenBLAS uses 0.107 s of CPU in its
        # first 0.2 s here), on the cores the bundle's threads need.
        env_all = dict(os.environ, TNGRT_THREADS=str(cores))

        def measure():
            return {"bundle_one": C.run_launcher(exe, largs, out, 20, 15,
                                                 env=dict(os.environ, TNGRT_THREADS="1")),
                    "bundle_all": C.run_launcher(exe, largs, out_all, 20, 15, env=env_all),
                    "eager_one": eager(1),
                    "eager_all": eager(cores)}
        r = C.rounds(measure)
        err = C.max_rel_err(ref, os.path.join(out, "out0.npy"))
        if err > 1e-4:
            C.die("%s: the bundle's result differs from PyTorch's (rel err %.2g)" % (label, err))
        with open(os.path.join(out, "out0.npy"), "rb") as f1, \
                open(os.path.join(out_all, "out0.npy"), "rb") as f2:
            if f1.read() != f2.read():
                C.die("%s: the bundle's result differs between 1 and %d threads" % (label, cores))
        gf = lambda us: flops / (us * 1e-6) / 1e9    # noqa: E731
        rows.append([label, "%.2f" % (flops / 1e9),
                     C.fmt_us(r["bundle_one"]), C.fmt_us(r["eager_one"]),
                     "**%.2f**" % (r["eager_one"] / r["bundle_one"]),
                     C.fmt_us(r["bundle_all"]), C.fmt_us(r["eager_all"]),
                     "**%.2f**" % (r["eager_all"] / r["bundle_all"]),
                     "%.0f (%.0f%%)" % (gf(r["bundle_all"]), 100 * gf(r["bundle_all"]) / peak),
                     "%.0f" % gf(r["eager_all"]), "%.1e" % err])
    C.table("Large matmul-bound shapes (float32)",
            ["", "GFLOP", "bundle, 1 thread", "eager, 1 thread", "eager / bundle",
             "bundle, %d threads" % cores, "eager, %d threads" % cores, "eager / bundle",
             "bundle GFLOP/s, %d threads (of peak)" % cores, "eager GFLOP/s", "max rel err"],
            rows, os.path.join(outd, "tables.md"),
            ["Measured peak: %s, from bench/matmul/peak.c (FMA throughput on registers, "
             "every core). Medians of %d rounds of 15 calls. Bundle threads: TNGRT_THREADS; "
             "its outputs at 1 and %d threads are checked to be the same bits. Eager's "
             "threads: torch's and OpenBLAS's (%s). Target: ratio >= 0.95."
             % (peak_line.split(": ", 1)[1], C.ROUNDS, cores,
                "set alike" if blas is not None else "OpenBLAS not found: torch's only")])


if __name__ == "__main__":
    main()
