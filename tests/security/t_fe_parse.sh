#!/bin/sh
# Parsing is inside the memory budget of plan, gen and build
# (--max-memory MB): a script too large for it is refused before it is
# parsed (tree-sitter holds at least 32 bytes per byte of source), a parse
# that reaches the budget stops there, each with one TNG212 naming the
# limit and the option, exit 1, promptly and in bounded memory; and when
# the C library has no memory left for the parser, tngc says so in one
# line and exits 2 instead of tree-sitter's exit() inside a parse thread.
#
#   sh tests/security/t_fe_parse.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

case $(basename "$build") in *san*) san=1 ;; *) san=0 ;; esac
timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time

# run NAME ARGS...: tngc ARGS under a 60 s timeout; stderr, status, seconds
# and peak RSS (KB) in $tmp/NAME.{err,rc,s,kb}
run() {
    name=$1
    shift
    t0=$(date +%s)
    if [ -n "$timer" ]; then
        timeout 60 $timer -o "$tmp/$name.kb" -f %M "$tngc" "$@" >/dev/null 2>"$tmp/$name.err"
    else
        timeout 60 "$tngc" "$@" >/dev/null 2>"$tmp/$name.err"
    fi
    echo $? >"$tmp/$name.rc"
    echo $(($(date +%s) - t0)) >"$tmp/$name.s"
    kb=0
    [ -n "$timer" ] && [ -s "$tmp/$name.kb" ] && kb=$(tail -n 1 "$tmp/$name.kb" | tr -cd 0-9)
    echo "${kb:-0}" >"$tmp/$name.kb"
}

# refused NAME MAX_KB MAX_S: exit 1, one TNG212 at line 1 naming --max-memory
refused() {
    name=$1 rc=$(cat "$tmp/$1.rc") s=$(cat "$tmp/$1.s") kb=$(cat "$tmp/$1.kb")
    diag=$(grep ': error: ' "$tmp/$name.err" | head -n 1)
    if [ "$rc" != 1 ]; then
        fail "$name" "exit status $rc, want 1: $(head -c 300 "$tmp/$name.err")"
    elif [ "$(grep -c ': error: ' "$tmp/$name.err")" != 1 ] ||
        ! echo "$diag" | grep -q ':1:1: error: parsing this file of .* MB needs more than the .* MB of memory allowed (raise the limit with --max-memory MB) \[TNG212\]$'; then
        fail "$name" "want one TNG212 naming --max-memory: $(head -c 300 "$tmp/$name.err")"
    elif [ "$s" -gt "$3" ]; then
        fail "$name" "took ${s}s (bound ${3}s)"
    elif [ $san = 0 ] && [ "$kb" -gt "$2" ]; then
        fail "$name" "peak RSS $kb KB (bound $2 KB)"
    else
        ok "$name (${s}s, $kb KB)"
    fi
}

# a 40 MB model file: over 1 GB to parse, refused before parsing
awk 'BEGIN {
    print "import torch"
    for (i = 0; i < 400000; i++)
        printf "def f%d(x, y):\n    return torch.relu(x * %d + y) - x.sum(dim=-1, keepdim=True) / (y + 1)\n\n", i, i
}' >"$tmp/big.py"
run big plan --max-memory 256 "$tmp/big.py"
refused big 300000 20
run big_gen gen --max-memory 256 -o "$tmp/out" "$tmp/big.py"
refused big_gen 300000 20
run big_build build --max-memory 256 -o "$tmp/out" "$tmp/big.py"
refused big_build 300000 20
check "gen/build wrote nothing" '[ ! -e "$tmp/out" ] || [ -z "$(ls -A "$tmp/out")" ]'

# 1.4 MB of one list literal: within the first check, but the parse itself
# reaches 64 MB (tree-sitter holds about 185 bytes per byte of it)
awk 'BEGIN { printf "x = ["; for (i = 0; i < 700000; i++) printf "1,"; print "]" }' >"$tmp/dense.py"
run dense plan --max-memory 64 "$tmp/dense.py"
refused dense 250000 30

# the parser out of memory (an address-space limit, not the budget): one
# line, exit 2, no signal (not under sanitizers, which reserve more)
if [ $san = 0 ]; then
    awk 'BEGIN { printf "x = ["; for (i = 0; i < 2097152; i++) printf "1,"; print "]" }' >"$tmp/dense4.py"
    (ulimit -v 400000 && exec "$tngc" lint "$tmp/dense4.py") >/dev/null 2>"$tmp/oom.err"
    rc=$?
    check "parser out of memory: exit 2" '[ $rc -eq 2 ]' "exit $rc: $(head -c 300 "$tmp/oom.err")"
    check "parser out of memory: one line naming the file" \
        '[ "$(wc -l <"$tmp/oom.err")" -eq 1 ] && grep -q "^tngc: .*dense4.py: out of memory while parsing" "$tmp/oom.err"' \
        "$(head -c 300 "$tmp/oom.err")"
fi

exit $((fails != 0))
