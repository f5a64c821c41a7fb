#!/bin/sh
# Golden tests: tests/golden/lint/X.py -> X.err (the text of `tngc lint X.py`)
# and tests/golden/scan/X.py -> X.json (`tngc scan --format json X.py`);
# tests/golden/plan/X.py -> X.plan (`tngc plan X.py`: exit status 0, nothing
# on stderr) and tests/golden/plan_err/X.py -> X.err (the diagnostics `tngc
# plan X.py` writes to stderr, gcc style like lint's); tests/golden/gen/X.c
# (the bundle sources of `tngc gen --no-line` on examples/X/model.py).
# Paths are normalised by running from the script's folder.
# A first line `# tngc-args: ...` passes options to tngc.
# Lint and plan_err scripts also carry `# expect: TNG123[,TNG124]` on each
# line where a diagnostic is expected: the (line, rule) set of the output
# must equal the markers' set, so a golden regenerated with UPDATE=1 cannot
# drift from them. Their exit status must be 1 when the output has an error
# (or a warning with --werror), else 0.
#
# usage: tests/golden/run.sh [TNGC]      UPDATE=1 rewrites the expected files
set -u
tngc=$(cd "$(dirname "${1:-build/tngc}")" && pwd)/$(basename "${1:-build/tngc}")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() {   # name expected actual
    if [ "${UPDATE:-}" = 1 ]; then
        cp "$3" "$2"
    fi
    if [ -f "$2" ] && diff -u "$2" "$3" >"$tmp/diff"; then
        return 0
    fi
    echo "FAIL $1: output differs from $(basename "$2")"
    [ -f "$2" ] && cat "$tmp/diff" | head -40
    return 1
}

markers_match() {   # name script output: the # expect markers against the output
    # (line, rule) pairs: from the markers and from the output
    awk '{ if (match($0, /# expect: *TNG[0-9]+(, *TNG[0-9]+)*/)) {
              s = substr($0, RSTART, RLENGTH); sub(/# expect: */, "", s);
              n = split(s, r, /, */); for (i = 1; i <= n; i++) print NR, r[i] } }' "$2" | sort -u >"$tmp/want"
    sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: [a-z]*: .*\[\(TNG[0-9]*\)\]$/\1 \2/p' "$3" | sort -u >"$tmp/got"
    if ! cmp -s "$tmp/want" "$tmp/got"; then
        echo "FAIL $1: diagnostics differ from the # expect markers (< expected, > reported):"
        diff "$tmp/want" "$tmp/got" | grep '^[<>]'
        return 1
    fi
    return 0
}

want_status() {   # args output: 1 for an error, or a warning with --werror
    want=0
    grep -q ': error: ' "$2" && want=1
    case " $1 " in *" --werror "*) grep -q ': warning: ' "$2" && want=1 ;; esac
    echo $want
}

