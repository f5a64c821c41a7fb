#!/bin/sh
# In-place writes stay linear. Each in-place op took a control edge from
# every earlier reader of its storage, so N writes into one tensor made
# edges quadratic in N, found by scanning every earlier op: 3000
# `x.add_(1)` into an input gave 9.6 million edges and a 65 MB plan, 10k
# ran past the 10 s limit at 1.4 GB; the scans did not count as work for
# --max-time and the edges were not charged to --max-memory. A write now
# takes edges only from the reads since the previous write of its storage
# (that write included): every earlier read still precedes it through the
# previous write, which this script checks on the graph, and plan size,
# time and memory grow linearly.
#
#   sh tests/security/t_fe_inplace_scale.sh BUILD_DIR
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

# model NAME OUTER INNER EVERY: forward(x, y) writes into input x
# OUTER * INNER times (x.add_(1)) and reads x into y every EVERY writes
model() {
    cat >"$tmp/$1.py" <<EOF
import torch
import torchair as tng


class M(torch.nn.Module):
    def forward(self, x, y):
        for j in range($2):
            for i in range($3):
                x.add_(1)
                if i % $4 == 0:
                    y = y + x
        return x, y


model = torch.compile(M(), backend=tng.get_npu_backend(), dynamic=False)
model(torch.randn(4, 4), torch.randn(4, 4))
EOF
}

# run NAME ARGS...: tngc plan ARGS NAME.py; the plan in NAME.out, stderr in
# NAME.err, status in NAME.rc, seconds in NAME.s, peak RSS (KB) in NAME.kb
run() {
    name=$1
    shift
    t0=$(date +%s)
    if [ -n "$timer" ]; then
        (cd "$tmp" && timeout 600 $timer -o "$name.kb" -f %M "$tngc" plan "$@" "$name.py") \
            >"$tmp/$name.out" 2>"$tmp/$name.err"
    else
        (cd "$tmp" && timeout 600 "$tngc" plan "$@" "$name.py") >"$tmp/$name.out" 2>"$tmp/$name.err"
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

# planned NAME MAX_BYTES: exit 0, no diagnostic, a plan of at most
# MAX_BYTES, within the bounds
planned() {
    rc=$(cat "$tmp/$1.rc") size=$(wc -c <"$tmp/$1.out")
    if [ "$rc" != 0 ] || grep -q ': error: \|: warning: ' "$tmp/$1.err"; then
        fail "$1" "exit status $rc: $(head -n 3 "$tmp/$1.err")"
    elif [ "$size" -gt "$2" ]; then
        fail "$1" "a plan of $size bytes (bound $2)"
    elif bounded "$1"; then
        ok "$1 planned ($size bytes, $(cat "$tmp/$1.s")s, $(tail -n 1 "$tmp/$1.kb") KB)"
    fi
}

# edges NAME: the control edges the graph of NAME.out lists ("after %a, %b;")
edges() {
    sed -n '/^graph:/,/^outputs:/s/.*# after \([^;]*\);.*/\1/p' "$tmp/$1.out" | tr ',' '\n' | grep -c '%'
}

# 3000 writes, a read every 7: about two edges a write (the previous
# write and its own add, a read after every 7th: 6428 in all); an edge
# from every earlier reader gave 9.6 million
model w3k 1 3000 7
run w3k --max-time 60
planned w3k 4000000
n=$(edges w3k)
check w3k-edges "[ '$n' -gt 3000 ] && [ '$n' -le 12000 ]" "$n control edges for 3000 writes (bound 12000)"

# Every op of this graph reads x's storage, so each write must come after
# every op before it, through data and control edges: the closure of a
# small graph's edges, checked op by op.
model order 1 40 3
run order --max-time 60
planned order 100000
sed -n '/^graph:/,/^outputs:/p' "$tmp/order.out" | awk '
    /^  %[0-9]+:/ {
        id = substr($1, 2) + 0
        line = $0; sub(/^[^=]*= /, "", line)
        deps = line; sub(/ *#.*/, "", deps)
        after = ""
        if (match(line, /# after [^;]*;/)) after = substr(line, RSTART + 8, RLENGTH - 9)
        n = 0
        s = deps " " after
        while (match(s, /%[0-9]+/)) {
            p = substr(s, RSTART + 1, RLENGTH - 1) + 0
            s = substr(s, RSTART + RLENGTH)
            for (q in reach) if (q ~ "^" p ",") reach[id "," substr(q, length(p) + 2)] = 1
            reach[id "," p] = 1
        }
        if (line ~ /^(copy|slice_store) /) {
            writes++
            for (o = 2; o < id; o++)
                if (!((id "," o) in reach)) { print "%" id " is not after %" o; bad++ }
        }
    }
    END { if (writes < 40) { print "only " writes " writes"; bad++ } exit bad > 0 }' \
    >"$tmp/order.why" 2>&1
st=$?
check order-transitive "[ $st -eq 0 ]" "$(head -n 3 "$tmp/order.why")"

# 10k writes: a plan in well under the 10 s the interpreter may take
model w10k 1 10000 7
run w10k --max-time 10
planned w10k 12000000

# 200k writes under --max-time 10: planned, or stopped by one TNG212 with
# nothing on stdout, within the bounds either way
model w200k 2 100000 7
run w200k --max-time 10
rc=$(cat "$tmp/w200k.rc")
if [ "$rc" = 0 ]; then
    bounded w200k && ok "w200k planned ($(cat "$tmp/w200k.s")s, $(tail -n 1 "$tmp/w200k.kb") KB)"
elif [ "$rc" = 1 ] && [ "$(grep -c ': error: ' "$tmp/w200k.err")" = 1 ] &&
     grep -q 'longer than 10 s.*\[TNG212\]$' "$tmp/w200k.err" && [ ! -s "$tmp/w200k.out" ]; then
    bounded w200k && ok "w200k stopped by --max-time ($(cat "$tmp/w200k.s")s)"
else
    fail w200k "exit status $rc: $(head -n 3 "$tmp/w200k.err")"
fi

[ $fails -eq 0 ]
