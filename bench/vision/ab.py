"""Two tngc builds against each other on bench/vision's model: each
builds the model's bundle per shape (the weights and inputs of bench.py),
and their launchers alternate for ROUNDS rounds (p50 of 2000 runs at
32 x 32, 500 at 64 x 64, per launch); prints the medians and their ratio.

usage: /usr/bin/python3 bench/vision/ab.py BASE_TNGC NEW_TNGC [ROUNDS]
(each tngc with its libtngcrt.a beside it, as `make` leaves them)."""
import os
import re
import runpy
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import common as C  # noqa: E402

SHAPES = [(2, 32), (4, 32), (2, 64), (4, 64)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    import torch
    tngc = {"base": os.path.abspath(sys.argv[1]), "new": os.path.abspath(sys.argv[2])}
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    bench = runpy.run_path(os.path.join(HERE, "bench.py"), run_name="tngc_bench_ab")
    m = runpy.run_path(os.path.join(HERE, "model.py"), run_name="tngc_bench")
    C.set_torch_threads(1)
    torch.manual_seed(0)
    model = m["Vision"]().eval()
    bench["randomise_bn"](model)
    tmp = C.workdir()
    setup = {}
    for b, s in SHAPES:
        d = os.path.join(tmp, "ab_b%d_s%d" % (b, s))
        os.makedirs(os.path.join(d, "in"), exist_ok=True)
        os.makedirs(os.path.join(d, "w"), exist_ok=True)
        script = bench["script_for"](d, b, s)
        g = torch.Generator().manual_seed(1)
        x = torch.randn(b, 3, s, s, generator=g)
        args = C.save_inputs(os.path.join(d, "in"), [("x", x)]) + \
            C.save_weights(os.path.join(d, "w"), model)
        for k, t in tngc.items():
            subprocess.run([t, "build", script, "-o", os.path.join(d, k)], check=True,
                           stdout=subprocess.DEVNULL)
        setup[(b, s)] = (d, args)
    res = {}
    for r in range(rounds):
        for (b, s), (d, args) in setup.items():
            for k in (["base", "new"] if r % 2 == 0 else ["new", "base"]):
                exe = [f for f in os.listdir(os.path.join(d, k)) if f.endswith("_launcher")][0]
                o = subprocess.run([os.path.join(d, k, exe)] + args +
                                   ["--warmup", "50", "--iters", "2000" if s == 32 else "500",
                                    "--out-dir", os.path.join(d, "out_" + k)],
                                   capture_output=True, text=True, check=True)
                p50 = re.search(r"p50 ([0-9.]+) us", o.stdout + o.stderr)
                res.setdefault((b, s, k), []).append(float(p50.group(1)))
    print("load average (1, 5, 15 min): %.2f %.2f %.2f" % os.getloadavg())
    for b, s in SHAPES:
        base, new = (statistics.median(res[(b, s, k)]) for k in ("base", "new"))
        print("batch %d, %d x %d: base %.1f us (fastest %.1f), new %.1f us (fastest %.1f), "
              "base/new %.2fx" % (b, s, s, base, min(res[(b, s, "base")]), new,
                                 min(res[(b, s, "new")]), base / new))


if __name__ == "__main__":
    main()
