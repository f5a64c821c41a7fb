#!/bin/sh
# The aclsim suite: ACL bundles (tngc build --target acl) executed by aclsim
# (tests/aclsim/aclsim.c: streams as threads, aclnn operators as reference
# loops, the race and lifetime checker) and compared with PyTorch.
#
# usage: tests/aclsim/run.sh TNGC [MODEL.py...]
#
# For each script (default: the MODELS, EXAMPLES and OWN below), in a
# temporary folder:
#   ref      tests/ref/harness.py --all-gears records it under PyTorch
#            (one fork server for all: tests/ref/serve.sh);
#   eager    tngc build --target acl --acl-home SIM (the toolkit build.sh
#            makes) and each bundle's launcher on the recorded call and on
#            every gear (launch.sh, --warmup 0 --iters 1), compared with
#            tests/e2e/compare.py --script MODEL (the model's tolerance class);
#   captured the same model with its CompilerConfig in reduce-overhead mode:
#            a static gear runs eagerly once, is captured, then replayed
#            (--warmup 1 --iters 2: the outputs compared are a replay's, and
#            the launcher must have replayed: aclsim's TNGC_ACLSIM_LOG), byte
#            for byte equal to the eager build's third call, and compared
#            with PyTorch too unless that third call differs from the first
#            (a script whose runs update inputs or state in place);
#   mutations (mutate.sh, on tests/conform/models/streams.py; left out
#            with ACLSIM_NO_MUTATIONS=1): one planned event wait removed,
#            one workspace shrunk, two arguments of one aclnn call swapped,
#            each failing with a message naming it.
# A failing (model, mode) is expected only when README.md's "Known
# failures" block lists it with a part of its message; a listed one that
# passes, or fails otherwise, fails the suite too.
# Prints one line per check and "aclsim: N passed, M failed".
# PYTHON: the interpreter (default /usr/bin/python3, with torch); KEEP=1
# keeps the temporary folder.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC [MODEL.py...]" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/aclsim
e2e=$root/tests/e2e
py=${PYTHON:-/usr/bin/python3}
harness=$root/tests/ref/harness.py
# the default scripts: conformance models (by name) and examples (DIR/SCRIPT)
MODELS="binary casts math_unary norms matmul views shape_misc reduce_topk index_ops inplace
alias_forms accept_llama super_kernel streams nn_conv npu_attention npu_attention_sparse npu_static
npu_moe_gating npu_ops"
EXAMPLES="multi_stream/model dim_gears/product decoder/model"
OWN="nz_weights"   # tests/aclsim/models: what no other script covers (FRACTAL_NZ weights)

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
show() { tail -n "${2:-8}" "$1" | sed 's/^/    /'; }

if ! "$py" -c 'import torch, numpy' 2>/dev/null; then
    echo "aclsim: $py cannot import torch and numpy (install python3-torch)" >&2
    echo "aclsim: 0 passed, 1 failed"
    exit 1
