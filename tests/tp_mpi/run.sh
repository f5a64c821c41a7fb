#!/bin/sh
# Tensor parallel over MPI (tngc --world-size N, docs/bundles.md):
# (The bundles are compiled with --opt -O0: the kernels are libtngcrt's.)
# - collectives.py (every collective tngc compiles) built for 2 and 4 ranks
#   and run under mpirun: each rank's outputs against numpy
#   (check_collectives.py);
# - streams.py: collectives on a second stream (npu_stream_switch) and on
#   the default one, with an npu_wait_tensor, on 2 and 4 ranks: the plan
#   puts them on their streams, ordered across them; outputs against numpy;
# - static_kernel.py: an all_reduce in a reduce-overhead entry with static
#   kernels, on 2 ranks;
# - all_to_all.py: all_to_all_single with equal blocks and with split sizes
#   (MPI_Ialltoall, MPI_Ialltoallv) on 2 ranks, and all_to_all_wide.py's
#   split sizes on 8 (the most tngc takes them for; 9 is refused), against
#   numpy's simulation of the exchange (check_all_to_all.py);
# - groups.py: process groups other than the world ([0, 1], [2, 3], [0, 2])
#   and ReduceOp.AVG (all_reduce, reduce_scatter, float16) on 4 ranks,
#   against numpy (check_groups.py);
# - examples/tp_llama built for 2 and 4 ranks, every gear, each rank's
#   logits against the unsharded model in PyTorch (make ref run);
# - the same on the ACL target over HCCL, run on aclsim (acl.sh: one process
#   per rank with RANK_ID and RANK_TABLE_FILE);
# - a rank that cannot load its weights: every rank exits, mpirun's status
#   is not 0, the rank's error and the abort line are printed, in seconds;
# - refusals at plan time (located diagnostics, exit 1) and the usage
#   errors of --world-size.
# Skipped (one line, exit 0) where mpirun is absent.
#
# usage: tests/tp_mpi/run.sh [TNGC]
set -u
tngc=$(cd "$(dirname "${1:-build/tngc}")" && pwd)/$(basename "${1:-build/tngc}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
if ! command -v mpirun >/dev/null 2>&1; then
    echo "tp-mpi: skipped (no mpirun: scripts/deps.sh installs libopenmpi-dev)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"   # the builds' cache, not the user's
mpirun="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && mpirun="$mpirun --allow-run-as-root"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# ---- the collectives, 2 and 4 ranks ----
$py - "$tmp" <<'EOF'
import sys
import numpy as np
import torch
rng = np.random.default_rng(0)
x = rng.standard_normal((4, 4)).astype(np.float32)
w = rng.standard_normal((4, 4)).astype(np.float32)
np.save(f"{sys.argv[1]}/x.npy", x)
np.save(f"{sys.argv[1]}/w.npy", w)
torch.save({"w.weight": torch.from_numpy(w)}, f"{sys.argv[1]}/w.pt")
EOF
for n in 2 4; do
    if ! "$tngc" build --opt -O0 --world-size $n "$here/collectives.py" -o "$tmp/c$n" >"$tmp/out" 2>&1; then
        bad "collectives: build --world-size $n"; cat "$tmp/out"; continue
    fi
    (cd "$tmp" && timeout 60 $mpirun -np $n "c$n/collectives_launcher" --weights w.pt --input x=x.npy \
        --out-dir 'co{rank}' --warmup 0 --iters 1) >"$tmp/out" 2>&1
    if [ $? -ne 0 ]; then
        bad "collectives: mpirun -np $n"; tail -n 20 "$tmp/out"
    elif $py "$here/check_collectives.py" $n "$tmp"; then
        ok
    else
        bad "collectives: $n ranks differ from numpy"
    fi
    rm -rf "$tmp"/co[0-9]
done

# ---- all_to_all_single, equal blocks and split sizes, 2 ranks ----
$py -c 'import sys, numpy as np; np.save(sys.argv[1] + "/x43.npy", np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32))' "$tmp"
if "$tngc" build --opt -O0 --world-size 2 "$here/all_to_all.py" -o "$tmp/a2a" >"$tmp/out" 2>&1 &&
   (cd "$tmp" && timeout 60 $mpirun -np 2 a2a/all_to_all_launcher --input x=x43.npy --out-dir 'ao{rank}' \
        --warmup 0 --iters 1) >"$tmp/out" 2>&1 &&
   $py "$here/check_all_to_all.py" "$tmp" ao >>"$tmp/out" 2>&1
then ok; else bad "all_to_all_single on 2 ranks"; tail -n 20 "$tmp/out"; fi

# ---- all_to_all_single with split sizes on 8 ranks; 9 refused ----
$py -c 'import sys, numpy as np; np.save(sys.argv[1] + "/x83.npy", np.random.default_rng(2).standard_normal((8, 3)).astype(np.float32))' "$tmp"
if "$tngc" build --opt -O0 --world-size 8 "$here/all_to_all_wide.py" -o "$tmp/a2w" >"$tmp/out" 2>&1 &&
   (cd "$tmp" && timeout 60 $mpirun -np 8 a2w/all_to_all_wide_launcher --input x=x83.npy --out-dir 'wo{rank}' \
        --warmup 0 --iters 1) >"$tmp/out" 2>&1 &&
   $py "$here/check_all_to_all.py" "$tmp" wo 8 >>"$tmp/out" 2>&1
then ok; else bad "all_to_all_single with split sizes on 8 ranks"; tail -n 20 "$tmp/out"; fi
rm -rf "$tmp"/wo[0-9]
"$tngc" plan --world-size 9 "$here/all_to_all_wide.py" >/dev/null 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "all_to_all_wide.py:21:9: error: .*split sizes over a group of 9 ranks: tngc takes them for at most 8 ranks \[TNG203\]" "$tmp/err"
then ok; else bad "all_to_all_single with split sizes on 9 ranks: not refused"; cat "$tmp/err"; fi

# ---- process groups and ReduceOp.AVG, 4 ranks ----
if "$tngc" build --opt -O0 --world-size 4 "$here/groups.py" -o "$tmp/g4" >"$tmp/out" 2>&1 &&
   (cd "$tmp" && timeout 60 $mpirun -np 4 g4/groups_launcher --weights w.pt --input x=x.npy --out-dir 'go{rank}' \
        --warmup 0 --iters 1) >"$tmp/out" 2>&1 &&
   $py "$here/check_groups.py" "$tmp" >>"$tmp/out" 2>&1
then ok; else bad "groups.py on 4 ranks"; tail -n 20 "$tmp/out"; fi
rm -rf "$tmp"/go[0-9]

# ---- collectives on a second stream, 2 and 4 ranks ----
for n in 2 4; do
    if ! "$tngc" plan --world-size $n "$here/streams.py" >"$tmp/plan" 2>&1 ||
       ! grep -q '^  %2 all_gather on stream 1 ("comm")' "$tmp/plan" ||
       ! grep -q 'e1: stream 1 after %2 -> stream 0 before %4$' "$tmp/plan"; then
        bad "streams: plan --world-size $n"; head -60 "$tmp/plan"; continue
    fi
    if ! "$tngc" build --opt -O0 --world-size $n "$here/streams.py" -o "$tmp/s$n" >"$tmp/out" 2>&1; then
        bad "streams: build --world-size $n"; cat "$tmp/out"; continue
    fi
    (cd "$tmp" && timeout 60 $mpirun -np $n "s$n/streams_launcher" --input x=x.npy --out-dir 'st{rank}' \
        --warmup 2 --iters 20) >"$tmp/out" 2>&1
    if [ $? -ne 0 ]; then
        bad "streams: mpirun -np $n"; tail -n 20 "$tmp/out"
    elif $py - $n "$tmp" <<'EOF'
import sys
import numpy as np
n, d = int(sys.argv[1]), sys.argv[2]
x = np.load(f"{d}/x.npy")
ys = [x * (r + 1) for r in range(n)]
g = np.concatenate(ys, 0)
want = (g, sum(y @ y for y in ys), np.max([y + 1 for y in ys], 0) + g[:4])
sys.exit(not all(np.allclose(np.load(f"{d}/st{r}/out{k}.npy"), want[k], atol=1e-4, rtol=1e-5)
                 for r in range(n) for k in range(3)))
EOF
    then
        ok
    else
        bad "streams: $n ranks differ from numpy"
    fi
    rm -rf "$tmp"/st[0-9]
done

# ---- a collective in a reduce-overhead entry with static kernels ----
# (built from a copy in $tmp: the build writes the static-kernel manifest beside the script)
cp "$here/static_kernel.py" "$tmp/"
if "$tngc" build --opt -O0 --world-size 2 "$tmp/static_kernel.py" -o "$tmp/sk" >"$tmp/out" 2>&1 &&
   (cd "$tmp" && timeout 60 $mpirun -np 2 sk/static_kernel_launcher --input x=x.npy --out-dir 'so{rank}' \
        --warmup 0 --iters 1) >"$tmp/out" 2>&1 &&
   $py -c 'import sys, numpy as np; x = np.load(sys.argv[1] + "/x.npy")
sys.exit(any(np.abs(np.load(sys.argv[1] + f"/so{r}/out0.npy") - (4 * x + 1)).max() > 1e-5 for r in (0, 1)))' "$tmp"
then ok; else bad "static kernels: an all_reduce on 2 ranks"; tail -n 20 "$tmp/out"; fi

# ---- examples/tp_llama: 2 and 4 ranks, every gear, against PyTorch ----
rm -rf "$tmp/tp" && cp -r "$root/examples/tp_llama" "$tmp/tp" && rm -rf "$tmp/tp/tngc-out" "$tmp/tp/sample"
if (cd "$tmp/tp" && timeout 300 make -s run TNGC="$tngc" PYTHON=$py MPIRUN="$mpirun" \
                                TNGC_BUILD_FLAGS="--opt -O0") >"$tmp/out" 2>&1; then
    ok
    grep '^np ' "$tmp/out"
else
    bad "examples/tp_llama: make run"; tail -n 20 "$tmp/out"
fi

# ---- the ACL target over HCCL on aclsim (tests/tp_mpi/acl.sh), on the same sample/ ----
if [ -f "$tmp/tp/sample/ref8.npy" ]; then
    sh "$here/acl.sh" "$tngc" "$tmp/tp" "$tmp" >"$tmp/acl.out" 2>&1
    grep -v '^tp-acl: ' "$tmp/acl.out"
    n=$(sed -n 's/^tp-acl: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/acl.out")
    if [ -n "$n" ]; then
        pass=$((pass + ${n% *})) fail=$((fail + ${n#* }))
    else
        bad "tests/tp_mpi/acl.sh gave no result"; tail -n 5 "$tmp/acl.out"
    fi
fi

# ---- a rank that fails: every rank stops, at once ----
if [ -x "$tmp/c2/collectives_launcher" ]; then
    cp "$tmp/w.pt" "$tmp/w0.pt"   # rank 1's w1.pt is missing
    start=$(date +%s)
    (cd "$tmp" && TNGRT_MPI_TIMEOUT=20 timeout 60 $mpirun -x TNGRT_MPI_TIMEOUT -np 2 c2/collectives_launcher \
        --weights 'w{rank}.pt' --input x=x.npy --out-dir 'fo{rank}') >"$tmp/out" 2>&1
    rc=$? took=$(($(date +%s) - start))
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        bad "failed rank: mpirun exit status $rc"; tail -n 20 "$tmp/out"
    elif ! grep -q "w1.pt: cannot open" "$tmp/out" ||
         ! grep -q "rank 1 failed (exit status 2): aborting every rank" "$tmp/out"; then
        bad "failed rank: the messages"; cat "$tmp/out"
    elif [ $took -gt 15 ]; then
        bad "failed rank: $took s to stop"
    else
        ok
    fi
fi

# ---- refusals at plan time, usage errors ----
refused() {   # name expected-text script-text [tngc options]
    name=$1 want=$2 text=$3
    shift 3
    printf '%s\n' "$text" >"$tmp/r.py"
    "$tngc" plan "$@" "$tmp/r.py" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q "$want" "$tmp/err"; then
        bad "refused $name: exit status $rc"; cat "$tmp/err"
    else
        ok
    fi
}
head='import torch
import torch.distributed as dist
from torch import nn
class M(nn.Module):
    def forward(self, x):'
tail='torch.compile(M())(torch.randn(4, 4))'
refused async "r.py:6:9: error: .*async_op=True" "$head
        dist.all_reduce(x, async_op=True)
        return x
$tail" --world-size 2
refused reduce-op "r.py:6:9: error: .*ReduceOp" "$head
        dist.all_reduce(x, op=dist.ReduceOp.BAND)
        return x
$tail" --world-size 2
refused one-process "r.py:6:9: error: .*all_reduce is not among" "$head
        dist.all_reduce(x)
        return x
$tail"
refused no-tensor "r.py:6:9: error: .*all_reduce expects a tensor: none is given" "$head
        dist.all_reduce()
        return x
$tail" --world-size 2
refused a2a-splits "r.py:6:9: error: .*give both output_split_sizes and input_split_sizes" "$head
        dist.all_to_all_single(x, x.clone(), input_split_sizes=[2, 2])
        return x
$tail" --world-size 2
refused a2a-sum "r.py:6:9: error: .*the input split sizes add up to 3, dim 0 is 4" "$head
        dist.all_to_all_single(x, x.clone(), output_split_sizes=[2, 2], input_split_sizes=[1, 2])
        return x
$tail" --world-size 2
refused bad-rank "r.py:6:13: error: .*rank 5 is not in 0..1" "$head
        g = dist.new_group([0, 5])
        return x
$tail" --world-size 2
"$tngc" plan --world-size 0 "$here/collectives.py" >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && grep -q "world-size takes a number of ranks" "$tmp/err"; then ok
else bad "--world-size 0"; cat "$tmp/err"; fi

echo "tp-mpi: $pass passed, $fail failed"
[ $fail -eq 0 ]
