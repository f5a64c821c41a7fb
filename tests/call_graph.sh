#!/bin/sh
# The call-graph check on the repository's objects, and that it catches
# what it claims to: two files that call each other, a circle through a
# header's static inline function, and a circle that differs from the one
# the allowance names (each planted in a small tree of its own, compiled
# here).
# usage: tests/call_graph.sh [OBJDIR]   (default: build/obj)
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
check="$repo/scripts/call_graph.sh"
objdir=${1:-$repo/build/obj}
case $objdir in /*) ;; *) objdir=$(pwd)/$objdir ;; esac
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if sh "$check" "$repo" "$objdir"; then ok "the repository: no circles but the allowed"; else bad "the repository"; fi

# tree NAME FILE...: a fresh tree $tmp/NAME of planner/ files (written by
# the caller afterwards), compiled by build into $tmp/NAME/obj
tree() {
    rm -rf "$tmp/$1" && mkdir -p "$tmp/$1/planner" "$tmp/$1/obj/planner" || exit 2
}
build() {
    for c in "$tmp/$1"/planner/*.c; do
        "$CC" -std=c11 -Wall -Werror -c -o "$tmp/$1/obj/planner/$(basename "$c" .c).o" "$c" || exit 2
    done
}
expect() {   # name tree status pattern [allowed]: the check exits status and prints pattern
    if [ $# -ge 5 ]; then
        CALL_GRAPH_ALLOWED=$5 sh "$check" "$tmp/$2" "$tmp/$2/obj" > "$tmp/out" 2>&1
    else
        sh "$check" "$tmp/$2" "$tmp/$2/obj" > "$tmp/out" 2>&1
    fi
    st=$?
    if [ "$st" -ne "$3" ]; then
        bad "$1: exit status $st, not $3:"; cat "$tmp/out"
    elif grep -q "$4" "$tmp/out"; then
        ok "$1: $(grep "$4" "$tmp/out" | head -n 1)"
    else
        bad "$1: no '$4' in:"; cat "$tmp/out"
    fi
}

# a.c calls b.c and b.c calls a.c, each through the other's header
tree two
printf 'int a_f(int);\n' > "$tmp/two/planner/a.h"
printf 'int b_f(int);\n' > "$tmp/two/planner/b.h"
printf '#include "a.h"\n#include "b.h"\nint a_f(int x) { return x ? b_f(x - 1) : 0; }\n' > "$tmp/two/planner/a.c"
printf '#include "b.h"\n#include "a.h"\nint b_f(int x) { return x ? a_f(x - 1) : 1; }\n' > "$tmp/two/planner/b.c"
build two
expect "two files" two 1 "planner/a planner/b"
expect "two files, edge named" two 1 "planner/b -> planner/a: a_f"
expect "two files, allowed exactly" two 0 "allowed circle" '
planner/a planner/b
'

# c.c calls an inline function of h.h, whose body calls back into c.c:
# no include circle, and no undefined symbol names h.h
tree inline
printf 'int c_g(int);\nstatic inline int h_f(int x)\n{\n    return x > 0 ? c_g(x - 1) : 0;\n}\n' > "$tmp/inline/planner/h.h"
printf '#include "h.h"\nint c_g(int x) { return h_f(x) + 1; }\n' > "$tmp/inline/planner/c.c"
build inline
expect "through a header's inline function" inline 1 "planner/c planner/h"

# a third file joins the allowed circle of a and b: it fails
tree three
cp "$tmp/two/planner/a.h" "$tmp/two/planner/b.h" "$tmp/three/planner/"
printf 'int c_f(int);\n' > "$tmp/three/planner/c.h"
printf '#include "a.h"\n#include "b.h"\nint a_f(int x) { return x ? b_f(x - 1) : 0; }\n' > "$tmp/three/planner/a.c"
printf '#include "b.h"\n#include "c.h"\nint b_f(int x) { return x ? c_f(x - 1) : 1; }\n' > "$tmp/three/planner/b.c"
printf '#include "c.h"\n#include "a.h"\nint c_f(int x) { return x ? a_f(x - 1) : 2; }\n' > "$tmp/three/planner/c.c"
build three
expect "a circle the allowance does not name exactly" three 1 "planner/a planner/b planner/c" '
planner/a planner/b
'
expect "an allowance no circle matches" three 1 "is gone" '
planner/a planner/b
'

echo "call-graph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
