"""Shared helpers of the benchmarks that compare bundles with PyTorch.

Every benchmark measures, in one run and on the same inputs:
  bundle       the bundle's launcher (tngc build), its p50 over --iters runs
               after --warmup runs (the launcher times tngrt_bundle_run only:
               no process start, no file IO)
  eager        the same nn.Module called from Python under torch.no_grad()
  torchscript  torch.jit.trace + torch.jit.freeze of the same module
  ort          ONNX Runtime: the module exported with torch.onnx.export
               (opset OPSET), run by bench/ort/ort_bench.c through ORT's C
               API (1 intra-op thread, graph optimisation "all", inputs
               and preallocated outputs bound once with IO binding), its
               p50 over --iters runs of RunWithBinding; when ORT is
               installed (make bench-deps); bench/README.md, "ONNX Runtime
               setup", says why each option is set
and prints a markdown table of medians with the ratios. The measurement is
repeated ROUNDS times, alternating the contenders, and the median of the
rounds' medians is reported, so that a burst of load on a shared machine
hits one round of one contender, not the result.

Runs under Debian's Python (/usr/bin/python3, python3-torch 1.13) with the
stand-in torch_npu / torchair modules of tests/ref/stubs on sys.path. The
stand-ins also wrap many torch functions (half-precision fallbacks for the
conformance references); those wrappers are removed here, so that eager's
figure (and every reference) is PyTorch's own.
"""
import atexit
import os
import platform
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


def _unwrap_torch():
    """Puts back every torch function the stand-ins wrapped (those carry
    _tngc_ref_orig); returns how many were unwrapped. The stand-ins' other
    additions (Tensor.npu, torch.compile, torch_npu, torchair) stay."""
    n = 0
    for ns in (torch, torch.nn.functional, torch.Tensor):
        for name, v in list(vars(ns).items()):
            # a wrapper is a plain function carrying the original in its
            # __dict__ (getattr would make torch.ops invent a namespace)
            d = getattr(v, "__dict__", None)
            orig = d.get("_tngc_ref_orig") if isinstance(d, dict) else None
            if orig is not None:
                setattr(ns, name, orig)
                n += 1
    return n


UNWRAPPED = _unwrap_torch()

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


# CPU seconds (user + sys) of the last run_launcher's process, per run
# (process start and file IO included: compare launchers of one model).
LAST_CPU_US = [0.0]


