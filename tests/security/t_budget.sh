#!/bin/sh
# The module interpreter (plan, gen, build) runs under a
# total budget of memory (--max-memory MB, default 512) and wall time
# (--max-time SECONDS, default 10). Each hostile script below must end with
# exit 1 and exactly one diagnostic, a TNG212 at the line it names, within
# bounded time and peak RSS; the flags move the limits; every example and
# corpus model still plans under the defaults.
#
#   sh tests/security/t_budget.sh BUILD_DIR
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
tngc=$build/tngc
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Sanitizers inflate RSS and slow everything down: the RSS bound is only
# checked on a normal build, and the wall-clock bound is looser there.
case $(basename "$build") in
*san*) san=1 max_s=40 ;;
*) san=0 max_s=20 ;;
esac
max_kb=700000
timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time
timeout_cmd=
command -v timeout >/dev/null 2>&1 && timeout_cmd="timeout 120"

ok() { echo "ok $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }

# run NAME ARGS...: tngc plan ARGS with stderr in $tmp/NAME.err, the exit
# status in $tmp/NAME.rc, seconds in $tmp/NAME.s, peak RSS (KB) in $tmp/NAME.kb
run() {
    name=$1
    shift
    t0=$(date +%s)
    if [ -n "$timer" ]; then
        $timeout_cmd $timer -o "$tmp/$name.kb" -f %M "$tngc" plan "$@" >/dev/null 2>"$tmp/$name.err"
    else
        $timeout_cmd "$tngc" plan "$@" >/dev/null 2>"$tmp/$name.err"
    fi
    echo $? >"$tmp/$name.rc"
    echo $(($(date +%s) - t0)) >"$tmp/$name.s"
    [ -n "$timer" ] && [ -s "$tmp/$name.kb" ] || echo 0 >"$tmp/$name.kb"
}

# check NAME LINES PATTERN: exit 1, one diagnostic, a TNG212 on one of LINES
# (a space-separated list) whose text matches PATTERN, in bounded time/RSS
check() {
    name=$1 lines=$2 pattern=$3
    rc=$(cat "$tmp/$name.rc") s=$(cat "$tmp/$name.s") kb=$(tail -n 1 "$tmp/$name.kb")
    ndiag=$(grep -c ': error: \|: warning: ' "$tmp/$name.err")
    diag=$(grep ': error: ' "$tmp/$name.err" | head -n 1)
    line=$(echo "$diag" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p')
    if [ "$rc" != 1 ]; then
        bad "$name" "exit status $rc, expected 1"; head -n 5 "$tmp/$name.err"
    elif [ "$ndiag" != 1 ] || ! echo "$diag" | grep -q '\[TNG212\]$'; then
        bad "$name" "expected exactly one TNG212, got $ndiag diagnostics:"; grep ': error: ' "$tmp/$name.err" | head -n 5
    elif ! echo " $lines " | grep -q " $line "; then
        bad "$name" "TNG212 at line $line, expected one of: $lines"
    elif ! echo "$diag" | grep -q "$pattern"; then
        bad "$name" "the TNG212 does not say '$pattern': $diag"
    elif [ "$s" -gt "$max_s" ]; then
        bad "$name" "took ${s}s (bound ${max_s}s)"
    elif [ $san = 0 ] && [ "$kb" -gt $max_kb ]; then
        bad "$name" "peak RSS ${kb} KB (bound $max_kb KB)"
    else
        ok "$name (line $line, ${s}s, ${kb} KB)"
    fi
}

# ---- hostile scripts ------------------------------------------------------

# 10^10 list items built by a comprehension (over 10 GB before)
printf 'x = [[i] * 100000 for i in range(100000)]\n' >"$tmp/listcomp.py"

# a dict grown in a loop: quadratic lookups, never finished before
cat >"$tmp/dictloop.py" <<'EOF'
d = {}
i = 0
while True:
    d[i] = i
    i += 1
EOF

# naive recursion: each call's frame was kept to the end (3 GB)
cat >"$tmp/fib.py" <<'EOF'
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print(fib(40))
EOF

# a string doubled to the 1 MiB per-string limit, then copies kept
cat >"$tmp/strings.py" <<'EOF'
s = "ab"
for i in range(19):
    s = s + s
keep = []
while True:
    keep.append(s + "")
EOF

# host tensors in a loop: each operation grows the host graph (not objects)
cat >"$tmp/tensors.py" <<'EOF'
import torch

t = torch.zeros(4)
while True:
    t = t + 1
EOF

# the dict loop hits only the clock: run it meanwhile
run dictloop "$tmp/dictloop.py" &
dict_pid=$!
run listcomp "$tmp/listcomp.py"
check listcomp 1 'MB of interpreter memory'
run fib "$tmp/fib.py"
check fib "2 3 4" 'TNG212'
run strings "$tmp/strings.py"
check strings 6 'MB of interpreter memory'
run tensors "$tmp/tensors.py"
check tensors 5 'MB of interpreter memory'
wait $dict_pid
check dictloop "4 5" 'runs longer than 10 s'

# ---- the flags ------------------------------------------------------------

# A model behind 40 MB of module-level lists: fine under the default budget,
# stopped at that line under --max-memory 16.
cat >"$tmp/moderate.py" <<'EOF'
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.fc(x))


table = [[i] * 1000 for i in range(5000)]
model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(4, 16).npu())
EOF
run moderate "$tmp/moderate.py"
if [ "$(cat "$tmp/moderate.rc")" = 0 ] && ! grep -q TNG212 "$tmp/moderate.err"; then
    ok "moderate script plans under the default budget"
