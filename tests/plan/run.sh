#!/bin/sh
# tngc plan on every example script (each Makefile's TNGC_BUNDLES): exit 0, nothing on stderr, the same
# bytes on a second run (text, JSON and DOT), the text equal to the golden
# plan tests/plan/expected/<folder>_<script>.plan (UPDATE=1 rewrites them);
# the acceptance checks of the planner on the examples' plans
# (tests/plan/accept.py); and the static-kernel manifest.
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
# an example's scripts are its Makefile's TNGC_BUNDLES (its other .py files
# are modules they import; examples/recompile has a log script, no model)
for py in $(for mk in "$root"/examples/*/Makefile; do
                sed -n 's/^TNGC_BUNDLES *:= *//p' "$mk" | tr ' ' '\n' | sed "/^$/d; s|^|$(dirname "$mk")/|"
            done); do
    name=${py#"$root"/}
    ok=1
    for fmt in text json dot; do
        (cd "$root" && "$tngc" plan --format $fmt "$name") >"$tmp/a" 2>"$tmp/err"
        status=$?
        (cd "$root" && "$tngc" plan --format $fmt "$name") >"$tmp/b" 2>/dev/null
        if [ $status -ne 0 ] || [ -s "$tmp/err" ]; then
            echo "FAIL plan $name ($fmt): exit status $status"; head -20 "$tmp/err"; ok=0
        elif ! cmp -s "$tmp/a" "$tmp/b"; then
            echo "FAIL plan $name ($fmt): two runs differ"; ok=0
        elif [ $fmt = json ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/a"; then
            echo "FAIL plan $name: not JSON"; ok=0
        fi
        [ $fmt = json ] && cp "$tmp/a" "$tmp/$(echo "$name" | tr / _).json"
        if [ $fmt = text ] && [ $ok = 1 ]; then
            want="$root/tests/plan/expected/$(echo "${name#examples/}" | tr / _ | sed 's/\.py$//').plan"
            [ "${UPDATE:-}" = 1 ] && cp "$tmp/a" "$want"
            if ! diff -u "$want" "$tmp/a" >"$tmp/diff" 2>&1; then
                echo "FAIL plan $name: differs from $(basename "$want")"; head -30 "$tmp/diff"; ok=0
            fi
        fi
    done
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
if python3 "$root/tests/plan/accept.py" "$tmp"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

# the static-kernel manifest tree, reproducible with SOURCE_DATE_EPOCH; a missing
# build dir is one line, exit status 2, and nothing written
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL manifest: $1"; fail=$((fail + 1)); fi; }
m=$tmp/manifest
mkdir -p "$m"
cp "$root/examples/static_kernel/model.py" "$m/"
(cd "$m" && "$tngc" plan --manifest -o model.plan model.py) >/dev/null 2>"$tmp/err"
t "missing build dir: exit status 2" '[ $? -eq 2 ]'
t "missing build dir: one line naming it" '[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "static_kernel_build.*does not exist" "$tmp/err"'
t "missing build dir: no plan file, no tree" '[ ! -e "$m/model.plan" ] && [ ! -e "$m/static_kernel_build" ]'
mkdir "$m/static_kernel_build"
(cd "$m" && SOURCE_DATE_EPOCH=0 "$tngc" plan --manifest -o model.plan model.py) 2>"$tmp/err"
t "manifest written" '[ $? -eq 0 ] && [ -s "$m/model.plan" ] && [ ! -s "$tmp/err" ]'
out=$m/static_kernel_build/aclnn_static_shape_kernel_outputs/19700101000000_0_outputs
(cd "$out" && find . -type f | LC_ALL=C sort) >"$tmp/tree"
printf '%s\n' ./0/Add_float_ND_1_256_0.json ./0/MatMulV2_float_ND_1_2048_0.json \
    ./0_debug/Add_float_ND_1_256_0.json ./0_debug/MatMulV2_float_ND_1_2048_0.json >"$tmp/want"
t "the manifest tree: one JSON per op, selected and debug" 'cmp -s "$tmp/tree" "$tmp/want" || { cat "$tmp/tree"; false; }'
t "the MatMulV2 op info" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"op_type\"] == \"MatMulV2\", d
assert [i[\"shape\"] for i in d[\"inputs\"]] == [[1, 2048], [2048, 256]], d
assert d[\"outputs\"][0] == {\"dtype\": \"float\", \"format\": \"ND\", \"shape\": [1, 256]}, d
" "$out/0/MatMulV2_float_ND_1_2048_0.json"'
cp -r "$out" "$tmp/first"
(cd "$m" && SOURCE_DATE_EPOCH=0 "$tngc" plan --manifest -o model.plan model.py) 2>/dev/null
t "the same tree on a second run" 'diff -r "$tmp/first" "$out" >/dev/null'

# --entry selects what is planned, not what runs: every entry of each
# example is planned alone, and its plan is its part of the whole plan (the
# LLaMA example's decode is fed by its prefill's logits)
te() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL entry: $1"; fail=$((fail + 1)); fi; }
for py in examples/llama/run.py examples/cache_compile/prefill_decode.py; do
    (cd "$root" && "$tngc" plan "$py") >"$tmp/whole" 2>/dev/null
    for e in $(sed -n 's/^entry \([^ ]*\) .*/\1/p' "$tmp/whole"); do
        (cd "$root" && "$tngc" plan --entry "$e" "$py") >"$tmp/one" 2>"$tmp/err"
        te "plan --entry $e $py: exit 0, its part of the whole plan" \
          '[ $? -eq 0 ] && [ ! -s "$tmp/err" ] && [ -s "$tmp/one" ] && python3 -c "import sys; sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())" "$tmp/one" "$tmp/whole"' ||
          head -5 "$tmp/err"
    done
done

# DOT: one document per script, a cluster per entry when there are several
(cd "$root" && "$tngc" plan --format dot examples/cache_compile/prefill_decode.py) >"$tmp/pd.dot" 2>/dev/null
te "DOT of two entries: one digraph, a cluster each, ids unique" \
  '[ "$(grep -c "^digraph" "$tmp/pd.dot")" = 1 ] && grep -q "^subgraph cluster_e0_entry" "$tmp/pd.dot" && grep -q "^subgraph cluster_e1_entry" "$tmp/pd.dot" && [ -z "$(sed -n "s/^ *\(e[0-9]*_[a-z]*[0-9]*\) \[.*/\1/p" "$tmp/pd.dot" | sort | uniq -d)" ]'

echo "plan: $pass passed, $fail failed"
[ $fail -eq 0 ]