for py in "$here"/lint/*.py; do
    name=lint/$(basename "$py")
    base=${py%.py}
    args=$(sed -n '1s/^# tngc-args: //p' "$py")
    (cd "$here/lint" && "$tngc" lint $args "$(basename "$py")") >"$tmp/out" 2>"$tmp/err"
    status=$?
    ok=1
    check "$name" "$base.err" "$tmp/out" || ok=0
    want=$(want_status "$args" "$tmp/out")
    if [ $status -ne $want ]; then
        echo "FAIL $name: exit status $status, expected $want"; ok=0
    fi
    if [ -s "$tmp/err" ]; then
        echo "FAIL $name: unexpected stderr:"; cat "$tmp/err"; ok=0
    fi
    markers_match "$name" "$py" "$tmp/out" || ok=0
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

for py in "$here"/scan/*.py; do
    [ -f "$py" ] || continue
    name=scan/$(basename "$py")
    args=$(sed -n '1s/^# tngc-args: //p' "$py")
    (cd "$here/scan" && "$tngc" scan --format json $args "$(basename "$py")") >"$tmp/out" 2>"$tmp/err"
    status=$?
    if check "$name" "${py%.py}.json" "$tmp/out" && [ $status -le 1 ]; then
        pass=$((pass + 1))
    else
        [ $status -le 1 ] || echo "FAIL $name: exit status $status"
        fail=$((fail + 1))
    fi
done

# the JSON and SARIF formats of lint: formats/X.py -> X.json, X.sarif
for py in "$here"/formats/*.py; do
    [ -f "$py" ] || continue
    for fmt in json sarif; do
        name="formats/$(basename "$py") ($fmt)"
        (cd "$here/formats" && "$tngc" lint --format $fmt "$(basename "$py")") >"$tmp/out" 2>"$tmp/err"
        status=$?
        if check "$name" "${py%.py}.$fmt" "$tmp/out" && [ $status -eq 1 ] &&
           python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"; then
            pass=$((pass + 1))
        else
            echo "FAIL $name: exit status $status, or not JSON"
            fail=$((fail + 1))
        fi
    done
done

# tngc plan: plan/X.py -> X.plan; the plan must succeed without a diagnostic
for py in "$here"/plan/*.py; do
    [ -f "$py" ] || continue
    name=plan/$(basename "$py")
    args=$(sed -n '1s/^# tngc-args: //p' "$py")
    (cd "$here/plan" && "$tngc" plan $args "$(basename "$py")") >"$tmp/out" 2>"$tmp/err"
    status=$?
    ok=1
    check "$name" "${py%.py}.plan" "$tmp/out" || ok=0
    if [ $status -ne 0 ]; then
        echo "FAIL $name: exit status $status, expected 0"; ok=0
    fi
    if [ -s "$tmp/err" ]; then
        echo "FAIL $name: unexpected stderr:"; head -20 "$tmp/err"; ok=0
    fi
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

# tngc plan on scripts with graph breaks, shape errors, ...: plan_err/X.py
# -> X.err (the diagnostics, which tngc plan writes to stderr), checked
# against the # expect markers like lint. With an error no plan is printed;
# with warnings only (TNG210) the plan on stdout is not compared.
for py in "$here"/plan_err/*.py; do
    [ -f "$py" ] || continue
    name=plan_err/$(basename "$py")
    args=$(sed -n '1s/^# tngc-args: //p' "$py")
    (cd "$here/plan_err" && "$tngc" plan $args "$(basename "$py")") >"$tmp/stdout" 2>"$tmp/out"
    status=$?
    ok=1
    check "$name" "${py%.py}.err" "$tmp/out" || ok=0
    want=$(want_status "$args" "$tmp/out")
    if [ $status -ne $want ]; then
        echo "FAIL $name: exit status $status, expected $want"; ok=0
    fi
    if [ $want = 1 ] && [ -s "$tmp/stdout" ]; then
        echo "FAIL $name: a plan was printed despite errors"; ok=0
    fi
    if ! grep -q '# expect: *TNG' "$py"; then
        echo "FAIL $name: no # expect marker"; ok=0
    fi
    markers_match "$name" "$py" "$tmp/out" || ok=0
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

# tngc gen: gen/X.c holds the bundle sources (<name>.c of every entry, and
# <name>_gears_K.c of a bundle with several gears, in name order) that `tngc gen --no-line model.py` writes in examples/X/; they
# must also compile cleanly (-Wall -Wextra -Werror) against the runtime.
rt=$(cd "$here/../../runtime" && pwd)
for exp in "$here"/gen/*.c; do
    [ -f "$exp" ] || continue
    ex=$(basename "$exp" .c)
    name=gen/$ex
    rm -rf "$tmp/gen"
    (cd "$here/../../examples/$ex" && "$tngc" gen --no-line -o "$tmp/gen" model.py) >"$tmp/stdout" 2>"$tmp/err"
    status=$?
    ok=1
    ls "$tmp/gen"/*.c 2>/dev/null | grep -v '_launcher.c$' | sort | xargs cat >"$tmp/out" 2>/dev/null
    check "$name" "$exp" "$tmp/out" || ok=0
    if [ $status -ne 0 ] || [ -s "$tmp/err" ]; then
        echo "FAIL $name: exit status $status:"; head -20 "$tmp/err"; ok=0
    fi
    for c in "$tmp/gen"/*.c; do
        [ -f "$c" ] || continue
        if ! ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$rt" -I"$tmp/gen" "$c" 2>"$tmp/cc"; then
            echo "FAIL $name: $(basename "$c") does not compile:"; head -20 "$tmp/cc"; ok=0
        fi
    done
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
