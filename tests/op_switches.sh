#!/bin/sh
# The op-switch check on the repository, and that it catches what it claims
# to (each case planted alone in an empty tree): a default in a switch over
# op kinds or libtngcrt sub-kinds fails, naming FILE:LINE; a switch over
# them without one, a default in a switch over another enum (also one
# nested in a case of a switch over op kinds) and a default in a comment or
# a string pass.
# usage: tests/op_switches.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
check="$repo/scripts/op_switches.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if sh "$check" "$repo"; then ok "the repository: no switch over op kinds has a default"; else bad "the repository"; fi

plant() {   # folder/file.c: a fresh tree holding only that file, from stdin
    rm -rf "$tmp/r" && mkdir -p "$tmp/r/$(dirname "$1")" && cat > "$tmp/r/$1"
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
expect_pass() {   # name
    if sh "$check" "$tmp/r" > "$tmp/out" 2>&1; then ok "$1"; else bad "$1: the check failed:"; cat "$tmp/out"; fi
}

plant ir/kinds.c <<'C'
static int kinds__f(OpKind k)
{
    switch (k) {
    case OP_ADD: case OP_SUB:
        return 1;
    default:
        return 0;
    }
}
C
expect_fail "a default in a switch over OP_" "ir/kinds.c:6: default:"

plant runtime/sub.c <<'C'
static float sub__f(int k, float x)
{
    switch (k) {
    case TNGRT_BIN_ADD: return x + 1;
    default: return x;
    }
}
C
expect_fail "a default in a switch over TNGRT_BIN_" "runtime/sub.c:5: default:"

plant codegen/outer.c <<'C'
static int outer__f(OpKind k, DType t)
{
    switch (k) {
    case OP_CAST:
        switch (t) {
        case DT_F32: return 1;
        default: return 2;
        }
    default:
        return 0;
    }
}
C
expect_fail "a default of a switch over OP_ after a nested switch" "codegen/outer.c:9: default:"

plant planner/nodefault.c <<'C'
static int nodefault__f(OpKind k, DType t)
{
    switch (k) {   /* default: in a comment */
    case OP_ADD:
        return 1;
    case OP_CAST:
        switch (t) {
        case DT_F32: return 1;
        default: return 2;
        }
    case OP_SUB: {
        const char *s = "default: in a string";
        return s[0];
    }
    }
    return 0;
}
static int other__f(DType t)
{
    switch (t) {
    case DT_F32: return 4;
    default: return 0;
    }
}
C
expect_pass "no default over OP_; defaults over other enums, in comments and strings"

echo "op-switches: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
