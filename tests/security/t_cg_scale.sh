#!/bin/sh
# The CPU target's fusion pass (codegen/fuse.c, fuse_gemm.c) stays
# near-linear in the ops of a graph. The matmul epilogue's check that a
# value has one reader scanned every op of the graph for each candidate
# step, so `tngc gen` of a chain of 200k matmuls (or of 200k elementwise
# ops with matmuls between) ran for minutes. Now the readers are counted
# once per plan and both bundles are generated well within the bound, with
# the epilogue and pointwise groups they had before.
#
#   sh tests/security/t_cg_scale.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

# Sanitizers slow everything down: the wall-clock bound is looser there.
case $(basename "$build") in
*san*) max_s=300 ;;
*) max_s=60 ;;
esac

# model NAME N BODY: a script whose forward(x, w) (both f32[4, 4]) runs
# BODY with N bound
model() {
    cat >"$tmp/$1.py" <<EOF
import torch
import torch_npu
import torchair

N = $2


class Model(torch.nn.Module):
    def forward(self, x, w):
$3
        return x


model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(4, 4).npu(), torch.randn(4, 4).npu())
EOF
}

# gen NAME: tngc gen NAME.py -o NAME under timeout; stderr in NAME.err,
# status in NAME.rc, seconds in NAME.s
gen() {
    t0=$(date +%s)
    (cd "$tmp" && timeout $((max_s + 5)) "$tngc" gen --max-time 300 "$1.py" -o "$1") \
        >/dev/null 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.rc"
    echo $(($(date +%s) - t0)) >"$tmp/$1.s"
}

# generated NAME: exit 0, nothing on stderr, within the bound
generated() {
    rc=$(cat "$tmp/$1.rc") s=$(cat "$tmp/$1.s")
    if [ "$rc" = 124 ] || [ "$s" -gt $max_s ]; then
        fail "$1" "took ${s}s or more (bound ${max_s}s)"
        return 1
    elif [ "$rc" != 0 ] || [ -s "$tmp/$1.err" ]; then
        fail "$1" "exit status $rc: $(head -n 3 "$tmp/$1.err")"
        return 1
    fi
    ok "$1 generated (${s}s)"
}

# calls NAME PATTERN MIN: NAME/NAME.c has at least MIN lines matching PATTERN
calls() {
    n=$(grep -c "$2" "$tmp/$1/$1.c")
    check "$1 $2" "[ $n -ge $3 ]" "$n lines with $2, expected at least $3"
}

# 200k matmuls, each reading the one before
model mm200k 200 "        for i in range(N):
            for j in range(1000):
                x = x @ w"
gen mm200k
generated mm200k && calls mm200k 'tngrt_kernel_matmul' 200000

# 200k elementwise ops: 14k matmuls, all but one in 100 with a six-step
# epilogue (the last's chain goes on into the run after it), and runs of
# 800 ops in pointwise groups between
model ew200k 140 "        for i in range(N):
            for j in range(100):
                x = torch.mm(x, w)
                for k in range(3):
                    x = x * 1.0001 + 0.5
            for j in range(400):
                x = x * 1.0001 + 0.5"
gen ew200k
generated ew200k && calls ew200k 'tngrt_kernel_matmul_strided_epi(' 13860 &&
    calls ew200k '/\* fused mul' 7000

[ $fails -eq 0 ]
