#!/usr/bin/env python3
"""Compares the .npy files a reference wrote with a launcher's.

usage: python3 tests/e2e/compare.py [--bitwise] [--tolerance CLASS | --script SCRIPT]
                                    EXPECTED_DIR ACTUAL_DIR
       python3 tests/e2e/compare.py --class-of SCRIPT

Every EXPECTED_DIR/*.npy must exist in ACTUAL_DIR with the same shape and
dtype, and its values must match: floating point within the tolerances of
TOLERANCES below for the script's tolerance class (|actual - expected| <=
atol + rtol * |expected| element by element, NaN only where NaN is
expected, infinities equal), integers and bool exactly. --bitwise: every
dtype exactly (byte for byte). One line per file with the max abs / rel
error and the worst error as a fraction of its tolerance. Files only in
ACTUAL_DIR are ignored.

bfloat16: numpy has none, so tests/ref/harness.py saves a bfloat16 tensor
as a '<u2' .npy of its bit patterns and the launcher writes a bf16 output
the same way. EXPECTED_DIR/dtypes.txt (written by the harness: one line
"<file>.npy <torch dtype>" per file) says which '<u2' files are bfloat16;
those must be '<u2' in ACTUAL_DIR too, and both are decoded ((bits << 16)
viewed as float32, exact) and compared with the bfloat16 tolerances. A
'<u2' file the manifest does not call bfloat16 is compared exactly.

The tolerance class of a script is its first line of the form
"# tolerance: CLASS" (default "default"): --script SCRIPT reads it,
--class-of SCRIPT prints it, --tolerance CLASS gives it directly.

Exit status: 0 all match, 1 a mismatch or a missing file, 2 usage error.
"""
import os
import re
import sys

np = None   # numpy, imported by main() unless it only prints a class (--class-of)

