#!/bin/sh
# Numerical conformance: tngc's bundles against PyTorch, every gear.
#
# usage: tests/conform/run.sh TNGC [MODEL.py...]
#
# For every focused model of tests/conform/models/ (or the scripts given),
# in a temporary folder:
#   ref      tests/ref/harness.py --all-gears records the first call of each
#            compiled entry under PyTorch and, for a geared entry, every gear
#            (inputs, weights, expected outputs and in-place updates; the ops
#            computed in float32 because PyTorch 1.13's CPU cannot are listed
#            in fallbacks.txt and shown here)
#   build    tngc build SCRIPT -o out --cache-dir CACHE (one cache for all);
#            a script that sets _aclnn_static_shape_kernel_build_dir (static
#            kernels: tngc writes the manifest tree there, next to the
#            script) is built from a copy beside an empty static_kernel_build/
#   run      each bundle's launcher on the recorded call and on every gear
#            (tests/e2e/launch.sh, --warmup 0 --iters 1); for a gear, the
#            launcher must report that gear's index (the harness and tngc
#            number the gears alike)
#   compare  tests/e2e/compare.py --script SCRIPT: the tolerance class the
#            script declares ("# tolerance: matmul", else "default") and
#            the dtype's tolerances of compare.py's TOLERANCES table
# One check per (bundle, call): "ok   MODEL BUNDLE gear K: matches PyTorch".
#
# The models run JOBS at a time (default: as many as there are CPUs), their
# lines printed in the order the models were given; their harness calls go
# to one fork server (tests/ref/serve.sh: torch imported once).
# PYTHON selects the interpreter (default /usr/bin/python3, Debian's, with
# python3-torch); KEEP=1 keeps the temporary folder. Prints
# "conform: N passed, M failed"; exit status 1 when a check failed.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC [MODEL.py...]" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/conform
e2e=$root/tests/e2e
py=${PYTHON:-/usr/bin/python3}
harness=$root/tests/ref/harness.py

if [ -z "${CONFORM_ONE:-}" ] && ! "$py" -c 'import torch, numpy' 2>/dev/null; then
    echo "conform: $py cannot import torch and numpy (install python3-torch)" >&2
    echo "conform: 0 passed, 1 failed"
    exit 1
fi
[ $# -gt 0 ] || set -- "$here"/models/*.py

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
show() { tail -n "${2:-15}" "$1" | sed 's/^/    /'; }

# check_call SCRIPT REL LAUNCHER REFDIR OUTDIR LABEL [GEAR]: runs the launcher
# on one recorded call and compares its results with PyTorch's.
check_call() {
    c_script=$1 c_rel=$2 c_l=$3 c_ref=$4 c_out=$5 c_label=$6 c_gear=${7:-}
    if ! sh "$e2e/launch.sh" "$c_l" "$c_ref" "$c_out" --warmup 0 --iters 1 \
        >"$c_out.log" 2>&1; then
        bad "$c_rel $c_label: the launcher failed"
        show "$c_out.log"
        return
    fi
    if [ -n "$c_gear" ] && ! grep -q "^gear $c_gear:" "$c_out.log"; then
        bad "$c_rel $c_label: the launcher ran $(grep '^gear' "$c_out.log"), not gear $c_gear"
        return
    fi
    if "$py" "$e2e/compare.py" --script "$c_script" "$c_ref/expected" "$c_out" \
        >"$c_out.cmp" 2>&1; then
        c_worst=$(sed -n 's/.*, worst \([0-9.]*\) of the tolerance.*/\1/p' "$c_out.cmp" | sort -n | tail -n 1)
        ok "$c_rel $c_label: matches PyTorch ($(sed -n 's/^gear/gear/p' "$c_out.log"); worst ${c_worst:-0} of the tolerance)"
    else
        bad "$c_rel $c_label: differs from PyTorch"
    fi
    sed 's/^/  /' "$c_out.cmp"
}

# run_one SCRIPT: every check of one model (its lines on stdout).
run_one() {
    script=$1
    script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
    rel=${script#"$root"/}
    stem=$(basename "$script" .py)
    w=$tmp/$stem
    mkdir -p "$w"
    cls=$("$py" "$e2e/compare.py" --class-of "$script")
    if ! "$py" "$harness" "$script" "$w/ref" --all-gears >"$w/harness.log" 2>&1; then
        bad "$rel: PyTorch reference (tests/ref/harness.py --all-gears)"
        show "$w/harness.log"
        return
    fi
    src=$rel
    if grep -q '_aclnn_static_shape_kernel_build_dir' "$script"; then
        mkdir -p "$w/src/static_kernel_build"
        cp "$script" "$w/src/"
        src=$w/src/$(basename "$script")
    fi
    if ! (cd "$root" && "$tngc" build "$src" -o "$w/out" --cache-dir "$tmp/cache") \
        >"$w/build.log" 2>&1; then
        bad "$rel: tngc build"
        show "$w/build.log"
        return
    fi
    echo "== $rel (tolerance class $cls)"
    for ref in "$w"/ref/*/; do
        ref=${ref%/}
        name=$(basename "$ref")
        launcher=$w/out/${name}_launcher
        if [ ! -x "$launcher" ]; then
            bad "$rel: bundle $name: no launcher (built: $(cd "$w/out" && ls -- *_launcher 2>/dev/null | tr '\n' ' '))"
            return
        fi
        sed -n 's/^\([^#].*\)/  fallback: \1/p' "$ref/fallbacks.txt"
        if [ -f "$ref/gears.txt" ]; then
            for g in "$ref"/gear*/; do
                g=${g%/}
                k=${g##*/gear}
                check_call "$script" "$rel" "$launcher" "$g" "$w/run-$name-gear$k" \
                    "$name gear $k [$(sed 's/^gear [0-9]*: //' "$g/gear.txt")]" "$k"
            done
        else
            check_call "$script" "$rel" "$launcher" "$ref" "$w/run-$name" "$name"
        fi
    done
}

# The models run JOBS at a time (default: the CPUs), each in a worker (this
# script again, with CONFORM_ONE set to the shared temporary folder) that
# writes its lines and counts there; they are printed in the models' order.
if [ -n "${CONFORM_ONE:-}" ]; then
    tmp=$CONFORM_ONE
    stem=$(basename "$1" .py)
    run_one "$1" >"$tmp/$stem.lines" 2>&1
    echo "$pass $fail" >"$tmp/$stem.count"
    exit 0
fi
. "$root/tests/ref/serve.sh"
harness_tmp conform
# the workers' harness calls go to one fork server (torch imported once)
harness_serve "$tmp"
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
printf '%s\n' "$@" | CONFORM_ONE=$tmp xargs -d '\n' -P "$jobs" -n 1 sh "$here/run.sh" "$tngc"
harness_stop
for script in "$@"; do
    worker_collect "$(basename "$script" .py)" "$script"
done

echo "conform: $pass passed, $fail failed"
[ $fail -eq 0 ]
