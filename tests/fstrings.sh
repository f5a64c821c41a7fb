#!/bin/sh
# f-strings, str(), repr() and format() against Python: the scope names
# tngc plans for tests/golden/plan/fstrings.py (its NAMES list, after the
# two per-layer f"layer_{i:02d}" scopes) must equal the values python3
# gives the same list.
# usage: tests/fstrings.sh TNGC
set -u
tngc=$1
here=$(cd "$(dirname "$0")" && pwd)
script="$here/golden/plan/fstrings.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! "$tngc" plan --format json "$script" > "$tmp/plan.json" 2> "$tmp/err"; then
    echo "FAIL tngc plan fstrings.py:"; cat "$tmp/err"; exit 1
fi
/usr/bin/python3 - "$script" "$tmp/plan.json" <<'PY'
import json, sys
src = open(sys.argv[1]).read()
body = src[src.index("NAMES = [") + len("NAMES = "):]
body = body[:body.index("\n]\n") + 2]
want = ["layer_00", "layer_01"] + eval(body)   # our own test file, not input
got = [s["scope"] for s in json.load(open(sys.argv[2]))["entries"][0]["super_kernels"]]
bad = [(w, g) for w, g in zip(want, got) if w != g]
for w, g in bad:
    print("FAIL python %r, tngc %r" % (w, g))
if len(want) != len(got):
    print("FAIL %d names from python, %d scopes from tngc" % (len(want), len(got)))
print("fstrings: %d names, %d differ" % (len(want), len(bad)))
sys.exit(1 if bad or len(want) != len(got) else 0)
PY
