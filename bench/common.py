"""Shared helpers of the benchmarks that compare bundles with PyTorch.

Every benchmark measures, in one run and on the same inputs:
  bundle       the bundle's launcher (tngc build), its p50 over --iters runs
               after --warmup runs (the launcher times tngrt_bundle_run only:
               no process start, no file IO)
  eager        the same nn.Module called from Python under torch.no_grad()
  torchscript  torch.jit.trace + torch.jit.freeze of the same module
and prints a markdown table of medians with the ratios. The measurement is
repeated ROUNDS times, alternating the contenders, and the median of the
rounds' medians is reported, so that a burst of load on a shared machine
hits one round of one contender, not the result.

Runs under Debian's Python (/usr/bin/python3, python3-torch 1.13) with the
stand-in torch_npu / torchair modules of tests/ref/stubs on sys.path.
"""
import atexit
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUBS = os.path.join(ROOT, "tests", "ref", "stubs")
sys.path.insert(0, STUBS)
sys.path.insert(0, os.path.join(ROOT, "tests", "ref"))

import numpy as np      # noqa: E402
import torch            # noqa: E402
import _tngc_ref        # noqa: E402

_tngc_ref.install()
import harness          # noqa: E402  (write_safetensors)

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))


def die(msg):
    sys.stderr.write("bench: %s\n" % msg)
    sys.exit(1)


def tngc_path():
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        die("usage: %s TNGC [OUT_DIR]" % sys.argv[0])
    return os.path.abspath(sys.argv[1])


def out_dir():
    """Where a benchmark leaves its tables (sys.argv[2], default build/bench)."""
    d = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "bench")
    os.makedirs(d, exist_ok=True)
    return d


def workdir():
    """A temporary folder, removed when the benchmark exits."""
    d = tempfile.mkdtemp(prefix="tngc-bench.")
    atexit.register(shutil.rmtree, d, True)
    return d


def build(tngc, script, out, extra=()):
    """tngc build SCRIPT -o OUT --no-cache; returns the wall time in s."""
    t0 = time.perf_counter()
    r = subprocess.run([tngc, "build", script, "-o", out, "--no-cache"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        die("tngc build %s failed:\n%s" % (script, r.stdout))
    return dt


def launcher(bundle_dir):
    names = [f for f in os.listdir(bundle_dir) if f.endswith("_launcher")]
    if len(names) != 1:
        die("%s: expected one launcher, found %s" % (bundle_dir, names))
    return os.path.join(bundle_dir, names[0])


def save_inputs(d, named):
    """named: [(name, tensor)] -> [--input args]; files in d."""
    os.makedirs(d, exist_ok=True)
    args = []
    for name, t in named:
        path = os.path.join(d, re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".npy")
        np.save(path, t.detach().contiguous().numpy())
        args += ["--input", "%s=%s" % (name, path)]
    return args


def save_weights(d, module):
    """The module's state_dict as d/weights.safetensors -> [--weights args]."""
    sd = [(k, v.detach().contiguous()) for k, v in module.state_dict().items()]
    if not sd:
        return []
    path = os.path.join(d, "weights.safetensors")
    harness.write_safetensors(torch, path, sd)
    return ["--weights", path]


_LAT = re.compile(r"^latency: p50 ([0-9.]+) us")


# PyTorch's OpenBLAS and OpenMP threads in this process keep spinning for
# a while after a call (OpenBLAS: about 2^28 cycles); a launcher started in
# that time shares its cores with them. Measured: the bmm case of
# bench/matmul took 3.9 ms right after eager calls, 2.6 ms after a pause.
SETTLE_S = 0.3


def run_launcher(exe, args, out, warmup, iters, env=None):
    """Runs the launcher; returns its p50 in us (outputs written to out)."""
    os.makedirs(out, exist_ok=True)
    time.sleep(SETTLE_S)
    r = subprocess.run([exe] + args + ["--out-dir", out, "--warmup", str(warmup),
                                       "--iters", str(iters)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env)
    if r.returncode != 0:
        die("%s failed (%d):\n%s" % (exe, r.returncode, r.stdout))
    for line in r.stdout.splitlines():
        m = _LAT.match(line)
        if m:
            return float(m.group(1))
    die("%s printed no latency line:\n%s" % (exe, r.stdout))


def time_torch(fn, warmup, iters):
    """Median wall time of fn() in us, after warmup calls, under no_grad."""
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        ts = []
        for _ in range(iters):
            t0 = time.perf_counter_ns()
            fn()
            ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts) / 1000.0


def torchscript(module, example):
    """torch.jit.trace + freeze of module on the example arguments (a tuple)."""
    with torch.no_grad():
        traced = torch.jit.trace(module.eval(), example, check_trace=False)
        return torch.jit.freeze(traced)


def rounds(measure):
    """measure() -> dict of name -> us; returns the per-name median over
    ROUNDS calls."""
    acc = {}
    for _ in range(ROUNDS):
        for k, v in measure().items():
            acc.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in acc.items()}


def max_rel_err(expected, path):
    """Max |a - e| / max(|e|) of a launcher output against a torch tensor."""
    a = np.load(path).astype(np.float64)
    e = expected.detach().double().numpy()
    if a.shape != e.shape:
        die("%s: shape %s, PyTorch's %s" % (path, a.shape, e.shape))
    scale = max(np.abs(e).max(), 1e-30)
    return float(np.abs(a - e).max() / scale)


def fmt_us(us):
    if us >= 10000:
        return "%.1f ms" % (us / 1000)
    if us >= 100:
        return "%.0f us" % us
    return "%.2f us" % us if us < 10 else "%.1f us" % us


def table(title, header, rows, path=None, notes=()):
    """Prints a markdown table (and appends it to path)."""
    lines = ["### " + title, "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    for n in notes:
        lines += ["", n]
    text = "\n".join(lines) + "\n"
    print(text)
    sys.stdout.flush()
    if path:
        with open(path, "a") as f:
            f.write(text + "\n")


def machine():
    """One line about the machine the benchmarks ran on."""
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, PyTorch %s (%d intra-op threads by default)" % (
        model, os.cpu_count() or 0, torch.__version__, torch.get_num_threads())