def run_launcher(exe, args, out, warmup, iters, env=None):
    """Runs the launcher; returns its p50 in us (outputs written to out).

    The bundle's large products run on TNGRT_THREADS threads (runtime/par.c,
    by default one per CPU); here it is 1 unless env (or the environment)
    sets it, since the peers are timed with 1 intra-op thread."""
    import resource
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ if env is None else env)
    env.setdefault("TNGRT_THREADS", "1")
    time.sleep(SETTLE_S)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([exe] + args + ["--out-dir", out, "--warmup", str(warmup),
                                       "--iters", str(iters)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU_US[0] = ((ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)) * 1e6 \
        / (warmup + iters)
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


def torch_blas():
    """The OpenBLAS this process's PyTorch loaded (ctypes handle), or None.

    torch.set_num_threads does not reach it: PyTorch 1.13 here calls
    OpenBLAS, which runs large products on its own threads (measured: a
    [512, 2048] x [2048, 2048] Linear kept 1.99 cores busy with
    torch.set_num_threads(1)). The library is found among the mapped files
    and opened again by path, which gives the same instance."""
    import ctypes
    torch.mm(torch.ones(2, 2), torch.ones(2, 2))   # loaded by now
    with open("/proc/self/maps") as f:
        paths = sorted({ln.split()[-1] for ln in f if "blas" in ln and ".so" in ln})
    for p in paths:
        try:
            lib = ctypes.CDLL(p)
            lib.openblas_set_num_threads.argtypes = [ctypes.c_int]
            lib.openblas_get_num_threads.restype = ctypes.c_int
            return lib
        except (OSError, AttributeError):
            continue
    return None


def set_torch_threads(n):
    """torch.set_num_threads(n) and, where PyTorch's BLAS is OpenBLAS, its
    threads too, so that n threads means n for matmuls as well."""
    torch.set_num_threads(n)
    lib = torch_blas()
    if lib is not None:
        lib.openblas_set_num_threads(n)


def torchscript(module, example):
    """torch.jit.trace + freeze of module on the example arguments (a tuple)."""
    with torch.no_grad():
        traced = torch.jit.trace(module.eval(), example, check_trace=False)
        return torch.jit.freeze(traced)


def contenders(exe, largs, outs, onnx, fn, ts_fn, warmup, iters):
    """One round of the four contenders on one input: the launcher (its
    --input and --weights args largs), ORT on onnx (None: left out; its
    input the first --input), eager fn() and TorchScript ts_fn(); outputs
    of the first two written under outs["tngc"] and outs["ort"]. Returns
    name -> us, for rounds()."""
    r = {"tngc": run_launcher(exe, largs, outs["tngc"], warmup, iters)}
    if onnx:
        r["ort"] = run_ort(onnx, largs[:2], outs["ort"], warmup, iters)
    r["eager"] = time_torch(fn, warmup, iters)
    r["torchscript"] = time_torch(ts_fn, warmup, iters)
    return r


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
    return ("%s, %d cores, PyTorch %s (%d intra-op threads by default), ONNX Runtime %s, "
            "one core's peak %.0f GFLOP/s" % (
                model, os.cpu_count() or 0, torch.__version__, torch.get_num_threads(),
                ort_version(), one_core_peak()))


# ---- ONNX Runtime, FLOPs and the compute floor ----

# torch.onnx.export's opset: 17 is the highest PyTorch 1.13 supports.
OPSET = 17

_ORT_EXE = []


def ort_lib():
    """libonnxruntime.so.1 of the npm package that make bench-deps installs
    (bench/node_modules), or $ORT_LIB; None when neither exists."""
    lib = os.environ.get("ORT_LIB")
    if lib:
        return lib if os.path.exists(lib) else None
    arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    lib = os.path.join(ROOT, "bench", "node_modules", "onnxruntime-node", "bin", "napi-v6",
                       "linux", arch, "libonnxruntime.so.1")
    return lib if os.path.exists(lib) else None


def ort_harness():
    """bench/ort/ort_bench.c compiled once per process (None without ORT)."""
    if _ORT_EXE:
        return _ORT_EXE[0]
    exe = None
    if ort_lib() is not None:
        exe = os.path.join(workdir(), "ort_bench")
        r = subprocess.run([os.environ.get("CC", "cc"), "-O2", "-std=c11", "-o", exe,
                            os.path.join(ROOT, "bench", "ort", "ort_bench.c"), "-ldl"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            die("cannot compile bench/ort/ort_bench.c:\n" + r.stdout)
    else:
        sys.stderr.write("bench: ONNX Runtime not installed (make bench-deps): no ORT column\n")
    _ORT_EXE.append(exe)
    return exe


def export_onnx(module, args, path, input_names):
    """torch.onnx.export of module on args (a tuple; tensors or lists of
    tensors, flattened in order to input_names, the launcher's input names)
    at opset OPSET, constants folded. The module runs once: pass copies of
    anything it updates in place."""
    with torch.no_grad():
        torch.onnx.export(module.eval(), args, path, opset_version=OPSET,
                          input_names=list(input_names), do_constant_folding=True)
    return path


def run_ort(onnx, args, out, warmup, iters):
    """ORT's p50 in us over iters runs of the model (inputs: the launcher's
    --input args); outputs written to out as out0.npy..., as a launcher does."""
    return run_launcher(ort_harness(), ["--lib", ort_lib(), "--model", onnx] + args, out,
                        warmup, iters)


def matmul_flops(fn):
    """FLOPs of the matrix products fn() runs (2 M N K per mm, addmm, bmm,
    baddbmm, as PyTorch dispatches them; 2 x outputs x C_in/groups x window
    per convolution, as direct sums count them), counted with a dispatch
    mode. Elementwise work is left out: the floor it gives is a lower
    bound (a Winograd form does fewer products than it counts)."""
    from torch.utils._python_dispatch import TorchDispatchMode
    aten = torch.ops.aten
    total = [0]

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            pkt = getattr(func, "overloadpacket", None)
            if pkt in (aten.mm, aten.addmm, aten.bmm, aten.baddbmm):
                a = args[-2] if pkt in (aten.addmm, aten.baddbmm) else args[0]
                k = a.shape[-1]
                total[0] += 2 * out.numel() * k
            elif pkt == aten.convolution:
                w = args[1]
                total[0] += 2 * out.numel() * w.numel() // w.shape[0]
            return out
    with torch.no_grad(), Count():
        fn()
    return total[0]


_PEAK = []


def one_core_peak():
    """One core's measured float32 peak in GFLOP/s: bench/matmul/peak.c on
    one thread (independent FMAs on registers). $BENCH_PEAK1_GFLOPS (set by
    bench/run.sh, which measures it once per run) skips the measurement."""
    if _PEAK:
        return _PEAK[0]
    env = os.environ.get("BENCH_PEAK1_GFLOPS")
    if env:
        _PEAK.append(float(env))
        return _PEAK[0]
    exe = os.path.join(workdir(), "peak")
    subprocess.run(["clang", "-O2", "-pthread", "-o", exe,
                    os.path.join(ROOT, "bench", "matmul", "peak.c")], check=True)
    best = 0.0
    for _ in range(3):      # the best of 3: load on a shared machine only lowers it
        line = subprocess.run([exe, "1"], stdout=subprocess.PIPE, text=True, check=True).stdout
        best = max(best, float(line.split(":")[1].split()[0]))
    _PEAK.append(best)
    return _PEAK[0]


def floor_us(flops):
    """The compute floor: flops at one core's measured peak, in us."""
    return flops / (one_core_peak() * 1e3)


def check_close(label, who, ref, path, tol=1e-4, tensor=None):
    """Dies unless the output at path (or tensor) matches PyTorch's ref;
    returns the max rel err."""
    if tensor is not None:
        e = ref.detach().double()
        err = float((tensor.detach().double() - e).abs().max() / max(e.abs().max(), 1e-30))
    else:
        err = max_rel_err(ref, path)
    if err > tol:
        die("%s: %s's output differs from PyTorch's (rel err %.2g)" % (label, who, err))
    return err


CONTENDER_HEADER = ["", "tngc", "ORT", "PyTorch eager", "TorchScript", "ORT / tngc",
                    "eager / tngc", "TorchScript / tngc", "floor (MFLOP)",
                    "max rel err tngc / ORT / TS"]


def contender_row(label, r, errs, flops):
    """One row of CONTENDER_HEADER from medians r (tngc, ort, eager,
    torchscript; ort may be missing) and errs (same keys)."""
    def ratio(k):
        return "%.2fx" % (r[k] / r["tngc"]) if k in r else "-"

    def err(k):
        return "%.0e" % errs[k] if k in errs else "-"
    return [label, fmt_us(r["tngc"]), fmt_us(r["ort"]) if "ort" in r else "-",
            fmt_us(r["eager"]), fmt_us(r["torchscript"]), ratio("ort"), ratio("eager"),
            ratio("torchscript"), "%s (%.2f)" % (fmt_us(floor_us(flops)), flops / 1e6),
            " / ".join(err(k) for k in ("tngc", "ort", "torchscript"))]


def contender_notes():
    return ["Medians of %d interleaved rounds. ORT: onnxruntime %s through its C API "
            "(bench/ort/ort_bench.c), 1 intra-op thread, graph optimisation \"all\", IO "
            "binding (outputs preallocated, RunWithBinding timed), model "
            "exported with torch.onnx.export at opset %d. Eager: PyTorch's own functions (the "
            "tests/ref stand-ins' %d torch wrappers removed), %d intra-op thread(s). Floor: "
            "the matmul FLOPs at one core's measured peak (%.0f GFLOP/s, bench/matmul/peak.c "
            "on one thread); a ratio above 1 means tngc is faster."
            % (ROUNDS, ort_version(), OPSET, UNWRAPPED, torch.get_num_threads(),
               one_core_peak())]


def ort_version():
    """The installed onnxruntime-node package's version."""
    lib = ort_lib()
    if lib is None:
        return "(not installed)"
    pkg = os.path.join(ROOT, "bench", "node_modules", "onnxruntime-node", "package.json")
    try:
        import json
        with open(pkg) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "(%s)" % lib


def sized_source(src, **consts):
    """src with each module-level `NAME = ...` line of consts set to its value."""
    for k, v in consts.items():
        src, n = re.subn(r"(?m)^%s = .*$" % k, "%s = %r" % (k, v), src)
        if n != 1:
            die("no single `%s = ...` line to set" % k)
    return src


def module_case(tngc, tmp, tag, script, make_model, inputs, warmup, iters, label, tol=1e-4,
                extra=()):
    """The four contenders on one script and one input: builds SCRIPT (a
    path) into tmp/tag, the module make_model() returns (weights written as
    its state_dict), inputs [(launcher input name, tensor)] saved once;
    ORT on the module's export. Checks every contender's first output
    against PyTorch's (max rel err <= tol). Returns (medians, errs, flops);
    medians also has tngc_cpu and ort_cpu, the CPU time (user + sys, all
    threads) per run of the launcher and of ORT's harness (cpu_per_run)."""
    bdir = os.path.join(tmp, tag)
    build(tngc, script, bdir, extra)
    exe = launcher(bdir)
    model = make_model()
    xs = tuple(t for _, t in inputs)
    inargs = save_inputs(os.path.join(tmp, "in_" + tag), inputs)
    wd = os.path.join(tmp, "w_" + tag)
    os.makedirs(wd, exist_ok=True)
    largs = inargs + save_weights(wd, model)
    ts = torchscript(model, xs)
    outs = {k: os.path.join(tmp, "out_%s_%s" % (k, tag)) for k in ("tngc", "ort")}
    onnx = None
    if ort_harness():
        onnx = export_onnx(model, xs, os.path.join(tmp, tag + ".onnx"), [n for n, _ in inputs])

    def cpu_per_run(run):
        """CPU us per run of run(iters) beyond a run of 1: start-up and
        loading cancel out, and load on the machine that only delays the
        process leaves it as it is."""
        run(iters)
        long_us = LAST_CPU_US[0] * (warmup + iters)
        run(1)
        return (long_us - LAST_CPU_US[0] * (warmup + 1)) / (iters - 1)

    def measure():
        r = {"tngc": run_launcher(exe, largs, outs["tngc"], warmup, iters)}
        r["tngc_cpu"] = cpu_per_run(lambda n: run_launcher(exe, largs, outs["tngc"] + "_c",
                                                           warmup, n))
        if onnx:
            r["ort"] = run_ort(onnx, inargs, outs["ort"], warmup, iters)
            r["ort_cpu"] = cpu_per_run(lambda n: run_ort(onnx, inargs, outs["ort"] + "_c",
                                                         warmup, n))
        r["eager"] = time_torch(lambda: model(*xs), warmup, iters)
        r["torchscript"] = time_torch(lambda: ts(*xs), warmup, iters)
        return r
    res = rounds(measure)
    with torch.no_grad():
        ref = model(*xs)
        errs = {"torchscript": check_close(label, "TorchScript", ref, None, tol, ts(*xs))}
    for k in outs:
        if k in res:
            errs[k] = check_close(label, k, ref, os.path.join(outs[k], "out0.npy"), tol)
    return res, errs, matmul_flops(lambda: model(*xs))


def load_note(before, after):
    """The load average before and after a benchmark, as a table note."""
    return ("Load average (1, 5, 15 min) before %.2f %.2f %.2f, after %.2f %.2f %.2f; %d cores."
            % (tuple(before) + tuple(after) + (os.cpu_count() or 0,)))


CPU_HEADER = ["CPU/run tngc / ORT", "ORT / tngc by CPU"]


def cpu_cells(r):
    """CPU_HEADER's cells from module_case's medians."""
    if "ort_cpu" not in r:
        return [fmt_us(r["tngc_cpu"]) + " / -", "-"]
    return ["%s / %s" % (fmt_us(r["tngc_cpu"]), fmt_us(r["ort_cpu"])),
            "%.2fx" % (r["ort_cpu"] / r["tngc_cpu"])]


def cpu_note():
    return ("CPU/run: the process's user + sys time over a run of the timed count less "
            "that of a run of 1 (start-up, loading and ORT's graph optimisation cancel "
            "out), per run, medians over the rounds: what a run costs in cores, which load "
            "on a shared machine delays but does not change (a stream's second thread "
            "counts). ORT / tngc by CPU is the ratio of those.")


def sized_script(tmp, src, name, **consts):
    """src with consts set (sized_source) written as tmp/name.py and run as a
    module (not as __main__); returns (its path, its globals)."""
    s = sized_source(src, **consts)
    path = os.path.join(tmp, name + ".py")
    with open(path, "w") as f:
        f.write(s)
    ns = {"__name__": "tngc_bench"}
    exec(compile(s, path, "exec"), ns)
    return path, ns


def model_table(title, cases, warmup, iters, target):
    """Times each case (label, tag, script, make_model, inputs: as
    module_case takes them) with module_case, tngc as sys.argv[1], and
    prints one table of them with the CPU columns and the load average
    before and after."""
    tngc, outd, tmp = tngc_path(), out_dir(), workdir()
    rows = []
    load0 = os.getloadavg()
    for label, tag, script, make, inputs in cases:
        res, errs, flops = module_case(tngc, tmp, tag, script, make, inputs, warmup, iters,
                                       label)
        rows.append(contender_row(label, res, errs, flops) + cpu_cells(res))
    load1 = os.getloadavg()
    table(title, CONTENDER_HEADER + CPU_HEADER, rows, os.path.join(outd, "tables.md"),
          contender_notes() + [cpu_note(), "%d calls per round. %s" % (iters, load_note(load0, load1)),
                               target])
