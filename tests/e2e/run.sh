#!/bin/sh
# End-to-end tests: tngc's bundles against the PyTorch reference.
#
# usage: tests/e2e/run.sh TNGC
#
# For every script of an example (the TNGC_BUNDLES of examples/*/Makefile)
# and of tests/e2e/models/ (small focused models: if_else.py,
# quant_swiglu.py, reduce_gears.py), in a temporary folder:
#   plan     tngc plan accepts it
#   ref      tests/ref/harness.py --all-gears records the first call of each
#            compiled entry under PyTorch (inputs, weights, expected outputs
#            and in-place updates) and, for an entry with gears, every gear
#            (gear<k>/: the recorded inputs cut or grown to the gear's shape)
#   build    tngc build SCRIPT -o out --cache-dir cache
#   run      each bundle's launcher on the recorded inputs and on every gear
#            (tests/e2e/launch.sh, --warmup 0 --iters 1; at gear k the
#            launcher must report gear k), its outputs compared with
#            PyTorch's by tests/e2e/compare.py --script SCRIPT (the
#            tolerances of the script's class, "# tolerance: matmul" or
#            default: the table at the top of compare.py)
#   cache    a second build of the same script is a cache hit and writes
#            byte-identical sources
#   no-cache two --no-cache builds into fresh folders write byte-identical
#            .c/.h (and the same as the cached build)
# (examples/static_kernel is built from a copy next to its static_kernel_build
# folder, and its manifest tree checked); then the focused checks:
#   gears    examples/dim_gears: an input shape in no gear is refused
#            (exit status 2, one line on stderr naming the gears)
#   gears    examples/dim_gears: the example's two shapes on one launcher
#   pad      examples/decoder at batch 3 (gears 1 2 4 8) with --pad equals
#            PyTorch at batch 3; tests/e2e/models/reduce_gears.py (gears on a
#            dim it reduces over) refuses --pad
#   super kernel   examples/super_kernel and tests/e2e/models/quant_swiglu.py
#            (the same, small, with no bfloat16 output): both bundles'
#            outputs on the same inputs are bitwise equal ("Precision ======
#            Success!!!")
#   trace    examples/multi_stream --trace: tracks default, 1, 2 and flow events
#   streams  examples/multi_stream: more launches give bitwise-identical outputs
#
# The harness calls go to one fork server (tests/ref/serve.sh: torch
# imported once). PYTHON selects the interpreter (default /usr/bin/python3,
# Debian's, with python3-torch); KEEP=1 keeps the temporary folder. Prints
# "e2e: N passed, M failed"; exit status 1 when a check failed.
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
e2e=$root/tests/e2e
py=${PYTHON:-/usr/bin/python3}
harness=$root/tests/ref/harness.py

if ! "$py" -c 'import torch, numpy' 2>/dev/null; then
    echo "e2e: $py cannot import torch and numpy (install python3-torch)" >&2
    echo "e2e: 0 passed, 1 failed"
    exit 1
fi

. "$root/tests/ref/serve.sh"
harness_tmp e2e
# the harness calls go to one fork server (torch imported once)
harness_serve "$tmp"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# The last lines of a log, indented.
show() { tail -n "${2:-15}" "$1" | sed 's/^/    /'; }

# build REL OUT [tngc build options]: tngc build from the repository root
# (paths in the generated #line directives are the same in every build).
build() {
    b_rel=$1 b_out=$2
    shift 2
    (cd "$root" && "$tngc" build "$b_rel" -o "$b_out" "$@")
}