# ---------------------------------------------------------------------------
# The one place the tolerances are stated: class -> dtype -> (rtol, atol).
# Integers and bool are always compared exactly, as is every dtype with
# --bitwise. tests/conform/README.md explains how they were chosen and what
# each test measured against them.
#
# The reference and tngc compute the same thing the same way: every op in
# float32 on its operands' values, a float16/bfloat16 result rounded once
# per op (tests/ref/stubs/_tngc_ref.py makes PyTorch 1.13 do so where its
# CPU does not). What remains is the order of float32 operations inside an
# op and the implementation of exp/log/tanh/erf, and what rounding to a
# half type does with those last-bit differences:
#
# "default": graphs without float contractions (elementwise ops,
# reductions, softmax and norms, data movement, casts, and the torch_npu
# quantised ops whose int8 accumulation is exact).
#   float32   rtol 1e-5 (the figure): 84 float32 ulps (eps 1.2e-7),
#             room for a few ulps per transcendental (glibc's expf/tanhf vs
#             PyTorch's vectorised implementations) compounded over a chain
#             of ops, and for reductions of a few thousand terms summed in
#             another order (error ~ sqrt(n) ulps of the sum).
#             atol 1e-6: a result near 0 that is the difference of O(1)
#             values (x - mean, a residual add, layer_norm outputs, gelu of
#             a large negative argument) carries the absolute rounding
#             error of those values, ~1e-7 each, which no relative
#             tolerance of the small result bounds; 1e-6 is ten of them,
#             1e-6 of the O(1) data of the tests.
#   float16   torch.testing's defaults, rtol 1e-3 atol 1e-5. rtol 1e-3 is
#             one float16 ulp everywhere (2^-10 = 9.8e-4 relative at the
#             bottom of a binade) and two in its upper half: a float32
#             result whose last bits differ rounds to the neighbouring
#             float16 value at worst. atol 1e-5: float32's absolute errors
#             near 0 (1e-7) are far below it, a float16 ulp near 0.01 is
#             1e-5.
#   bfloat16  torch.testing's defaults, rtol 1.6e-2 atol 1e-5: two bfloat16
#             ulps (2^-7 = 7.8e-3 relative each); one is the neighbouring
#             value as for float16, the second covers an op whose operand
#             is itself a rounded bfloat16 result one ulp apart (the ops
#             tested pass a one-ulp input difference on about unchanged).
#
# "matmul": graphs whose outputs depend on float matmuls (mm, bmm, matmul,
# addmm, linear): dot products of k terms accumulated in float32, by
# OpenBLAS in tngc and by PyTorch's CPU (the same library, but called with
# other shapes, transposes and threads, so the terms are often summed in
# another order). A float32 sum of k terms is only known to about
# k * 2^-24 * sum|a_i b_i| in the worst case, ~sqrt(k) times less typically:
# a dot product of k = 1000 unit-variance terms (sum|a_i b_i| ~ 640) that
# cancels to nearly 0 comes out of PyTorch 9.2e-5 away from its exact value
# (measured, a [500, 1000] x [1000, 500] float32 mm), and the two orders
# differ by up to 3e-5 (examples/multi_stream: 1000 x 1000 float16 mms,
# two of its million results 1.6e-5 and 1.1e-5 apart, tngc's the closer to
# the exact value both times). No relative tolerance bounds that for a
# result much smaller than sum|a_i b_i|, hence the atol:
#   float32   rtol 1e-4 (the figure), atol 1e-4: the k = 1000
#             worst case above with a margin; 1e-4 is also 1e-4 of the O(1)
#             outputs of the tests, where rtol takes over.
#   float16   rtol 1e-3, bfloat16 rtol 1.6e-2 as "default" (the sum is
#             rounded once), atol 1e-4 as for float32: the float32 sum's
#             own error, rounded to the half type.
#
# "network": a whole model in a half type (tests/realmodels' float16
# Mistral): every layer's float16 results carry the float32 sums' last-bit
# differences rounded to float16, and the next layers compound them, so
# that a logit after two layers can sit two float16 ulps from the
# reference's; the reference itself moves that much between CPUs (its
# float32 products come from the BLAS kernels PyTorch picks for the CPU:
# measured, one of Mistral's 1152 logits 2 ulps off on an AMD EPYC, none on
# the previous round's machine, with the same tngc).
#   float32   as "matmul".
#   float16   rtol 2e-3 atol 1e-4: two float16 ulps, the reasoning of
#             bfloat16's two ulps under "default".
#   bfloat16  as "matmul" (already two ulps).
#
# "exact": graphs that only move, convert or look up values (views, cat,
# slicing, casts, embedding): every dtype bitwise, as with --bitwise.
# ---------------------------------------------------------------------------
TOLERANCES = {
    "default": {
        "float32": (1e-5, 1e-6),
        "float16": (1e-3, 1e-5),
        "bfloat16": (1.6e-2, 1e-5),
    },
    "matmul": {
        "float32": (1e-4, 1e-4),
        "float16": (1e-3, 1e-4),
        "bfloat16": (1.6e-2, 1e-4),
    },
    "network": {
        "float32": (1e-4, 1e-4),
        "float16": (2e-3, 1e-4),
        "bfloat16": (1.6e-2, 1e-4),
    },
    "exact": {},
}

MARKER = re.compile(r"^#\s*tolerance:\s*([A-Za-z0-9_-]+)\s*$")


