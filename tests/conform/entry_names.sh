#!/bin/sh
# Entries of several instances of one class, on
# tests/conform/models/two_instances.py (three Block instances):
#   - tngc names them Block.forward, Block.forward#2, Block.forward#3 in the
#     order of their first calls (the plan's entry lines);
#   - `--entry Block.forward#2` selects the second instance in tngc (plan
#     and build) and in tests/ref/harness.py alike: the harness writes
#     entry.txt "Block.forward#2", and the one bundle (the script's stem)
#     matches PyTorch on that instance's recorded call.
# (tests/conform/run.sh checks every entry of the model without --entry.)
#
# usage: tests/conform/entry_names.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=entry-names model=two_instances.py
. "$(dirname "$0")/lib.sh"

e=$("$tngc" plan "$script" 2>"$tmp/plan.err" | sed -n 's/^entry \([^ ]*\) .*/\1/p' | tr '\n' ' ')
if [ "$e" = "Block.forward Block.forward#2 Block.forward#3 " ]; then
    ok "entries Block.forward, Block.forward#2, Block.forward#3"
else
    bad "entries: '$e'"; cat "$tmp/plan.err"
fi
e=$("$tngc" plan --entry 'Block.forward#2' "$script" 2>"$tmp/plan2.err" | sed -n 's/^entry \([^ ]*\) .*/\1/p')
[ "$e" = "Block.forward#2" ] && ok "--entry Block.forward#2 plans that entry" ||
    { bad "--entry Block.forward#2 plans '$e'"; cat "$tmp/plan2.err"; }
if ! "$py" "$root/tests/ref/harness.py" "$script" "$tmp/ref" '--entry=Block.forward#2' >"$tmp/harness.log" 2>&1; then
    bad "harness --entry=Block.forward#2"; tail -n 5 "$tmp/harness.log"
elif [ "$(cat "$tmp/ref/two_instances/entry.txt" 2>/dev/null)" != "Block.forward#2" ]; then
    bad "harness: entry.txt of two_instances"; ls "$tmp/ref"
elif ! "$tngc" build --entry 'Block.forward#2' "$script" -o "$tmp/out" >"$tmp/build.log" 2>&1; then
    bad "tngc build --entry Block.forward#2"; tail -n 5 "$tmp/build.log"
elif sh "$root/tests/e2e/launch.sh" "$tmp/out/two_instances_launcher" "$tmp/ref/two_instances" "$tmp/run" \
        --warmup 0 --iters 1 >"$tmp/run.log" 2>&1 &&
    "$py" "$root/tests/e2e/compare.py" --script "$script" "$tmp/ref/two_instances/expected" "$tmp/run" \
        >"$tmp/cmp.log" 2>&1 && grep -q "float32 \[4, 16\]" "$tmp/cmp.log"; then
    ok "the second instance (16 wide) built alone matches PyTorch's call of it"
else
    bad "the second instance built alone"; tail -n 5 "$tmp/run.log" "$tmp/cmp.log"
fi
finish
