#!/bin/sh
# Tensor parallel on the ACL target (tngc build --target acl --world-size N),
# run on aclsim (tests/aclsim: its HCCL, hccl.c, exchanges the collectives
# between the rank processes through the rank table's directory):
# - examples/tp_llama built for 2 and 4 ranks; each rank a process of its
#   own with RANK_ID and RANK_TABLE_FILE, as Ascend launch scripts start
#   them; every gear; each rank's logits against PyTorch's unsharded model
#   (SAMPLE: the sample/ folder `make ref` wrote, compare.py);
# - static_kernel.py (reduce-overhead): the all_reduce captured with its
#   gear and replayed (TNGC_ACLSIM_LOG), both ranks give 4x + 1;
# - a rank that cannot load its weights: the others fail their first
#   collective after $ACLSIM_HCCL_TIMEOUT seconds, naming the missing rank,
#   every process exits non-zero;
# - RANK_ID unset: the launcher's one line, exit 2;
# - collectives.py (every collective tngc compiles: ReduceOp.AVG on a view,
#   a group of ranks [0, 1]) on 2 and 4 ranks, and groups.py (groups [0, 1],
#   [2, 3], [0, 2] through HcclCreateSubCommConfig, broadcast from a group's
#   second rank, ReduceOp.AVG of all_reduce and reduce_scatter, float16) on
#   4, against numpy as run.sh checks the MPI runs (check_collectives.py,
#   check_groups.py);
# - all_to_all_wide.py (split sizes on 8 ranks) against numpy;
# - what the ACL target refuses (TNG203 at the op): ReduceOp.AVG of an
#   integer tensor, and of a float16 one over a group of 3 ranks;
# - race.py (an all_reduce of what stream 1 computed) generated, and rank
#   0's source linked as tngc build links it: unchanged, both ranks give
#   4x + 2; with the planned wait before the collective removed, rank 0
#   fails with aclsim's race report naming HcclAllReduce.
# Prints "tp-acl: N passed, M failed" (tests/tp_mpi/run.sh adds them up).
#
# - all_to_all.py (HcclAlltoAllV: equal blocks and split sizes) on 2 ranks,
#   against numpy's simulation of the exchange (check_all_to_all.py);
# - collectives_acl.py (all_reduce with MAX, MIN on a view, SUM, PRODUCT,
#   in bfloat16; all_gather, its list form; reduce_scatter; broadcast; the
#   functional forms) on 2 ranks against numpy (check_collectives.py);
# usage: tests/tp_mpi/acl.sh TNGC TPDIR DATA
#   TPDIR: a copy of examples/tp_llama with sample/; DATA: run.sh's inputs
#   x43.npy and x83.npy (all_to_all.py's, all_to_all_wide.py's), x.npy and
#   w.pt (collectives')
set -u
tngc=$1 tp=$2 data=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL tp-acl: $*"; fail=$((fail + 1)); }

# rank_table DIR N: a fresh DIR with a rank table of N devices on one server
rank_table() {
    rm -rf "$1" && mkdir -p "$1" && {
        printf '{"version": "1.0", "server_count": "1", "status": "completed",\n'
        printf ' "server_list": [{"server_id": "127.0.0.1", "device": ['
        i=0
        while [ "$i" -lt "$2" ]; do
            [ "$i" -gt 0 ] && printf ', '
            printf '{"device_id": "%d", "device_ip": "192.168.100.%d", "rank_id": "%d"}' "$i" $((i + 1)) "$i"
            i=$((i + 1))
        done
        printf ']}]}\n'; } >"$1/rank_table.json"
}

# ranks N DIR LAUNCHER ARG...: N processes of LAUNCHER, RANK_ID 0..N-1, on
# DIR's rank table; 0 when every one exits 0 (their output in DIR/log<r>)
ranks() {
    n=$1 dir=$2 launcher=$3
    shift 3
    rank_table "$dir" "$n"
    r=0 pids=""
    while [ "$r" -lt "$n" ]; do
        RANK_ID=$r RANK_TABLE_FILE=$dir/rank_table.json timeout 60 "$launcher" "$@" >"$dir/log$r" 2>&1 &
        pids="$pids $!"
        r=$((r + 1))
    done
    st=0
    for p in $pids; do
        wait "$p" || st=1
    done
    return $st
}

