#!/bin/sh
# The planner stays near-linear in the ops of a graph. Its memory pass kept
# an ops x ops happens-before bit matrix and its stream pass a clock per
# unit and per stream: 200k ops took 37 s and 5 GB (--max-memory 256 did
# not bound them), 500k ops asked for 31 GB and aborted, 40k stream tags
# asked for 6 GB. Now the plan of 200k and 500k ops is made in bounded time
# and memory, and an entry past the planner's limits (more than 256
# streams, more clock entries than it keeps, a placement of buffers many
# of which are in use at once) is one TNG212 at the line that passes them.
#
#   sh tests/security/t_pl_scale.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

# Sanitizers inflate RSS and slow everything down: the RSS bound is only
# checked on a normal build, and the wall-clock bound is looser there.
case $(basename "$build") in
*san*) san=1 max_s=300 ;;
*) san=0 max_s=60 ;;
esac
max_kb=1000000
timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time

# model NAME N BODY: a script whose forward(x) (x: f32[4, 4]) runs BODY with N bound
model() {
    cat >"$tmp/$1.py" <<EOF
import torch
import torch_npu
import torchair

N = $2
TAGS = [str(i) for i in range(255)]


class Model(torch.nn.Module):
    def forward(self, x):
$3
        return x


model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(4, 4).npu())
EOF
}

# run NAME ARGS...: tngc plan ARGS NAME.py; stderr in NAME.err, status in
# NAME.rc, seconds in NAME.s, peak RSS (KB) in NAME.kb
run() {
    name=$1
    shift
    t0=$(date +%s)
    if [ -n "$timer" ]; then
        (cd "$tmp" && timeout 600 $timer -o "$name.kb" -f %M "$tngc" plan --max-time 300 "$@" "$name.py") \
            >/dev/null 2>"$tmp/$name.err"
    else
        (cd "$tmp" && timeout 600 "$tngc" plan --max-time 300 "$@" "$name.py") >/dev/null 2>"$tmp/$name.err"
    fi
    echo $? >"$tmp/$name.rc"
    echo $(($(date +%s) - t0)) >"$tmp/$name.s"
    [ -n "$timer" ] && [ -s "$tmp/$name.kb" ] || echo 0 >"$tmp/$name.kb"
}

# bounded NAME: within the time and RSS bounds
bounded() {
    s=$(cat "$tmp/$1.s") kb=$(tail -n 1 "$tmp/$1.kb")
    if [ "$s" -gt $max_s ]; then
        fail "$1" "took ${s}s (bound ${max_s}s)"
        return 1
    elif [ $san = 0 ] && [ "$kb" -gt $max_kb ]; then
        fail "$1" "peak RSS ${kb} KB (bound $max_kb KB)"
        return 1
    fi
    return 0
}

# planned NAME: exit 0, no diagnostic, within the bounds
planned() {
    rc=$(cat "$tmp/$1.rc")
    if [ "$rc" != 0 ] || grep -q ': error: \|: warning: ' "$tmp/$1.err"; then
        fail "$1" "exit status $rc: $(head -n 3 "$tmp/$1.err")"
    elif bounded "$1"; then
        ok "$1 planned ($(cat "$tmp/$1.s")s, $(tail -n 1 "$tmp/$1.kb") KB)"
    fi
}

# refused NAME LINE PATTERN: exit 1, exactly one diagnostic, a TNG212 at
# LINE matching PATTERN, within the bounds
refused() {
    rc=$(cat "$tmp/$1.rc")
    ndiag=$(grep -c ': error: \|: warning: ' "$tmp/$1.err")
    diag=$(grep ': error: ' "$tmp/$1.err" | head -n 1)
    if [ "$rc" != 1 ]; then
        fail "$1" "exit status $rc, expected 1: $(head -n 3 "$tmp/$1.err")"
    elif [ "$ndiag" != 1 ] || ! echo "$diag" | grep -q "^$1.py:$2:[0-9]*: error: .*\[TNG212\]$"; then
        fail "$1" "expected one TNG212 at line $2, got $ndiag: $diag"
    elif ! echo "$diag" | grep -q "$3"; then
        fail "$1" "the TNG212 does not say '$3': $diag"
    elif bounded "$1"; then
        ok "$1 refused at line $2 ($(cat "$tmp/$1.s")s, $(tail -n 1 "$tmp/$1.kb") KB)"
    fi
}

# 200k and 500k ops in one stream
model add200k 200 "        for i in range(N):
            for j in range(1000):
                x = x + 1"
run add200k --max-memory 256
planned add200k
model add500k 500 "        for i in range(N):
            for j in range(1000):
                x = x + 1"
run add500k
planned add500k

# 200k ops alternating between two streams, each waiting for the other
model pingpong 200 "        for i in range(N):
            for j in range(500):
                x = x * 3
                with torchair.scope.npu_stream_switch('1'):
                    x = x * 2"
run pingpong --streams-as-written
planned pingpong

# 40k stream tags: past the 256 streams the planner keeps clocks for
model tags40k 40000 "        for i in range(N):
            with torchair.scope.npu_stream_switch(str(i)):
                x = x + 1"
run tags40k
refused tags40k 12 'uses 40001 streams.*more than the 256 tngc plans'

# 255 tags round robin, every op waiting for the one before: 102k waits on
# 256 streams plan, 204k pass the clock entries the planner keeps (built
# as written: the cost model would run every one-op run on stream 0)
model rr400 400 "        for i in range(N):
            for tag in TAGS:
                with torchair.scope.npu_stream_switch(tag):
                    x = x * 2"
run rr400
planned rr400
model rr800 800 "        for i in range(N):
            for tag in TAGS:
                with torchair.scope.npu_stream_switch(tag):
                    x = x * 2"
run rr800 --streams-as-written
refused rr800 14 'waits for another stream at more than 131072 units'

# 50k buffers all in use until a sum reads them: the placement is bounded
model live 50 "        xs = []
        for i in range(N):
            for j in range(1000):
                xs.append(x * j)
        for i in range(N):
            for j in range(1000):
                x = x + xs[i * 1000 + j]"
run live
refused live 14 'buffers may be in use at once'

[ $fails -eq 0 ]
