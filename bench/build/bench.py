#!/usr/bin/env python3
"""Build time: `tngc build -j 2 --no-cache` of the decoder example with 1,
4, 16 and 64 batch gears (BATCH_GEARS = [1..N]; for one gear, no set_dim_gears and one call at batch 2), wall
time of the whole command (plan, generate, clang, ar, link), the median of
ROUNDS builds; also the generated .c's size.

usage: /usr/bin/python3 bench/build/bench.py TNGC [OUT_DIR]
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import common as C    # noqa: E402

DECODE = os.path.join(C.ROOT, "examples", "decoder", "model.py")


def main():
    tngc = C.tngc_path()
    outd = C.out_dir()
    tmp = C.workdir()
    with open(DECODE) as f:
        src = f.read()
    rows = []
    for n in (1, 4, 16, 64):
        if n == 1:   # no gears: set_dim_gears removed, only the batch-2 call
            s = re.sub(r"(?m)^( *)torchair\.inference\.set_dim_gears\(.*$", r"\1pass", src)
            s = s[:s.index("    # Step 2")]
        else:
            s = re.sub(r"(?m)^BATCH_GEARS = .*$", "BATCH_GEARS = %r" % (list(range(1, n + 1)),), src)
        script = os.path.join(tmp, "model.py")
        with open(script, "w") as f:
            f.write(s)
        times = [C.build(tngc, script, os.path.join(tmp, "b%d_%d" % (n, i)), ["-j", "2"])
                 for i in range(C.ROUNDS)]
        with open(os.path.join(tmp, "b%d_0" % n, "model.c")) as f:
            code = f.read()
        ngears = len(set(re.findall(r"^static int g(\d+)_s0\(", code, re.M)))
        if ngears != n:
            C.die("%d gears asked, the bundle has %d" % (n, ngears))
        rows.append([str(n), "%.2f s" % statistics.median(times),
                     "%.0f KB, %d lines" % (len(code) / 1024, code.count("\n"))])
    C.table("Build: tngc build -j 2 of the decoder vs its number of gears",
            ["gears", "build time (wall)", "generated model.c"], rows,
            os.path.join(outd, "tables.md"), ["Medians of %d builds each, no cache." % C.ROUNDS])


if __name__ == "__main__":
    main()