# same_sources DIR1 DIR2: the generated .c/.h files of two builds are the
# same set and byte-identical; prints the differing files.
same_sources() {
    s_rc=0 s_n=0
    for f in "$1"/*.c "$1"/*.h; do
        [ -f "$f" ] || continue
        s_n=$((s_n + 1))
        if ! cmp -s "$f" "$2/$(basename "$f")"; then
            echo "    differs: $(basename "$f")"
            s_rc=1
        fi
    done
    for f in "$2"/*.c "$2"/*.h; do
        [ -f "$f" ] || continue
        if [ ! -f "$1/$(basename "$f")" ]; then
            echo "    only in the second build: $(basename "$f")"
            s_rc=1
        fi
    done
    if [ $s_n -eq 0 ]; then
        echo "    no generated sources in $1"
        s_rc=1
    fi
    return $s_rc
}

# class_of SCRIPT: the script's tolerance class (tests/e2e/compare.py).
class_of() {
    "$py" "$e2e/compare.py" --class-of "$1"
}

# run_bundle LAUNCHER REFDIR OUTDIR LOG [launcher args]: launch.sh, --warmup 0 and
# --iters 1 unless the args set --iters
run_bundle() {
    r_l=$1 r_ref=$2 r_out=$3 r_log=$4
    shift 4
    case " $* " in
    *" --iters "*) ;;
    *) set -- --iters 1 "$@" ;;
    esac
    sh "$e2e/launch.sh" "$r_l" "$r_ref" "$r_out" --warmup 0 "$@" >"$r_log" 2>&1
}

# ---- every example: reference, build, run, compare, cache ----

# An example's scripts are the TNGC_BUNDLES of its Makefile (its other .py
# files are modules they import); each must plan. examples/recompile has no
# model and no TNGC_BUNDLES.
scripts=
for mk in "$root"/examples/*/Makefile; do
    d=$(dirname "$mk")
    for s in $(sed -n 's/^TNGC_BUNDLES *:= *//p' "$mk"); do
        scripts="$scripts $d/$s"
    done
done
for script in $scripts "$root"/tests/e2e/models/*.py; do
    rel=${script#"$root"/}
    ex=$(basename "$(dirname "$script")")
    stem=$(basename "$script" .py)
    w=$tmp/$ex/$stem
    mkdir -p "$w"
    if ! "$tngc" plan "$script" >/dev/null 2>"$w/plan.log"; then
        bad "$rel: tngc plan"
        show "$w/plan.log"
        continue
    fi
    if ! "$py" "$harness" "$script" "$w/ref" --all-gears >"$w/harness.log" 2>&1; then
        bad "$rel: PyTorch reference (tests/ref/harness.py --all-gears)"
        show "$w/harness.log"
        continue
    fi
    src=$rel
    case $rel in
    examples/static_kernel/model.py)
        # tngc writes the static-kernel manifest tree into the script's
        # _aclnn_static_shape_kernel_build_dir ("./static_kernel_build"),
        # which must exist: build a copy here, not in the source tree.
        mkdir -p "$w/src/static_kernel_build"
        cp "$script" "$w/src/model.py"
        src=$w/src/model.py
        ;;
    esac
    if ! build "$src" "$w/out" --cache-dir "$w/cache" >"$w/build.log" 2>&1; then
        bad "$rel: tngc build"
        show "$w/build.log"
        continue
    fi
    ok "$rel: tngc build"
    if [ "$src" != "$rel" ]; then
        n=$(find "$w/src/static_kernel_build" -path '*aclnn_static_shape_kernel_outputs*' -name '*.json' | wc -l)
        if [ "$n" -gt 0 ]; then
            ok "$rel: static-kernel manifest tree written ($n op-info files)"
        else
            bad "$rel: no static-kernel manifest (*.json under static_kernel_build/aclnn_static_shape_kernel_outputs/)"
            find "$w/src/static_kernel_build" | head -n 10 | sed 's/^/    /'
        fi
        # one specialised kernel per distinct (op, dtypes, shapes) the plan selects
        want=$("$tngc" plan "$src" | sed -n '/^static kernels:/,$p' | grep -c ' selected$')
        # (a bundle with several gears defines them extern, model__skK: codegen/emit_cpu.c)
        got=$(grep -c '^\(static int tngc__sk\|int model__sk\)[0-9]*(void \*const \*p' "$w/out/model.c")
        if [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then
            ok "$rel: $got shape-specialised static kernels, one per distinct signature"
        else
            bad "$rel: $got static kernels compiled, the plan selects $want"
        fi
    fi
    for ref in "$w"/ref/*/; do
        ref=${ref%/}
        name=$(basename "$ref")
        launcher=$w/out/${name}_launcher
        if [ ! -x "$launcher" ]; then
            bad "$rel: bundle $name: no launcher $name""_launcher (built: $(cd "$w/out" && ls -- *_launcher 2>/dev/null | tr '\n' ' '))"
            continue
        fi
        if ! run_bundle "$launcher" "$ref" "$w/run/$name" "$w/run-$name.log"; then
            bad "$rel: bundle $name: the launcher failed"
            show "$w/run-$name.log"
            continue
        fi
        if "$py" "$e2e/compare.py" --script "$script" "$ref/expected" "$w/run/$name" \
            >"$w/cmp-$name.log" 2>&1; then
            ok "$rel: bundle $name matches PyTorch (tolerance class $(class_of "$script"))"
        else
            bad "$rel: bundle $name differs from PyTorch"
        fi
        sed 's/^/  /' "$w/cmp-$name.log"
        sed -n 's/^\([^#].*\)/  computed in float32 by the reference: \1/p' "$ref/fallbacks.txt"
        # every gear (tests/ref/harness.py --all-gears): the launcher picks
        # gear k for gear k's shapes and matches PyTorch at them
        for g in "$ref"/gear*/; do
            [ -d "$g" ] || continue
            g=${g%/}
            k=${g##*/gear}
            desc=$(sed 's/^gear [0-9]*: //' "$g/gear.txt")
            if ! run_bundle "$launcher" "$g" "$w/run/$name-gear$k" "$w/run-$name-gear$k.log"; then
                bad "$rel: bundle $name gear $k ($desc): the launcher failed"
                show "$w/run-$name-gear$k.log"
                continue
            fi
            if ! grep -q "^gear $k:" "$w/run-$name-gear$k.log"; then
                bad "$rel: bundle $name gear $k ($desc): the launcher ran $(grep '^gear' "$w/run-$name-gear$k.log")"
                continue
            fi
            if "$py" "$e2e/compare.py" --script "$script" "$g/expected" "$w/run/$name-gear$k" \
                >"$w/cmp-$name-gear$k.log" 2>&1; then
                ok "$rel: bundle $name gear $k ($desc) matches PyTorch"
            else
                bad "$rel: bundle $name gear $k ($desc) differs from PyTorch"
            fi
            sed 's/^/  /' "$w/cmp-$name-gear$k.log"
        done
    done
    # A second build of the unchanged script: a cache hit, the same sources.
    if ! build "$src" "$w/out2" --cache-dir "$w/cache" >"$w/build2.log" 2>&1; then
        bad "$rel: second tngc build"
        show "$w/build2.log"
    elif ! grep -q "cache hit" "$w/build2.log"; then
        bad "$rel: second tngc build is no cache hit"
        show "$w/build2.log"
    elif same_sources "$w/out" "$w/out2" >"$w/cmp-cache.log"; then
        ok "$rel: second build is a cache hit with byte-identical sources"
    else
        bad "$rel: second build (cache hit) wrote different sources"
        cat "$w/cmp-cache.log"
    fi
    # Two builds without the cache into fresh folders: the same sources,
    # and the same as the cached build's.
    if ! build "$src" "$w/nc1" --no-cache >"$w/nc1.log" 2>&1 \
        || ! build "$src" "$w/nc2" --no-cache >"$w/nc2.log" 2>&1; then
        bad "$rel: tngc build --no-cache"
        show "$w/nc1.log"
        [ -f "$w/nc2.log" ] && show "$w/nc2.log"
    elif same_sources "$w/nc1" "$w/nc2" >"$w/cmp-nc.log" \
        && same_sources "$w/out" "$w/nc1" >>"$w/cmp-nc.log"; then
        ok "$rel: two --no-cache builds write byte-identical sources (as the cached build)"
    else
        bad "$rel: --no-cache builds write different sources"
        cat "$w/cmp-nc.log"
    fi
done

# npy FILE SHAPE DTYPE: a small .npy of random values (seeded).
npy() {
    "$py" -c 'import sys, numpy as np
shape = tuple(int(x) for x in sys.argv[2].split(",")) 
np.save(sys.argv[1], np.random.default_rng(1).standard_normal(shape).astype(sys.argv[3]))' "$@"
}

# ---- gears: a shape in no gear is refused ----

w=$tmp/dim_gears/model
launcher=$w/out/model_launcher
if [ -x "$launcher" ]; then
    mkdir -p "$w/offgear"
    npy "$w/offgear/x1.npy" 3,2 float32
    npy "$w/offgear/x2.npy" 3,2 float32
    "$launcher" --input "x1=$w/offgear/x1.npy" --input "x2=$w/offgear/x2.npy" \
        --out-dir "$w/offgear" --warmup 0 --iters 1 >"$w/offgear/out.log" 2>"$w/offgear/err.log"
    rc=$?
    lines=$(wc -l <"$w/offgear/err.log")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q 'gear' "$w/offgear/err.log" \
        && grep -q '=2\b' "$w/offgear/err.log" && grep -q '=4\b' "$w/offgear/err.log"; then
        ok "examples/dim_gears: shape [3,2] in no gear refused: $(cat "$w/offgear/err.log")"
    else
        bad "examples/dim_gears: shape [3,2] in no gear: exit status $rc (expected 2), $lines stderr lines (expected one naming the gears 2 and 4):"
        show "$w/offgear/err.log"
    fi
else
    bad "examples/dim_gears: no launcher to test gears with"
fi

# ---- gears: the example's two shapes run on one launcher, no rebuild ----

# examples/dim_gears/model.py calls the model at [2,2] and then [4,2]: one build serves both,
# each run picks its gear, and the result is x1 + x2 (exact in float32).
if [ -x "$launcher" ]; then
    both=1
    for shape in 2,2 4,2; do
        d=$w/seed_$shape
        mkdir -p "$d"
        npy "$d/x1.npy" "$shape" float32
        "$py" -c 'import sys, numpy as np; np.save(sys.argv[1], np.load(sys.argv[2])[::-1].copy())' "$d/x2.npy" "$d/x1.npy"
        if ! "$launcher" --input "x1=$d/x1.npy" --input "x2=$d/x2.npy" --out-dir "$d" --warmup 0 --iters 1 \
            >"$d/out.log" 2>&1 || ! "$py" -c 'import sys, numpy as np
a, b, o = (np.load(sys.argv[1] + f) for f in ("/x1.npy", "/x2.npy", "/out0.npy"))
sys.exit(0 if o.shape == a.shape and (o == a + b).all() else 1)' "$d"; then
            both=0
            show "$d/out.log"
        fi
        sed -n 's/^gear/    gear/p' "$d/out.log"
    done
    if [ $both = 1 ] && grep -q '^gear 0' "$w/seed_2,2/out.log" && grep -q '^gear 1' "$w/seed_4,2/out.log"; then
        ok "examples/dim_gears: shapes [2,2] and [4,2] run on the same launcher (gears 0 and 1), results exact"
    else
        bad "examples/dim_gears: the example's two shapes on one launcher"
    fi
fi

# ---- pad: row-independent batch padded, reducing dim refused ----

# batch_rows SRC_INPUTS DST N: the recorded inputs whose dim 0 is 2 (the
# decoder's example batch) cut or grown to N rows (new rows: integers a copy
# of row 0, floats random), the others copied.
batch_rows() {
    "$py" - "$1" "$2" "$3" <<'EOF'
import os, sys
import numpy as np
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(dst, exist_ok=True)
rng = np.random.default_rng(n)
for f in sorted(f for f in os.listdir(src) if f.endswith(".npy")):
    a = np.load(os.path.join(src, f))
    if a.ndim >= 1 and a.shape[0] == 2:
        while a.shape[0] < n:
            extra = a[:1].copy() if a.dtype.kind in "iub" else \
                rng.standard_normal((1,) + a.shape[1:]).astype(a.dtype)
            a = np.concatenate([a, extra])
        a = a[:n]
    np.save(os.path.join(dst, f), a)
EOF
}

# decoder_batch N [launcher args]: the decoder's bundle at batch N against
# PyTorch at batch N (tests/ref/harness.py --inputs): with --pad, a batch in
# no gear.
decoder_batch() {
    d_n=$1
    shift
    d_w=$tmp/decoder/model/batch$d_n
    batch_rows "$tmp/decoder/model/ref/model/inputs" "$d_w/inputs" "$d_n"
    if ! "$py" "$harness" "$root/examples/decoder/model.py" "$d_w/ref" --entry Decoder.forward \
        --inputs "$d_w/inputs" >"$d_w/harness.log" 2>&1; then
        echo "    PyTorch reference at batch $d_n failed:"
        show "$d_w/harness.log"
        return 1
    fi
    if ! run_bundle "$tmp/decoder/model/out/model_launcher" "$d_w/ref/model" "$d_w/run" \
        "$d_w/run.log" "$@"; then
        echo "    the launcher failed at batch $d_n:"
        show "$d_w/run.log"
        return 1
    fi
    sed -n 's/^\(gear\|padded\)/    \1/p' "$d_w/run.log"
    if ! "$py" "$e2e/compare.py" --script "$root/examples/decoder/model.py" \
        "$d_w/ref/model/expected" "$d_w/run" >"$d_w/cmp.log" 2>&1; then
        sed 's/^/  /' "$d_w/cmp.log"
        return 1
    fi
    sed 's/^/  /' "$d_w/cmp.log"
}

# (the decoder's gears, batch 1, 2, 4 and 8, are checked above with the
# other bundles' gears)
if [ -x "$tmp/decoder/model/out/model_launcher" ] && [ -d "$tmp/decoder/model/ref/model/inputs" ]; then
    if decoder_batch 3 --pad >"$tmp/batch.log" \
        && grep -q '^padded:' "$tmp/decoder/model/batch3/run.log"; then
        ok "examples/decoder: batch 3 padded to gear 4 (--pad) matches PyTorch at batch 3"
    else
        bad "examples/decoder: batch 3 with --pad (padded to gear 4) against PyTorch at batch 3"
    fi
    cat "$tmp/batch.log"
else
    bad "examples/decoder: no decoder bundle or reference for the --pad check"
fi

rel=tests/e2e/models/reduce_gears.py
w=$tmp/models/reduce_gears
launcher=$w/out/reduce_gears_launcher
if [ -x "$launcher" ]; then
    mkdir -p "$w/pad"
    npy "$w/pad/x.npy" 3,8 float32
    "$launcher" --input "x=$w/pad/x.npy" --out-dir "$w/pad" --pad --warmup 0 --iters 1 \
        >"$w/pad/out.log" 2>"$w/pad/err.log"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$w/pad/err.log")" -eq 1 ] && grep -q 'pad' "$w/pad/err.log"; then
        ok "$rel: --pad refused on a dim it reduces over: $(cat "$w/pad/err.log")"
    else
        bad "$rel: --pad on a dim it reduces over: exit status $rc (expected 2 and one line on stderr)"
        show "$w/pad/err.log"
        show "$w/pad/out.log" 5
    fi
else
    bad "$rel: no launcher to test --pad with"
fi

# ---- super kernel: the plain and the fused bundle agree bitwise ----

# bitwise_pair SCRIPT DIR A B: bundles A and B of SCRIPT (work folder DIR)
# ran on the same inputs; their outputs must be byte-identical files.
bitwise_pair() {
    p_rel=$1 p_w=$2 p_a=$3 p_b=$4
    p_same=1 p_n=0
    for f in "$p_w/ref/$p_a"/inputs/*.npy; do
        cmp -s "$f" "$p_w/ref/$p_b/inputs/$(basename "$f")" \
            || { p_same=0; echo "  input $(basename "$f") differs"; }
    done
    for f in "$p_w/run/$p_a"/out*.npy; do
        [ -f "$f" ] || continue
        p_n=$((p_n + 1))
        if cmp -s "$f" "$p_w/run/$p_b/$(basename "$f")"; then
            echo "  $(basename "$f"): bitwise equal"
        else
            echo "  $(basename "$f"): differs"
            p_same=0
        fi
    done
    if [ $p_n -eq 0 ]; then
        echo "Precision ====== Failed."
        bad "$p_rel: $p_a wrote no outputs to compare with $p_b (see above)"
    elif [ $p_same -eq 1 ]; then
        echo "Precision ====== Success!!!"
        ok "$p_rel: $p_a and $p_b outputs bitwise equal ($p_n files)"
    else
        echo "Precision ====== Failed."
        bad "$p_rel: $p_a and $p_b outputs differ"
    fi
}
bitwise_pair examples/super_kernel/model.py "$tmp/super_kernel/model" \
    model_ModelOrigin_forward model_ModelSuperKernel_forward
bitwise_pair tests/e2e/models/quant_swiglu.py "$tmp/models/quant_swiglu" \
    quant_swiglu_ModelOrigin_forward quant_swiglu_ModelSuperKernel_forward

# ---- multi-stream trace ----

w=$tmp/multi_stream/model
launcher=$w/out/model_launcher
if [ -x "$launcher" ] && run_bundle "$launcher" "$w/ref/model" "$w/trace" "$w/trace.log" \
        --trace "$w/trace/trace.json"; then
    if "$py" "$e2e/check_trace.py" "$w/trace/trace.json" default 1 2 >"$w/trace.chk" 2>&1; then
        ok "examples/multi_stream --trace: tracks default, 1, 2 with flow events"
    else
        bad "examples/multi_stream --trace"
    fi
    cat "$w/trace.chk"
else
    bad "examples/multi_stream --trace: no launcher, or it failed"
    [ -f "$w/trace.log" ] && show "$w/trace.log"
fi

# ---- multi-stream: the same results run after run ----

# Three launches of 5 runs each: the streams' interleaving changes, the
# outputs must not (a missing event shows up as a race here).
w=$tmp/multi_stream/model
launcher=$w/out/model_launcher
if [ -x "$launcher" ] && [ -d "$w/run/model" ]; then
    same=1
    for k in 1 2 3; do
        if ! run_bundle "$launcher" "$w/ref/model" "$w/again$k" "$w/again$k.log" --iters 5; then
            same=0
            show "$w/again$k.log"
            break
        fi
        for f in "$w/run/model"/*.npy; do
            cmp -s "$f" "$w/again$k/$(basename "$f")" || { same=0; echo "  launch $k: $(basename "$f") differs"; }
        done
    done
    if [ $same -eq 1 ]; then
        ok "examples/multi_stream: 3 more launches (5 runs each) give bitwise-identical outputs"
    else
        bad "examples/multi_stream: outputs differ from launch to launch"
    fi
fi

# ---- valgrind: the decoder's launcher (streams, kernels, IO) is clean ----

# Skipped for sanitizer builds (their launchers carry ASan) and without valgrind.
w=$tmp/decoder/model
launcher=$w/out/model_launcher
case $tngc in */san/*) vg=0 ;; *) vg=1 ;; esac
if [ $vg = 1 ] && command -v valgrind >/dev/null 2>&1 && [ -x "$launcher" ]; then
    if VALGRIND="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect -q" \
        run_bundle "$launcher" "$w/ref/model" "$w/vg" "$w/vg.log" --iters 2 --trace "$w/vg.json" &&
        ! grep -q "==[0-9]*==" "$w/vg.log"; then
        ok "examples/decoder: the launcher is valgrind-clean (2 runs, a trace)"
    else
        bad "examples/decoder: valgrind reports errors"
        show "$w/vg.log" 20
    fi
fi

echo "e2e: $pass passed, $fail failed"

[ $fail -eq 0 ]
