#!/usr/bin/env python3
"""Gears: what switching between gears costs a bundle, against what a new
input shape costs PyTorch 1.13.

bundle       bench/gears/switch.c, linked with the decoder's bundle, runs
             batch 2 (gear 1) and batch 8 (gear 3) each on their own, then
             alternating 2, 8, 2, 8...; the switching cost is the median of
             the alternating runs minus the median of same-gear runs, and
             the gear lookup (tngrt_bundle_select) is timed alone
PyTorch      the decoder module, warm at batch 2, called at a batch it has
             not seen (3, 5, 6, 7): the first call's time and what it costs
             over a warm call at that batch; eager and TorchScript (traced
             at batch 2, frozen: the profiling executor re-profiles and
             re-optimises for a new shape, over its first two calls)

usage: /usr/bin/python3 bench/gears/bench.py TNGC [OUT_DIR]
"""
import os
import runpy
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402
from common import np, torch    # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DECODE = os.path.join(C.ROOT, "examples", "decoder", "model.py")
NEW_BATCHES = (3, 5, 6, 7)


def inputs(m, batch, g):
    mask = torch.cat((torch.zeros(1, 1, 1, m["DECODE_POS"] + 1),
                      torch.full((1, 1, 1, m["MAX_SEQ"] - m["DECODE_POS"] - 1), -1e4)), dim=-1)
    shape = (batch, m["MAX_SEQ"], m["HIDDEN"])
    return (torch.randint(0, m["VOCAB"], (batch, 1), generator=g), mask,
            [torch.randn(shape, generator=g) for _ in range(m["N_LAYERS"])],
            [torch.randn(shape, generator=g) for _ in range(m["N_LAYERS"])])


def flat(args):
    tokens, mask, ks, vs = args
    return [tokens, mask] + list(ks) + list(vs)


def first_call(fn, args, calls):
    """Times the first `calls` calls of fn at a new shape, then a warm call."""
    with torch.no_grad():
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn(*args)
        first = (time.perf_counter_ns() - t0) / 1000.0
    warm = C.time_torch(lambda: fn(*args), 5, 50)
    return first, first - calls * warm


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    m = runpy.run_path(DECODE, run_name="tngc_bench")
    torch.manual_seed(0)
    model = m["Decoder"]().eval()
    g = torch.Generator().manual_seed(3)
    bdir = os.path.join(tmp, "b")
    C.build(tngc, DECODE, bdir)
    wd = os.path.join(tmp, "w")
    os.makedirs(wd)
    weights = C.save_weights(wd, model)[1]
    dirs = []
    for batch in (2, 8):
        d = os.path.join(tmp, "in%d" % batch)
        os.makedirs(d)
        for i, t in enumerate(flat(inputs(m, batch, g))):
            np.save(os.path.join(d, "%d.npy" % i), t.numpy())
        dirs.append(d)
    exe = os.path.join(tmp, "switch")
    rtlib = os.path.join(os.path.dirname(tngc), "libtngcrt.a")
    subprocess.run(["clang", "-O2", "-I", os.path.join(C.ROOT, "runtime"), "-DBUNDLE_DESC=model_desc",
                    "-o", exe, os.path.join(HERE, "switch.c"), os.path.join(bdir, "libmodel.a"),
                    rtlib, "-lopenblas", "-lpthread", "-lm"], check=True)

    def bundle():
        r = subprocess.run([exe, weights, "4000"] + dirs, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, check=True)
        a, b, alt_a, alt_b, sel = (float(v) for v in r.stdout.split())
        return {"switch": ((alt_a - a) + (alt_b - b)) / 2, "select": sel / 1000.0,
                "a": a, "b": b}
    r = C.rounds(bundle)

    res = {"eager": [], "torchscript": []}
    for batch in NEW_BATCHES:
        warm_args = inputs(m, 2, g)
        new_args = inputs(m, batch, g)
        C.time_torch(lambda: model(*warm_args), 5, 20)
        res["eager"].append(first_call(model, new_args, 1))
        ts = C.torchscript(model, inputs(m, 2, g))
        C.time_torch(lambda: ts(*warm_args), 5, 20)
        res["torchscript"].append(first_call(ts, new_args, 2))
    cost = max(r["switch"], 0.0) + r["select"]
    rows = [["bundle: a run after another gear's (decode, batch 2 <-> 8)",
             "%+.2f us over a same-gear run (gear lookup %.0f ns)" % (r["switch"], r["select"] * 1000),
             "-"]]
    for k, label, calls in (("eager", "PyTorch eager", 1), ("torchscript", "TorchScript", 2)):
        first = statistics.median(x[0] for x in res[k])
        extra = statistics.median(x[1] for x in res[k])
        rows.append(["%s: first %s at a new batch (%s)" % (label, "call" if calls == 1 else "2 calls",
                                                        ", ".join(map(str, NEW_BATCHES))),
                     "%s (%s over warm calls)" % (C.fmt_us(first), C.fmt_us(extra)),
                     "**%.0fx**" % (first / cost)])
    C.table("Gears: switching vs a new shape",
            ["", "cost", "vs the bundle's switch"], rows, os.path.join(outd, "tables.md"),
            ["The bundle's switch cost for the ratio is its gear lookup plus the measured extra "
             "time of an alternating run (when positive): %.2f us. Same-gear runs: batch 2 %.1f "
             "us, batch 8 %.1f us. Medians of %d rounds of 4000 runs (bundle) and over 4 new "
             "batches (PyTorch). Target: switching at least 100x cheaper than PyTorch's first "
             "run at a new shape." % (cost, r["a"], r["b"], C.ROUNDS)])


if __name__ == "__main__":
    main()