if ! sh "$root/tests/aclsim/build.sh" "$tmp/sim" >"$tmp/out" 2>&1; then
    bad "aclsim: tests/aclsim/build.sh"; cat "$tmp/out"
    echo "tp-acl: $pass passed, $fail failed"
    exit 1
fi

# ---- examples/tp_llama on 2 and 4 ranks, every gear, against PyTorch ----
for n in 2 4; do
    if ! (cd "$tp" && "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size $n run.py \
              -o "$tmp/acl$n") >"$tmp/out" 2>&1; then
        bad "examples/tp_llama: build --target acl --world-size $n"; cat "$tmp/out"; continue
    fi
    for s in 4 8; do
        rm -rf "$tp/sample/out/np$n/s$s" && mkdir -p "$tp/sample/out/np$n/s$s"
        if ! (cd "$tp" && ranks $n "$tmp/rt$n$s" "$tmp/acl$n/run_launcher" --weights "sample/np$n/rank{rank}.pt" \
                  --input "input_ids=sample/ids$s.npy" --out-dir "sample/out/np$n/s$s/r{rank}" --warmup 1 --iters 2); then
            bad "examples/tp_llama: $n ranks, $s tokens"; tail -n 5 "$tmp/rt$n$s"/log*; continue
        fi
        if (cd "$tp" && $py compare.py sample $n $s) >"$tmp/out" 2>&1; then
            ok
            sed 's/^/acl /' "$tmp/out"
        else
            bad "examples/tp_llama: $n ranks, $s tokens: differ from PyTorch"; cat "$tmp/out"
        fi
    done
done

# ---- all_to_all_single: HcclAlltoAllV, equal blocks and split sizes ----
cp "$data/x43.npy" "$data/x83.npy" "$data/x.npy" "$data/w.npy" "$data/w.pt" "$tmp/"
if "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size 2 "$here/all_to_all.py" -o "$tmp/a2a" \
       >"$tmp/out" 2>&1 &&
   (cd "$tmp" && ranks 2 "$tmp/rta" "$tmp/a2a/all_to_all_launcher" --input x=x43.npy --out-dir 'ao{rank}' \
        --warmup 1 --iters 1) &&
   /usr/bin/python3 "$here/check_all_to_all.py" "$tmp" ao >>"$tmp/out" 2>&1
then ok; else bad "all_to_all_single on 2 ranks"; tail -n 5 "$tmp/out" "$tmp"/rta/log*; fi

# ---- the collectives HCCL computes, 2 ranks ----
if "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size 2 "$here/collectives_acl.py" \
       -o "$tmp/col" >"$tmp/out" 2>&1 &&
   (cd "$tmp" && ranks 2 "$tmp/rtc" "$tmp/col/collectives_acl_launcher" --weights w.pt --input x=x.npy \
        --out-dir 'co{rank}' --warmup 0 --iters 1) &&
   /usr/bin/python3 "$here/check_collectives.py" 2 "$tmp" acl >>"$tmp/out" 2>&1
then ok; else bad "collectives_acl.py on 2 ranks"; tail -n 5 "$tmp/out" "$tmp"/rtc/log*; fi

# ---- a collective in a captured (reduce-overhead) entry: replayed with the gear ----
# (built from a copy: the build writes the static-kernel manifest beside the script)
cp "$here/static_kernel.py" "$tmp/"
if "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size 2 "$tmp/static_kernel.py" -o "$tmp/sk" \
       >"$tmp/out" 2>&1 &&
   (cd "$tmp" && TNGC_ACLSIM_LOG="$tmp/replays" ranks 2 "$tmp/rts" "$tmp/sk/static_kernel_launcher" --input x=x.npy \
        --out-dir 'so{rank}' --warmup 1 --iters 2) &&
   [ "$(grep -c '^replay s0 ' "$tmp/replays")" -ge 4 ] &&
   /usr/bin/python3 -c 'import sys, numpy as np; x = np.load(sys.argv[1] + "/x.npy")
sys.exit(any(np.abs(np.load(sys.argv[1] + f"/so{r}/out0.npy") - (4 * x + 1)).max() > 1e-5 for r in (0, 1)))' "$tmp"
then ok; else bad "static_kernel.py captured on 2 ranks"; tail -n 5 "$tmp/out" "$tmp"/rts/log*; fi

# ---- a rank that fails: the others stop at their first collective ----
if [ -x "$tmp/acl2/run_launcher" ]; then
    cp "$tp/sample/np2/rank0.pt" "$tmp/w0.pt"   # rank 1's w1.pt is missing
    start=$(date +%s)
    (cd "$tp" && ACLSIM_HCCL_TIMEOUT=3 ranks 2 "$tmp/rtf" "$tmp/acl2/run_launcher" --weights "$tmp/w{rank}.pt" \
         --input input_ids=sample/ids4.npy --out-dir "$tmp/fo{rank}")
    rc=$? took=$(($(date +%s) - start))
    if [ $rc -eq 0 ]; then
        bad "failed rank: every rank exited 0"
    elif ! grep -q "w1.pt: cannot open" "$tmp/rtf/log1" ||
         ! grep -q "rank 1 did not reach collective 0 .* within 3 s (ACLSIM_HCCL_TIMEOUT)" "$tmp/rtf/log0"; then
        bad "failed rank: the messages"; cat "$tmp/rtf/log0" "$tmp/rtf/log1"
    elif [ $took -gt 20 ]; then
        bad "failed rank: $took s to stop"
    else
        ok
    fi
    (cd "$tp" && env -u RANK_ID "$tmp/acl2/run_launcher" --input input_ids=sample/ids4.npy) >"$tmp/out" 2>&1
    if [ $? -eq 2 ] && grep -q "built for 2 ranks (--world-size): set RANK_ID" "$tmp/out"; then ok
    else bad "RANK_ID unset"; cat "$tmp/out"; fi
fi

# ---- every collective, ReduceOp.AVG and groups: 2 and 4 ranks, as over MPI ----
for n in 2 4; do
    if "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size $n "$here/collectives.py" \
           -o "$tmp/all$n" >"$tmp/out" 2>&1 &&
       (cd "$tmp" && ranks $n "$tmp/rtl$n" "$tmp/all$n/collectives_launcher" --weights w.pt --input x=x.npy \
            --out-dir 'co{rank}' --warmup 0 --iters 1) &&
       /usr/bin/python3 "$here/check_collectives.py" $n "$tmp" >>"$tmp/out" 2>&1
    then ok; else bad "collectives.py on $n ranks"; tail -n 5 "$tmp/out" "$tmp"/rtl$n/log*; fi
    rm -rf "$tmp"/co[0-9]
done
# (ranks 1 and 3 are not in [0, 2]: they make 1 group communicator, 0 and 2 make 2)
if "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size 4 "$here/groups.py" -o "$tmp/grp" \
       >"$tmp/out" 2>&1 &&
   grep -q 'groups__group_mask\[3\] = {3, 5, 12};' "$tmp/grp/groups.c" &&
   (cd "$tmp" && ranks 4 "$tmp/rtg" "$tmp/grp/groups_launcher" --weights w.pt --input x=x.npy --out-dir 'go{rank}' \
        --warmup 1 --iters 1) &&
   /usr/bin/python3 "$here/check_groups.py" "$tmp" >>"$tmp/out" 2>&1
then ok; else bad "groups.py on 4 ranks"; tail -n 5 "$tmp/out" "$tmp"/rtg/log*; fi

# ---- all_to_all_single with split sizes on 8 ranks ----
if "$tngc" build --opt -O0 --target acl --acl-home "$tmp/sim" --world-size 8 "$here/all_to_all_wide.py" \
       -o "$tmp/a2w" >"$tmp/out" 2>&1 &&
   (cd "$tmp" && ranks 8 "$tmp/rtw8" "$tmp/a2w/all_to_all_wide_launcher" --input x=x83.npy --out-dir 'wo{rank}' \
        --warmup 0 --iters 1) &&
   /usr/bin/python3 "$here/check_all_to_all.py" "$tmp" wo 8 >>"$tmp/out" 2>&1
then ok; else bad "all_to_all_wide.py on 8 ranks"; tail -n 5 "$tmp/out" "$tmp"/rtw8/log*; fi

# ---- what the ACL target refuses ----
cat >"$tmp/refused.py" <<'EOF'
import torch
import torch.distributed as dist
from torch import nn

TRIO = dist.new_group([0, 1, 2])


class M(nn.Module):
    def forward(self, x):
        i = x.to(torch.int32)
        dist.all_reduce(i, op=dist.ReduceOp.AVG)
        h = x.to(torch.float16)
        dist.all_reduce(h, op=dist.ReduceOp.AVG, group=TRIO)
        return i, h


torch.compile(M())(torch.randn(4, 4))
EOF
"$tngc" gen --target acl --world-size 4 "$tmp/refused.py" -o "$tmp/refused" >/dev/null 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "refused.py:11:9: error: no HCCL call for 'all_reduce' .*ReduceOp.AVG of an integer tensor" "$tmp/err" &&
   grep -q "refused.py:13:9: error: no HCCL call for 'all_reduce' .*ReduceOp.AVG of a float16 or bfloat16 tensor over a group whose size is not a power of two" "$tmp/err"
then ok; else bad "refusals of refused.py"; cat "$tmp/err"; fi

# ---- a collective is an operator to aclsim's checker: a missing wait is a race ----
# link DIR: DIR's sources (race.py's, generated) linked as tngc build links a launcher
link() {
    clang -std=c11 -O0 -D_POSIX_C_SOURCE=200809L -I"$root/runtime" -I"$1" -I"$tmp/sim/include" -o "$1/launcher" \
        "$1"/*.c "$root/build/libtngcrt_core.a" -L"$tmp/sim/lib64" -Wl,-rpath,"$tmp/sim/lib64" \
        -lascendcl -lhccl -lnnopbase -lopapi -lpthread -lm
}
if (cd "$tmp" && "$tngc" gen --target acl --world-size 2 "$here/race.py" -o race) >"$tmp/out" 2>&1 &&
   cp -r "$tmp/race" "$tmp/nowait" && grep -q '^    TNGC_WAIT(0, 0, ".*race.py:[0-9]*:9: all_reduce' "$tmp/race/race_rank0.c" &&
   sed '/^    TNGC_WAIT(0, 0, ".*race.py:[0-9]*:9: all_reduce/d' "$tmp/race/race_rank0.c" >"$tmp/nowait/race_rank0.c" &&
   link "$tmp/race" >"$tmp/out" 2>&1 && link "$tmp/nowait" >"$tmp/out" 2>&1; then
    if (cd "$tmp" && ranks 2 "$tmp/rtr" "$tmp/race/launcher" --input x=x.npy --out-dir 'ro{rank}' --warmup 0 --iters 1) &&
       /usr/bin/python3 -c 'import sys, numpy as np; x = np.load(sys.argv[1] + "/x.npy")
sys.exit(any(np.abs(np.load(sys.argv[1] + f"/ro{r}/out0.npy") - (4 * x + 2)).max() > 1e-5 for r in (0, 1)))' "$tmp"
    then ok; else bad "race.py unchanged"; tail -n 5 "$tmp"/rtr/log*; fi
    (cd "$tmp" && ACLSIM_HCCL_TIMEOUT=3 ranks 2 "$tmp/rtw" "$tmp/nowait/launcher" --input x=x.npy --out-dir 'wo{rank}' \
         --warmup 0 --iters 1)
    if [ $? -ne 0 ] && grep -q "aclsim: race: HcclAllReduce on s0 reads bytes .* that aclnnAdds on s1 writes" "$tmp/rtw/log0"
    then ok; else bad "race.py without its wait: no race reported"; cat "$tmp"/rtw/log0; fi
else
    bad "race.py: generated and linked"; tail -n 8 "$tmp/out"
fi

echo "tp-acl: $pass passed, $fail failed"
[ $fail -eq 0 ]