else
    bad moderate "exit $(cat "$tmp/moderate.rc") under the defaults:"; head -n 5 "$tmp/moderate.err"
fi
run moderate16 --max-memory 16 "$tmp/moderate.py"
check moderate16 15 'more than 16 MB of interpreter memory'

# --max-time lowers the time limit
run dict1 --max-time 1 "$tmp/dictloop.py"
check dict1 "4 5" 'runs longer than 1 s'
[ "$(cat "$tmp/dict1.s")" -le 6 ] || bad dict1 "--max-time 1 took $(cat "$tmp/dict1.s")s"

# bad values are usage errors, on plan, gen and build alike
for args in "plan --max-memory 0" "plan --max-time -1" "gen --max-memory x -o $tmp/o" "build --max-time abc -o $tmp/o"; do
    # shellcheck disable=SC2086
    "$tngc" $args "$tmp/moderate.py" >/dev/null 2>"$tmp/usage.err"
    rc=$?
    if [ $rc = 2 ] && grep -q -- '--max-' "$tmp/usage.err"; then ok "usage: tngc $args"; else bad usage "tngc $args: exit $rc"; fi
done

# ---- every example and corpus model stays within the default budget ---------

# (under sanitizers the corpus models run several times slower: the clock
# is given more room there, the memory budget is the default)
slow=
[ $san = 1 ] && slow="--max-time 120"
for py in "$root"/examples/*/*.py "$root"/tests/corpus/*.py; do
    name=$(basename "$(dirname "$py")")_$(basename "$py" .py)
    # shellcheck disable=SC2086
    run "$name" $slow "$py"
    rc=$(cat "$tmp/$name.rc") kb=$(tail -n 1 "$tmp/$name.kb")
    if [ "$rc" -gt 1 ]; then
        bad "$name" "exit status $rc"
    elif grep -q 'MB of interpreter memory\|runs longer than' "$tmp/$name.err"; then
        bad "$name" "over the default budget: $(grep TNG212 "$tmp/$name.err")"
    elif [ $san = 0 ] && [ "$kb" -gt 450000 ]; then
        bad "$name" "peak RSS $kb KB"
    else
        ok "$name within the budget (exit $rc, $kb KB)"
    fi
done

exit $fail
