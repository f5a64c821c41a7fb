#!/bin/sh
# The op sweep: every row of ir/ops.def against PyTorch, over the dtypes
# PyTorch takes for it, broadcast, transposed and sliced, both gears.
#
# usage: tests/sweep/run.sh TNGC
#
# gen.py writes one model per group of families (README.md) from the rows;
# a call tngc refuses with TNG203 (not modelled exactly: tngc says so
# rather than compute something else) is listed and left out; then
# tests/conform/run.sh records each model under PyTorch, builds it and
# compares every output at every gear. Prints "sweep: N passed, M failed".
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-sweep.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

if ! "$py" "$root/tests/sweep/gen.py" "$root/ir/ops.def" "$tmp" >"$tmp/gen.txt" 2>&1; then
    cat "$tmp/gen.txt"
    echo "sweep: 0 passed, 1 failed"
    exit 1
fi
cat "$tmp/gen.txt"
. "$root/tests/sweep/drop.sh"
sweep_out=$tmp/plan.out
for m in "$tmp"/sweep_*.py; do
    sweep_drop "$m" '\[TNG203\]$' 'sweep: refused by tngc (TNG203):' "$tngc" plan "$m"
done
# the models with the most calls first, so that the conform workers end
# together (the paths are mktemp's: no spaces)
models=$(grep -c 'outs.append(' "$tmp"/sweep_*.py | sort -t: -k2 -nr | cut -d: -f1)
out=$(sh "$root/tests/conform/run.sh" "$tngc" $models 2>&1)
rc=$?
# each output's op: outK.npy is the model's K-th outs.append (its comment)
for m in "$tmp"/sweep_*.py; do
    grep 'outs.append(' "$m" | sed 's/.*# //' | awk -v m="$m" '{ print m "\t" NR - 1 "\t" $0 }'
done >"$tmp/ops.tsv"
printf '%s\n' "$out" | grep -v '^    ok ' | awk -F'\t' -v ops="$tmp/ops.tsv" '
    BEGIN { while ((getline l < ops) > 0) { split(l, f, "\t"); op[f[1] SUBSEP f[2]] = f[3] } }
    /^(==|ok|FAIL) / { split($0, w, " "); model = w[2] }
    /^    FAIL out[0-9]+\.npy/ { k = $0; sub(/^    FAIL out/, "", k); sub(/\.npy.*/, "", k)
                                 if ((model SUBSEP k) in op) $0 = $0 " [" op[model SUBSEP k] "]" }
    { print }'
pass=$(printf '%s\n' "$out" | grep -c '^ok ')
fail=$(printf '%s\n' "$out" | grep -c '^FAIL ')
echo "sweep: $pass passed, $fail failed"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
