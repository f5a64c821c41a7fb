#!/bin/sh
# The include-graph check on the repository, and that it catches what it
# claims to: a circle between two files, a circle between folders, and an
# include a folder's README does not allow (each planted in a copy).
# usage: tests/include_graph.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
check="$repo/scripts/include_graph.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if sh "$check" "$repo"; then ok "the repository: no circles, every include allowed"; else bad "the repository"; fi

copy() {   # a fresh copy of the stage folders in $tmp/r
    rm -rf "$tmp/r" && mkdir -p "$tmp/r/frontend" || exit 2
    for d in support ir hostlog planner codegen runtime; do cp -R "$repo/$d" "$tmp/r/$d"; done
    for d in python diag lint lower; do cp -R "$repo/frontend/$d" "$tmp/r/frontend/$d"; done
}
expect_fail() {   # name pattern: the check must fail and print pattern
    if sh "$check" "$tmp/r" > "$tmp/out" 2>&1; then
        bad "$1: the check passed"
    elif grep -q "$2" "$tmp/out"; then
        ok "$1: $(grep "$2" "$tmp/out" | head -n 1)"
    else
        bad "$1: no '$2' in:"; cat "$tmp/out"
    fi
}

# a.c calls b.c and b.c calls a.c: each includes the other's header
copy
printf '#include "gears.h"\n' > "$tmp/r/planner/streams.h"
printf '#include "streams.h"\n' > "$tmp/r/planner/gears.h"
printf '#include "streams.h"\n' >> "$tmp/r/planner/gears.c"
expect_fail "file circle" "files form a circle"

# ir/ reaching up into the planner, which includes ir/
copy
printf '#include "../planner/plan.h"\n' >> "$tmp/r/ir/graph.c"
expect_fail "folder circle" "folders form a circle"

# the planner including codegen: no circle, but its README does not allow it
copy
printf '#include "../codegen/cesc.h"\n' >> "$tmp/r/planner/gears.c"
expect_fail "include not allowed" "planner includes codegen"

echo "include-graph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
