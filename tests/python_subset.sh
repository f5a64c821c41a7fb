#!/bin/sh
# The Python that model code is written in, against Python: every entry of
# the VALUES list of tests/python/python_subset.py is a str that tngc's
# plan names a super-kernel scope after ("<index>:<value>"); python3 runs
# the same script's pure-Python part (between the "python: begin" and
# "python: end" markers) and the two lists must be equal.
# usage: tests/python_subset.sh TNGC
set -u
tngc=$1
here=$(cd "$(dirname "$0")" && pwd)
script="$here/python/python_subset.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! "$tngc" plan --format json "$script" > "$tmp/plan.json" 2> "$tmp/err"; then
    echo "FAIL tngc plan python_subset.py:"; cat "$tmp/err"; exit 1
fi
if [ -s "$tmp/err" ]; then
    echo "FAIL tngc plan python_subset.py wrote diagnostics:"; cat "$tmp/err"; exit 1
fi
/usr/bin/python3 - "$script" "$tmp/plan.json" <<'PY'
import json, sys
src = open(sys.argv[1]).read()
part = src[src.index("# --- python: begin"):src.index("# --- python: end")]
env = {"__name__": "python_subset"}
exec(compile(part, sys.argv[1], "exec"), env)   # our own test file, not input
want = ["%d:%s" % (i, v) for i, v in enumerate(env["VALUES"])]
got = [s["scope"] for s in json.load(open(sys.argv[2]))["entries"][0]["super_kernels"]]
bad = [(w, g) for w, g in zip(want, got) if w != g]
for w, g in bad:
    print("FAIL python %r, tngc %r" % (w, g))
if len(want) != len(got):
    print("FAIL %d values from python, %d scopes from tngc" % (len(want), len(got)))
    for w in want[len(got):]:
        print("  missing: %r" % w)
print("python_subset: %d values, %d differ" % (len(want), len(bad)))
sys.exit(1 if bad or len(want) != len(got) else 0)
PY
