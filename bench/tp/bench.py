#!/usr/bin/env python3
"""Tensor parallel: examples/tp_llama built for 1 rank (no --world-size: the
unsharded model, one process), 2 and 4 ranks (--world-size N, run under
mpirun -np N), each at its two prompt gears (4 and 8 tokens).

Reported per rank count and gear: the launcher's p50 of one forward
(tngrt_bundle_run alone; under mpirun the slowest rank's p50, every rank
timing its own runs, which the collectives keep in step), that p50 divided
by the tokens of the prompt (tp_llama has no KV cache: a forward over S
tokens, not a decode step of one token against a cache), and the bytes
each rank moves per token by the plan's count (tngc plan --format json:
the sum over the entry's collectives of bytes in + bytes out, per rank,
the algorithm-independent count of docs/plan-format.md, divided by S).
Every rank's logits are checked against PyTorch's unsharded model
(reference.py) at the tolerance of examples/tp_llama/compare.py.

The ranks are processes on this machine: with 4 ranks on 2 cores they are
oversubscribed (mpirun --oversubscribe), so 2 and 4 ranks measure MPI's
and the executor's overheads on shared cores, not a speed-up; the load
average before and after is printed with the table. Each rank runs its
large products on one thread (TNGRT_THREADS=1).

usage: /usr/bin/python3 bench/tp/bench.py TNGC [OUT_DIR]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import np    # noqa: E402

ROOT = C.ROOT
EXAMPLE = os.path.join(ROOT, "examples", "tp_llama")
PY = "/usr/bin/python3"
GEARS = (4, 8)
RANKS = (1, 2, 4)
WARMUP, ITERS = 20, 200
_LAT = re.compile(r"^latency: p50 ([0-9.]+) us", re.M)


def mpirun():
    cmd = ["mpirun", "--oversubscribe", "-x", "TNGRT_THREADS"]
    if os.getuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def build(tngc, d, n):
    out = os.path.join(d, "np%d" % n)
    extra = ["--world-size", str(n)] if n > 1 else []
    C.build(tngc, os.path.join(d, "run.py"), out, extra)
    return C.launcher(out)


def reference(d):
    """reference.py's shards and logits, and the whole model as np1/rank0.pt."""
    r = subprocess.run([PY, "reference.py", "sample"], cwd=d, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        C.die("reference.py failed:\n" + r.stdout)
    os.makedirs(os.path.join(d, "sample", "np1"), exist_ok=True)
    code = ("import torch\nfrom modeling import TPConfig, TPLlama\ntorch.manual_seed(0)\n"
            "torch.save(TPLlama(TPConfig()).eval().state_dict(), 'sample/np1/rank0.pt')\n")
    r = subprocess.run([PY, "-c", code], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        C.die("the unsharded weights:\n" + r.stdout)


def plan_bytes(tngc, d, n):
    """Per gear: bytes in + out per rank of rank 0's collectives (0 for 1 rank)."""
    if n == 1:
        return [0] * len(GEARS)
    r = subprocess.run([tngc, "plan", "--format", "json", "--world-size", str(n), "run.py"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        C.die("tngc plan --world-size %d failed:\n%s" % (n, r.stderr))
    entry = json.loads(r.stdout)["entries"][0]
    total = [0] * len(GEARS)
    for c in entry.get("collectives", []):
        for g in range(len(GEARS)):
            total[g] += c["bytes_in"][g] + c["bytes_out"][g]
    return total


def run(d, exe, n, s):
    """p50 (us) of the slowest rank; every rank's logits checked."""
    out = os.path.join(d, "out", "np%d" % n, "s%d" % s)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)   # the launcher makes r<k> only
    args = [exe, "--weights", "sample/np%d/rank{rank}.pt" % n, "--input", "input_ids=sample/ids%d.npy" % s,
            "--out-dir", out + "/r{rank}", "--warmup", str(WARMUP), "--iters", str(ITERS)]
    env = dict(os.environ, TNGRT_THREADS="1")
    time.sleep(C.SETTLE_S)
    if n == 1:
        args = [a.replace("{rank}", "0") for a in args]
        cmd = args
    else:
        cmd = mpirun() + ["-np", str(n)] + args
    r = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                       timeout=600)
    if r.returncode != 0:
        C.die("%s failed (%d):\n%s" % (" ".join(cmd[:4]), r.returncode, r.stdout[-3000:]))
    lat = [float(x) for x in _LAT.findall(r.stdout)]
    if len(lat) != n:
        C.die("%d ranks printed %d latency lines:\n%s" % (n, len(lat), r.stdout[-3000:]))
    ref = np.load(os.path.join(d, "sample", "ref%d.npy" % s))
    for k in range(n):
        got = np.load(os.path.join(out, "r%d" % k, "out0.npy"))
        if got.shape != ref.shape or not np.all(np.abs(got - ref) <= 1e-4 + 1e-4 * np.abs(ref)):
            C.die("np %d S %d rank %d: logits differ from PyTorch's" % (n, s, k))
    return max(lat)


def main():
    tngc = C.tngc_path()
    out_dir = C.out_dir()
    if shutil.which("mpirun") is None:
        C.die("no mpirun (scripts/deps.sh installs libopenmpi-dev)")
    d = os.path.join(C.workdir(), "tp")
    shutil.copytree(EXAMPLE, d, ignore=shutil.ignore_patterns("tngc-out", "sample"))
    load0 = os.getloadavg()
    reference(d)
    exes = {n: build(tngc, d, n) for n in RANKS}
    moved = {n: plan_bytes(tngc, d, n) for n in RANKS}

    def measure():
        return {(n, s): run(d, exes[n], n, s) for n in RANKS for s in GEARS}

    med = C.rounds(measure)
    load1 = os.getloadavg()
    rows = []
    for n in RANKS:
        for g, s in enumerate(GEARS):
            us = med[(n, s)]
            rows.append([n, s, C.fmt_us(us), C.fmt_us(us / s), "%.2fx" % (us / med[(1, s)]),
                         "%d" % (moved[n][g] // s), "0" if n == 1 else "%d" % moved[n][g]])
    notes = [
        "One forward of examples/tp_llama over a prompt of S tokens (no KV cache), p50 of %d runs after %d "
        "warm-up runs, the slowest rank's, median of %d rounds; logits of every rank checked against PyTorch "
        "(atol 1e-4 + rtol 1e-4). Bytes: per rank, the plan's algorithm-independent count (each collective's "
        "input in + result out). %d cores: 2 and 4 ranks share them (mpirun --oversubscribe), so these "
        "figures are the cost of sharding on shared cores, not a speed-up. Load average before %.2f, "
        "after %.2f." % (ITERS, WARMUP, C.ROUNDS, os.cpu_count() or 0, load0[0], load1[0]),
    ]
    C.table("Tensor parallel: examples/tp_llama on 1, 2 and 4 ranks (MPI, one host)",
            ["ranks", "S", "bundle p50", "per token", "vs 1 rank", "bytes/token/rank", "bytes/forward/rank"],
            rows, os.path.join(out_dir, "tables.md"), notes)


if __name__ == "__main__":
    main()
