#!/bin/sh
# The command line around the stages: a misspelt command or option gets the
# closest one suggested; scan and lint take folders (every *.py file under
# them, in name order, skipping hidden folders, __pycache__ and symbolic
# links) and "-" (standard input).
# usage: tests/cli.sh TNGC
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
pass=0 fail=0
t() {   # name shell-condition
    if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}

"$tngc" biuld x.py > o 2> e
t "a misspelt command: exit 2, the closest named" '[ $? -eq 2 ] && grep -q "^tngc: unknown command .biuld. (did you mean .build.?)$" e'
"$tngc" frobnicate x.py > o 2> e
t "a command like none: no suggestion" '[ $? -eq 2 ] && grep -q "^tngc: unknown command .frobnicate.$" e'
"$tngc" lint --wrror x.py > o 2> e
t "a misspelt option: the closest option of that command" '[ $? -eq 2 ] && grep -q "unknown option .--wrror. (did you mean .--werror.?)" e'
"$tngc" plan --entyr M.forward x.py > o 2> e
t "a swapped pair of letters is one edit" '[ $? -eq 2 ] && grep -q "(did you mean .--entry.?)" e'

# a folder: the *.py files under it
mkdir -p proj/models/sub proj/.hidden proj/models/__pycache__ outside
bad='import torchair as tng
with tng.scope.super_kernel("sk", "stream-fusion=2"):
    pass
'
printf '%s' "$bad" > proj/models/b.py
printf '%s' "$bad" > proj/models/sub/a.py
printf '%s' "$bad" > proj/.hidden/h.py
printf '%s' "$bad" > proj/models/__pycache__/c.py
printf '%s' "$bad" > proj/models/notes.txt
printf '%s' "$bad" > outside/o.py
ln -s ../outside proj/models/link
ln -s ../../outside/o.py proj/models/l.py
"$tngc" lint proj > o 2> e
t "lint FOLDER: exit 1 with the findings" '[ $? -eq 1 ]'
t "lint FOLDER: every *.py under it once, in name order" \
  '[ "$(grep -o "^proj/[^:]*" o | tr "\n" " ")" = "proj/models/b.py proj/models/sub/a.py " ]' || cat o
t "lint FOLDER: hidden folders, __pycache__, links and other files left out" \
  '! grep -q "hidden\|pycache\|outside\|link\|l\.py\|notes" o'
mkdir empty
"$tngc" lint empty > o 2> e
t "a folder without Python files: exit 2, one line naming it" '[ $? -eq 2 ] && [ "$(wc -l < e)" -eq 1 ] && grep -q "^tngc: empty: is a folder with no Python file in it$" e'
"$tngc" scan proj/models/sub "$root/examples/decoder/model.py" > o 2> e
t "scan takes folders and files together" '[ $? -eq 0 ] && grep -q "^proj/models/sub/a.py" o && grep -q "examples/decoder/model.py" o'

# standard input
printf '%s' "$bad" | "$tngc" lint - > o 2> e
t "lint -: reads standard input, named <stdin>" '[ $? -eq 1 ] && grep -q "^<stdin>:2:35: error: .*\[TNG112\]$" o'
"$tngc" lint - < "$root/examples/decoder/model.py" > o 2> e
t "lint - on a clean script: exit 0" '[ $? -eq 0 ] && [ ! -s e ]'
printf 'x = 1\n' | "$tngc" lint - - > o 2> e
t "'-' twice: exit 2" '[ $? -eq 2 ] && grep -q "given twice" e'

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
