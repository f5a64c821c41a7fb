#!/usr/bin/env python3
"""Compares many launcher runs with PyTorch in one process: tests/e2e/compare.py's
comparison, numpy imported once instead of once per run.

usage: python3 tests/aclsim/compare_calls.py SCRIPT < LIST

LIST: one run a line, "KEY<tab>EXPECTED_DIR<tab>ACTUAL_DIR" (KEY without
blanks, the directories without tabs or newlines). Each is compared as
`compare.py --script SCRIPT EXPECTED_DIR ACTUAL_DIR` compares it (the
script's tolerance class, the same table), and one line printed per run:
"KEY ok WORST" (WORST the largest error as a fraction of its tolerance,
0 where every file is compared exactly) or "KEY FAIL FILE: MESSAGE" (the
first file that differs). Exit status: 0 all match, 1 a mismatch, 2 usage.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import compare  # noqa: E402  (tests/e2e/compare.py)

WORST = re.compile(r"worst ([0-9.]+) of the tolerance")


def one(tol, exp_dir, act_dir):
    """(ok, worst or message) for one run."""
    names = sorted(f for f in os.listdir(exp_dir) if f.endswith(".npy"))
    if not names:
        return False, "no .npy files in %s" % exp_dir
    dtypes = compare.read_dtypes(exp_dir)
    worst = 0.0
    for name in names:
        ok, msg = compare.compare(os.path.join(exp_dir, name), os.path.join(act_dir, name), False,
                                  tol, dtypes.get(name))
        if not ok:
            return False, "%s: %s" % (name, msg)
        m = WORST.search(msg)
        if m:
            worst = max(worst, float(m.group(1)))
    return True, "%.2f" % worst


def main(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: compare_calls.py SCRIPT < LIST\n")
        return 2
    import numpy
    compare.np = numpy
    tol = compare.TOLERANCES.get(compare.class_of(argv[0]))
    if tol is None:
        sys.stderr.write("compare_calls.py: unknown tolerance class '%s'\n" % compare.class_of(argv[0]))
        return 2
    failed = 0
    for line in sys.stdin:
        parts = line.rstrip("\n").split("\t", 2)
        if len(parts) != 3:
            continue
        key, exp_dir, act_dir = parts
        ok, what = one(tol, exp_dir, act_dir)
        print("%s %s %s" % (key, "ok" if ok else "FAIL", what))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
