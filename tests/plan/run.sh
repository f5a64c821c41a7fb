#!/bin/sh
# tngc plan on every example script: exit 0, nothing on stderr, the same
# bytes on a second run (text, JSON and DOT); then the acceptance checks of
# the planner on the examples' plans (tests/plan/accept.py).
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for py in "$root"/examples/*/*.py; do
    case $py in */recompile/*) continue ;; esac   # a log script: nothing to plan
    name=${py#"$root"/}
    ok=1
    for fmt in text json dot; do
        (cd "$root" && "$tngc" plan --format $fmt "$name") >"$tmp/a" 2>"$tmp/err"
        status=$?
        (cd "$root" && "$tngc" plan --format $fmt "$name") >"$tmp/b" 2>/dev/null
        if [ $status -ne 0 ] || [ -s "$tmp/err" ]; then
            echo "FAIL plan $name ($fmt): exit status $status"; head -20 "$tmp/err"; ok=0
        elif ! cmp -s "$tmp/a" "$tmp/b"; then
            echo "FAIL plan $name ($fmt): two runs differ"; ok=0
        elif [ $fmt = json ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/a"; then
            echo "FAIL plan $name: not JSON"; ok=0
        fi
        [ $fmt = json ] && cp "$tmp/a" "$tmp/$(echo "$name" | tr / _).json"
    done
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
if python3 "$root/tests/plan/accept.py" "$tmp"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "plan: $pass passed, $fail failed"
[ $fail -eq 0 ]
