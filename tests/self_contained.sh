#!/bin/sh
# The self-contained check (scripts/self_contained.sh) on the repository, and
# that it tells references to outside documents and tracker numbers from
# ordinary text: each case is one line planted in a file of an empty folder.
# usage: tests/self_contained.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
check="$repo/scripts/self_contained.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if sh "$check" "$repo"; then ok "the repository: no such reference"; else bad "the repository"; fi

plant() {   # file line: a folder holding only FILE with LINE in it
    rm -rf "$tmp/r" && mkdir -p "$tmp/r/$(dirname "$1")" || exit 2
    printf '%s\n' "$2" >"$tmp/r/$1"
}
flagged() {   # file line: the check must fail and name file:1
    plant "$1" "$2"
    if sh "$check" "$tmp/r" >"$tmp/out" 2>&1; then
        bad "flagged: $1: $2 (the check passed)"
    elif grep -q "^$1:1:" "$tmp/out"; then
        ok "flagged: $1: $2"
    else
        bad "flagged: $1: $2: no '$1:1:' in:"; cat "$tmp/out"
    fi
}
passes() {   # file line: the check must pass
    plant "$1" "$2"
    if sh "$check" "$tmp/r" >"$tmp/out" 2>&1; then
        ok "passes: $1: $2"
    else
        bad "passes: $1: $2:"; cat "$tmp/out"
    fi
}

flagged a.c '/* the build cache (DESIGN.md, "cache_compile") */'
flagged docs/x.md 'tngc keeps going (DESIGN, "Frontend").'
flagged x.py "# the operators of DESIGN's list"
flagged runtime/README.md 'Discipline (STYLE.md): names'
flagged b.h ' * kernels of libtngcrt (issue 16): each'
flagged t.sh '# Issue 12: a shape error was silent'
flagged m.py "# Issue 18's GEMM on float32"
flagged c.c '/* fixed, see issue #4 */'
flagged d.py '# the hostile scripts (item 1)'
flagged x.md 'the op-info tree of seed 000 under build_dir'
flagged e.py "# Seed 002's three features"
flagged f.md 'the features of seeds 001-003 together'
flagged g.md 'One folder per TorchAir feature of the seed documents.'
flagged sub/Makefile '# examples/x: npu_wait_tensor (seed 003).'
passes tests/diff/README.md 'python3 tests/diff/gen.py --program 215    # program seed 215 alone'
passes x.py '# program seed 4 (gen.py --program 4)'
passes y.md 'prints each failing program'"'"'s seed and a minimised script (seed 1000005208)'
passes z.md '`seeds/` holds extra seed scripts for the fuzzer'
passes w.c '/* an issue the planner handles: the items 2 and 3 of a list */'
passes v.h '#define TNGC_DESIGN_LIMIT 4   /* DESIGNATED, REDESIGN */'
passes u.txt 'DESIGN.md (not a checked kind of file)'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
