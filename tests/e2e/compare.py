#!/usr/bin/env python3
"""Compares the .npy files a reference wrote with a launcher's.

usage: python3 tests/e2e/compare.py [--bitwise] EXPECTED_DIR ACTUAL_DIR

Every EXPECTED_DIR/*.npy must exist in ACTUAL_DIR with the same shape and
dtype, and its values must match: floating point within the tolerances of
TOLERANCES below (|actual - expected| <= atol + rtol * |expected|, NaN only
where NaN is expected), integers and bool exactly. --bitwise: every dtype
exactly (byte for byte). One line per file with the max abs / rel error.
Files only in ACTUAL_DIR are ignored.

Exit status: 0 all match, 1 a mismatch or a missing file, 2 usage error.
"""
import os
import sys

import numpy as np

# The one place the tolerances are stated: dtype -> (rtol, atol).
# bfloat16 has no .npy form, so it is never compared here.
TOLERANCES = {
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-3),
}


def compare(exp_path, act_path, bitwise):
    """Returns (ok, message)."""
    if not os.path.exists(act_path):
        return False, "missing (the launcher wrote no such file)"
    try:
        exp = np.load(exp_path, allow_pickle=False)
        act = np.load(act_path, allow_pickle=False)
    except Exception as e:  # a file numpy cannot read is a failure, not a crash
        return False, "unreadable: %s" % e
    if exp.dtype != act.dtype:
        return False, "dtype %s, expected %s" % (act.dtype, exp.dtype)
    if exp.shape != act.shape:
        return False, "shape %s, expected %s" % (act.shape, exp.shape)
    if exp.size == 0:
        return True, "empty, %s %s" % (exp.dtype, exp.shape)
    desc = "%s %s" % (exp.dtype, list(exp.shape))
    if bitwise or exp.dtype.name not in TOLERANCES:
        if exp.dtype.kind == "f":
            equal = exp.tobytes() == act.tobytes()
        else:
            equal = np.array_equal(exp, act)
        diff = np.abs(act.astype(np.float64) - exp.astype(np.float64)) if exp.dtype != bool \
            else (act != exp).astype(np.float64)
        nbad = int(np.count_nonzero(act != exp)) if not equal else 0
        what = "bitwise" if bitwise else "exact"
        if equal:
            return True, "%s: %s equal" % (desc, what)
        return False, "%s: %d of %d elements differ (%s), max abs err %.3g" % (
            desc, nbad, exp.size, what, float(np.nanmax(diff)) if diff.size else 0.0)
    rtol, atol = TOLERANCES[exp.dtype.name]
    e = exp.astype(np.float64)
    a = act.astype(np.float64)
    nan_e, nan_a = np.isnan(e), np.isnan(a)
    if not np.array_equal(nan_e, nan_a):
        return False, "%s: NaN at %d positions, expected %d" % (desc, int(nan_a.sum()),
                                                                int(nan_e.sum()))
    fin = ~nan_e
    e, a = e[fin], a[fin]
    inf = np.isinf(e) | np.isinf(a)
    if not np.array_equal(e[inf], a[inf]):
        return False, "%s: infinities differ" % desc
    e, a = e[~inf], a[~inf]
    err = np.abs(a - e)
    rel = err / np.maximum(np.abs(e), np.finfo(np.float64).tiny)
    bad = err > atol + rtol * np.abs(e)
    maxabs = float(err.max()) if err.size else 0.0
    maxrel = float(rel.max()) if rel.size else 0.0
    msg = "%s: max abs err %.3g, max rel err %.3g (rtol %g, atol %g)" % (
        desc, maxabs, maxrel, rtol, atol)
    if bad.any():
        i = int(np.argmax(bad))
        return False, msg + "; %d of %d out of tolerance, first: %r vs expected %r" % (
            int(bad.sum()), exp.size, float(a[i]), float(e[i]))
    return True, msg


def main(argv):
    bitwise = False
    if argv and argv[0] == "--bitwise":
        bitwise = True
        argv = argv[1:]
    if len(argv) != 2 or not os.path.isdir(argv[0]) or not os.path.isdir(argv[1]):
        sys.stderr.write("usage: compare.py [--bitwise] EXPECTED_DIR ACTUAL_DIR\n")
        return 2
    names = sorted(f for f in os.listdir(argv[0]) if f.endswith(".npy"))
    if not names:
        sys.stderr.write("compare.py: no .npy files in %s\n" % argv[0])
        return 1
    failed = 0
    for name in names:
        ok, msg = compare(os.path.join(argv[0], name), os.path.join(argv[1], name), bitwise)
        print("  %s %s: %s" % ("ok  " if ok else "FAIL", name, msg))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