fi
if [ $# -eq 0 ]; then
    for m in $MODELS; do set -- "$@" "$root/tests/conform/models/$m.py"; done
    for m in $EXAMPLES; do set -- "$@" "$root/examples/$m.py"; done
    for m in $OWN; do set -- "$@" "$here/models/$m.py"; done
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-aclsim.XXXXXX") || exit 2
. "$root/tests/ref/serve.sh"
if [ "${KEEP:-0}" = 1 ]; then
    echo "aclsim: keeping $tmp"
    trap 'harness_stop' EXIT
else
    trap 'harness_stop; rm -rf "$tmp"' EXIT
    trap 'harness_stop; rm -rf "$tmp"; exit 1' INT TERM
fi
sim=$tmp/sim
if ! sh "$here/build.sh" "$sim" >"$tmp/sim.log" 2>&1; then
    bad "tests/aclsim/build.sh builds the toolkit"
    show "$tmp/sim.log"
    echo "aclsim: $pass passed, $fail failed"
    exit 1
fi
harness_serve "$tmp"

# the known failures: README.md's block after "## Known failures", one
# "MODEL MODE: TEXT" a line, TEXT a part of the failure's message
known=$(sed -n '/^## Known failures/,/^## /p' "$here/README.md" | sed -n '/^```$/,/^```$/p' | grep -v '^```')
known_text() { printf '%s\n' "$known" | sed -n "s|^$1 $2: ||p" | head -n 1; }

# check MODEL MODE STATUS DETAIL: one (model, mode) judged against the list
check() {
    c_text=$(known_text "$1" "$2")
    if [ "$3" = ok ]; then
        if [ -n "$c_text" ]; then
            bad "$1 $2: passes, but README.md lists it as a known failure ($4)"
        else
            ok "$1 $2: matches PyTorch ($4)"
        fi
    elif [ -z "$c_text" ]; then
        bad "$1 $2: $4"
    elif printf '%s\n' "$4" | grep -qF -- "$c_text"; then
        ok "$1 $2: fails as README.md's known failures say ($c_text)"
    else
        bad "$1 $2: fails otherwise than README.md's known failures say (\"$c_text\"): $4"
    fi
}

# run_mode SCRIPT LABEL MODE: builds and runs every bundle and gear; sets
# status (ok or failed) and detail
run_mode() {
    r_script=$1 r_label=$2 r_mode=$3 r_w=$tmp/$2/$3
    r_stem=$(basename "$r_script" .py)
    mkdir -p "$r_w/src/static_kernel_build"
    if [ "$r_mode" = captured ]; then
        sed 's/^\([ \t]*\)\([A-Za-z_][A-Za-z_0-9]*\) = [A-Za-z_.]*CompilerConfig()$/&\n\1\2.mode = "reduce-overhead"/' \
            "$r_script" >"$r_w/src/$r_stem.py"
        if cmp -s "$r_script" "$r_w/src/$r_stem.py"; then
            status=failed detail="no \"NAME = CompilerConfig()\" line to set reduce-overhead mode on"
            return
        fi
    else
        cp "$r_script" "$r_w/src/$r_stem.py"
    fi
    for f in "$(dirname "$r_script")"/*.py; do
        [ -e "$r_w/src/$(basename "$f")" ] || cp "$f" "$r_w/src/"
    done
    if ! (cd "$r_w/src" && "$tngc" build --target acl --acl-home "$sim" --no-cache --opt -O0 -o ../out "$r_stem.py") \
        >"$r_w/build.log" 2>&1; then
        status=failed detail="tngc build --target acl: $(grep -m1 'error' "$r_w/build.log" || tail -n 1 "$r_w/build.log")"
        return
    fi
    status=ok detail='' worst=0 n=0
    for ref in "$tmp/$r_label"/ref/*/; do
        ref=${ref%/}
        name=$(basename "$ref")
        calls=$ref
        [ -f "$ref/gears.txt" ] && calls=$(ls -d "$ref"/gear*/)
        for c in $calls; do
            c=${c%/}
            o=$r_w/run-$name-$(basename "$c")
            iters="--warmup 0 --iters 1"
            [ "$r_mode" = captured ] && iters="--warmup 1 --iters 2"
            rm -f "$tmp/simlog"
            # shellcheck disable=SC2086
            if ! TNGC_ACLSIM_LOG=$tmp/simlog sh "$here/launch.sh" "$r_w/out/${name}_launcher" "$c" "$o" $iters \
                >"$o.log" 2>&1; then
                status=failed detail="$name $(basename "$c"): $(grep -m1 'aclsim:\|error' "$o.log" || tail -n 1 "$o.log")"
                return
            fi
            if [ "$r_mode" = captured ] && grep -q "^gear [0-9]*: all static" "$o.log" &&
                ! grep -q "^replay" "$tmp/simlog" 2>/dev/null; then
                status=failed detail="$name $(basename "$c"): a static gear in reduce-overhead mode was not replayed"
                return
            fi
            if [ "$r_mode" = captured ]; then
                # the replay against the eager build's third call, byte for
                # byte; and against PyTorch too unless the eager build's
                # third call differs from its first (inputs or state
                # updated in place by every run)
                e=$tmp/$r_label/eager/run-$name-$(basename "$c")
                # shellcheck disable=SC2086
                if ! sh "$here/launch.sh" "$tmp/$r_label/eager/out/${name}_launcher" "$c" "$e-3" $iters \
                    >"$e-3.log" 2>&1; then
                    status=failed detail="$name $(basename "$c"): the eager launcher failed at its third call"
                    return
                fi
                same=1
                for f in "$e-3"/*.npy; do
                    if ! cmp -s "$f" "$o/$(basename "$f")"; then
                        status=failed detail="$name $(basename "$c"): $(basename "$f") of the replay differs from the eager run's"
                        return
                    fi
                    cmp -s "$f" "$e/$(basename "$f")" || same=0
                done
                if [ $same = 0 ]; then
                    n=$((n + 1))
                    continue
                fi
            fi
            if ! "$py" "$e2e/compare.py" --script "$r_script" "$c/expected" "$o" >"$o.cmp" 2>&1; then
                status=failed detail="$name $(basename "$c"): differs from PyTorch: $(grep -m1 FAIL "$o.cmp" | sed 's/^ *//')"
                return
            fi
            w=$(sed -n 's/.*, worst \([0-9.]*\) of the tolerance.*/\1/p' "$o.cmp" | sort -n | tail -n 1)
            worst=$(printf '%s\n%s\n' "$worst" "${w:-0}" | sort -n | tail -n 1)
            n=$((n + 1))
        done
    done
    detail="$n calls, worst $worst of the tolerance"
}

t0=$(date +%s)
for script in "$@"; do
    script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
    # a conformance model by its name, an example's script as DIR/SCRIPT
    case $script in
    "$root"/tests/conform/models/*) label=$(basename "$script" .py) ;;
    *) label=$(basename "$(dirname "$script")")/$(basename "$script" .py) ;;
    esac
    mkdir -p "$tmp/$label"
    if ! "$py" "$harness" "$script" "$tmp/$label/ref" --all-gears >"$tmp/$label/harness.log" 2>&1; then
        bad "$label: PyTorch reference (tests/ref/harness.py --all-gears)"
        show "$tmp/$label/harness.log"
        continue
    fi
    for mode in eager captured; do
        run_mode "$script" "$label" "$mode"
        check "$label" "$mode" "$status" "$detail"
    done
done
harness_stop

if [ -z "${ACLSIM_NO_MUTATIONS:-}" ]; then
    sh "$here/mutate.sh" "$tngc" "$sim" "$tmp/mut" >"$tmp/mut.log" 2>&1
    sed -n 's/^\(ok  \|FAIL\) /&/p' "$tmp/mut.log"
    pass=$((pass + $(grep -c '^ok ' "$tmp/mut.log"))) fail=$((fail + $(grep -c '^FAIL ' "$tmp/mut.log")))
fi
t1=$(date +%s)
echo "aclsim: $pass passed, $fail failed ($((t1 - t0)) s)"
[ $fail -eq 0 ]