def class_of(script):
    """The tolerance class a script declares ("default" when it does not)."""
    with open(script, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = MARKER.match(line.rstrip("\n"))
            if m:
                return m.group(1)
    return "default"


def read_dtypes(d):
    """EXPECTED_DIR/dtypes.txt as {file: torch dtype name} ({} when absent)."""
    path = os.path.join(d, "dtypes.txt")
    table = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    table[parts[0]] = parts[1]
    return table


def bf16_values(bits):
    """'<u2' bfloat16 bit patterns -> float32 values (exact)."""
    return (np.asarray(bits, dtype=np.uint32).reshape(-1) << 16).view(np.float32).reshape(bits.shape)


def half_valued(exp):
    """'float16' or 'bfloat16' when every finite value of the float32
    array exp is one of that type and some are not integers: the result of
    a half-type op widened (x.float() of a float16 tensor), whose precision
    is the half type's; such results are compared with its tolerance. (A
    float32 result computed in float32 is practically never all half-type
    values; integer-valued ones, counts and masks, keep float32's.) None
    otherwise."""
    f = exp[np.isfinite(exp)]
    if f.size == 0 or np.all(f == np.round(f)):
        return None
    with np.errstate(over="ignore"):
        if np.array_equal(f.astype(np.float16).astype(np.float32), f):
            return "float16"
    if not np.any(f.astype(np.float32).view(np.uint32) & 0xFFFF):
        return "bfloat16"
    return None


def compare(exp_path, act_path, bitwise, tol, torch_dtype=None):
    """Returns (ok, message). tol: dtype name -> (rtol, atol)."""
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
    name = exp.dtype.name
    if torch_dtype == "bfloat16":
        if exp.dtype != np.uint16:
            return False, "dtypes.txt says bfloat16 but the file is %s, not '<u2'" % exp.dtype
        name = "bfloat16"
    if exp.size == 0:
        return True, "empty, %s %s" % (name, exp.shape)
    desc = "%s %s" % (name, list(exp.shape))
    if bitwise or name not in tol:
        if exp.dtype.kind == "f" or name == "bfloat16":
            equal = exp.tobytes() == act.tobytes()
        else:
            equal = np.array_equal(exp, act)
        if name == "bfloat16":
            exp, act = bf16_values(exp), bf16_values(act)
        diff = np.abs(act.astype(np.float64) - exp.astype(np.float64)) if exp.dtype != bool \
            else (act != exp).astype(np.float64)
        nbad = int(np.count_nonzero(act != exp)) if not equal else 0
        what = "bitwise" if bitwise else "exact"
        if equal:
            return True, "%s: %s equal" % (desc, what)
        return False, "%s: %d of %d elements differ (%s), max abs err %.3g" % (
            desc, nbad, exp.size, what, float(np.nanmax(diff)) if diff.size else 0.0)
    tname = half_valued(exp) if name == "float32" else None
    if tname:
        desc += " (%s values: a %s result widened)" % (tname, tname)
    rtol, atol = tol[tname or name]
    if name == "bfloat16":
        exp, act = bf16_values(exp), bf16_values(act)
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
    limit = atol + rtol * np.abs(e)
    nz = e != 0   # the relative error of a result expected to be 0 is no figure
    rel = err[nz] / np.abs(e[nz])
    bad = err > limit
    maxabs = float(err.max()) if err.size else 0.0
    maxrel = float(rel.max()) if rel.size else 0.0
    worst = float((err / limit).max()) if err.size else 0.0
    msg = "%s: max abs err %.3g, max rel err %.3g, worst %.2f of the tolerance (rtol %g, atol %g)" % (
        desc, maxabs, maxrel, worst, rtol, atol)
    if bad.any():
        i = int(np.argmax(bad))
        return False, msg + "; %d of %d out of tolerance, first: %r vs expected %r" % (
            int(bad.sum()), exp.size, float(a[i]), float(e[i]))
    return True, msg


def main(argv):
    bitwise, cls = False, None
    usage = ("usage: compare.py [--bitwise] [--tolerance CLASS | --script SCRIPT] "
             "EXPECTED_DIR ACTUAL_DIR\n       compare.py --class-of SCRIPT\n")
    if len(argv) == 2 and argv[0] == "--class-of":
        print(class_of(argv[1]))
        return 0
    global np
    import numpy as np
    while argv and argv[0].startswith("--"):
        if argv[0] == "--bitwise":
            bitwise = True
            argv = argv[1:]
        elif argv[0] in ("--tolerance", "--script") and len(argv) > 1 and cls is None:
            cls = argv[1] if argv[0] == "--tolerance" else class_of(argv[1])
            argv = argv[2:]
        else:
            sys.stderr.write(usage)
            return 2
    cls = cls or "default"
    if cls not in TOLERANCES:
        sys.stderr.write("compare.py: unknown tolerance class '%s' (known: %s)\n"
                         % (cls, ", ".join(TOLERANCES)))
        return 2
    if len(argv) != 2 or not os.path.isdir(argv[0]) or not os.path.isdir(argv[1]):
        sys.stderr.write(usage)
        return 2
    names = sorted(f for f in os.listdir(argv[0]) if f.endswith(".npy"))
    if not names:
        sys.stderr.write("compare.py: no .npy files in %s\n" % argv[0])
        return 1
    dtypes = read_dtypes(argv[0])
    failed = 0
    for name in names:
        ok, msg = compare(os.path.join(argv[0], name), os.path.join(argv[1], name), bitwise,
                          TOLERANCES[cls], dtypes.get(name))
        print("  %s %s: %s" % ("ok  " if ok else "FAIL", name, msg))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
