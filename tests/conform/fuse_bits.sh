#!/bin/sh
# Pointwise fusion and row groups give the bits of the separate kernels (codegen/fuse.c).
#
# usage: tests/conform/fuse_bits.sh TNGC [MODEL.py...]
#
# For each model (default: tests/conform/models/fuse_*.py (fuse_rows_*.py:
# LayerNorm, softmax, half RMSNorm as row kernels), super_kernel.py,
# kernels_fast.py and views_qkv.py (epilogues on matmuls that read slices
# in place)), records PyTorch's inputs at every gear
# (tests/ref/harness.py --all-gears), builds the bundle twice, fused and
# with --no-fuse, checks that the fused one has fused groups, runs both
# launchers on every recorded call and requires every output file to be
# byte for byte the same; the fused launcher runs twice, with
# TNGRT_THREADS=3 and =1, and those outputs must be the same bits too
# (runtime/par.c: a large product's columns split over threads;
# gemm_threads.py has such products), and nn_conv_fuse.py and
# nn_conv_wino.py (convolution epilogues: codegen/fuse_conv.c; the direct
# and Winograd sums of runtime/kernels_conv.c are those of the unfused
# convolution too, fused multiply-adds in every instruction set's clone),
# and gemm_bf16.py (the bfloat16 GEMM's epilogue:
# runtime/kernels_gemm_bf16.c). Prints "fuse_bits: N passed, M failed".
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC [MODEL.py...]" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-/usr/bin/python3}
[ $# -gt 0 ] || set -- "$root"/tests/conform/models/fuse_*.py "$root"/tests/conform/models/super_kernel.py \
    "$root"/tests/conform/models/kernels_fast.py "$root"/tests/conform/models/views_qkv.py \
    "$root"/tests/conform/models/gemm_threads.py "$root"/tests/conform/models/nn_conv_fuse.py \
    "$root"/tests/conform/models/nn_conv_wino.py "$root"/tests/conform/models/gemm_bf16.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-fusebits.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for script in "$@"; do
    stem=$(basename "$script" .py)
    w=$tmp/$stem
    mkdir -p "$w"
    if ! "$py" "$root/tests/ref/harness.py" "$script" "$w/ref" --all-gears >"$w/harness.log" 2>&1; then
        fail=$((fail + 1)); echo "FAIL $stem: PyTorch reference"; continue
    fi
    if ! (cd "$root" && "$tngc" build "$script" -o "$w/fused" --no-cache && "$tngc" gen "$script" -o "$w/gen") \
        >"$w/build.log" 2>&1 ||
        ! (cd "$root" && "$tngc" build "$script" -o "$w/plain" --no-fuse --no-cache) >>"$w/build.log" 2>&1; then
        fail=$((fail + 1)); echo "FAIL $stem: tngc build"; tail -n 15 "$w/build.log"; continue
    fi
    if ! grep -q 'TNGC_UNIT_END([0-9]*, "fused \|/\* fused ' "$w"/gen/*.c; then
        fail=$((fail + 1)); echo "FAIL $stem: no fused group"; continue
    fi
    for ref in "$w"/ref/*/; do
        name=$(basename "$ref")
        for call in "$ref" "$ref"gear*/; do
            [ -d "$call/inputs" ] || [ -f "$call/gear.txt" ] || continue
            [ -d "$call" ] || continue
            label="$name $(basename "$call")"
            rm -rf "$w/o1" "$w/o2" "$w/o3"
            if ! TNGRT_THREADS=3 sh "$root/tests/e2e/launch.sh" "$w/fused/${name}_launcher" "$call" "$w/o1" --warmup 0 --iters 1 >"$w/l1" 2>&1 ||
                ! TNGRT_THREADS=1 sh "$root/tests/e2e/launch.sh" "$w/fused/${name}_launcher" "$call" "$w/o3" --warmup 0 --iters 1 >"$w/l3" 2>&1 ||
                ! sh "$root/tests/e2e/launch.sh" "$w/plain/${name}_launcher" "$call" "$w/o2" --warmup 0 --iters 1 >"$w/l2" 2>&1; then
                fail=$((fail + 1)); echo "FAIL $stem $label: a launcher failed"; tail -n 5 "$w/l1" "$w/l2" "$w/l3"; continue
            fi
            n=0 diff=""
            for f in "$w"/o2/*.npy; do
                n=$((n + 1))
                cmp -s "$f" "$w/o1/$(basename "$f")" || diff="$diff $(basename "$f")"
                cmp -s "$f" "$w/o3/$(basename "$f")" || diff="$diff $(basename "$f")(1 thread)"
            done
            if [ "$n" -gt 0 ] && [ -z "$diff" ]; then
                pass=$((pass + 1)); echo "ok   $stem $label: $n outputs bitwise equal fused (3 threads, 1 thread) and unfused"
            else
                fail=$((fail + 1)); echo "FAIL $stem $label: differs fused and unfused:${diff:- no outputs}"
            fi
        done
    done
done
echo "fuse_bits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
