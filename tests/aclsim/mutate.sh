#!/bin/sh
# Mutation checks of aclsim's checker: tests/conform/models/streams.py (three
# streams, events that order data between them) generated with
# `tngc gen --target acl`, one line of its source changed, compiled and
# linked against aclsim as tngc build links a launcher, and run on a call
# recorded under PyTorch:
#   unchanged   runs, no aclsim report, matches PyTorch (the recipe works);
#   no wait     the planned wait of stream 0 for stream 1 before `c = a + b`
#               removed: a race naming aclnnAdd on s0 and the operator of
#               stream 1 whose output it reads;
#   workspace   stream 1's workspace allocated 8 bytes short: the first
#               operator of stream 1 fails naming its workspace;
#   swapped     the two matrices of the first aclnnMm call swapped: the run
#               fails naming aclnnMm.
# Each failing run must exit non-zero. Then checker.c's scenarios, the API
# called directly: ordered work runs; a race, a free of a block in use, a
# use after free, a workspace shared by two streams, an executor launched
# twice each fail with their line. Prints "ok ..." / "FAIL ..." lines.
#
# usage: tests/aclsim/mutate.sh TNGC SIMDIR WORKDIR     (PYTHON, CC as run.sh)
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2" "$3" || exit 2
sim=$(cd "$2" && pwd) w=$(cd "$3" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/aclsim
py=${PYTHON:-/usr/bin/python3}
cc=${CC:-clang}
ok() { echo "ok   mutation $*"; }
bad() { echo "FAIL mutation $*"; }
mkdir -p "$w/src"
cp "$root/tests/conform/models/streams.py" "$w/src/"
if ! "$py" "$root/tests/ref/harness.py" "$w/src/streams.py" "$w/ref" >"$w/harness.log" 2>&1 ||
    ! (cd "$w/src" && "$tngc" gen --target acl -o "$w/gen" streams.py) >"$w/gen.log" 2>&1; then
    bad "set-up: the recording or tngc gen failed"
    exit 1
fi

# variant NAME SED: the generated source changed by SED, linked; runs it
# (status in rc, stderr in $w/NAME/err)
variant() {
    v=$w/$1
    rm -rf "$v" && mkdir -p "$v" && cp "$w/gen"/* "$v/"
    sed "$2" "$w/gen/streams.c" >"$v/streams.c"
    if [ "$1" != unchanged ] && cmp -s "$w/gen/streams.c" "$v/streams.c"; then
        echo "  the edit changed nothing" >"$v/err"
        rc=0
        return
    fi
    if ! $cc -std=c11 -O0 -D_POSIX_C_SOURCE=200809L -I"$root/runtime" -I"$v" -I"$sim/include" -o "$v/launcher" \
        "$v/streams.c" "$v/streams_launcher.c" "$root/build/libtngcrt_core.a" -L"$sim/lib64" \
        -Wl,-rpath,"$sim/lib64" -lascendcl -lnnopbase -lopapi -lpthread -lm >"$v/err" 2>&1; then
        rc=99
        return
    fi
    sh "$here/launch.sh" "$v/launcher" "$w/ref/streams" "$v/out" --warmup 0 --iters 1 >"$v/log" 2>"$v/err"
    rc=$?
}

variant unchanged 's/^$//'
if [ $rc -eq 0 ] && ! grep -q 'aclsim:' "$v/err" &&
    "$py" "$root/tests/e2e/compare.py" --script "$w/src/streams.py" "$w/ref/streams/expected" "$v/out" >"$v/cmp" 2>&1; then
    ok "unchanged: runs and matches PyTorch"
else
    bad "unchanged: status $rc"
    sed 's/^/    /' "$v/err" "$v/cmp" 2>/dev/null | head -5
fi

variant no_wait '/^    TNGC_WAIT(0, 0, .*add %10/d'
if [ $rc -ne 0 ] && grep -q '^aclsim: race: aclnnAdd on s0 reads bytes .* that aclnn[A-Za-z0-9]* on s1 writes' "$v/err"; then
    ok "no wait: $(grep -m1 '^aclsim: race' "$v/err")"
else
    bad "no wait: status $rc, no race named"
    sed 's/^/    /' "$v/err" | head -5
fi

variant workspace 's/aclrtMalloc(&G->ws\[s\], (size_t)bytes,/aclrtMalloc(\&G->ws[s], (size_t)bytes - (s == 1 ? 8 : 0),/'
if [ $rc -ne 0 ] && grep -q '^aclsim: aclnn[A-Za-z0-9]* on s1: its workspace of [0-9]* bytes .* is not within a live device block' "$v/err"; then
    ok "workspace: $(grep -m1 'its workspace' "$v/err")"
else
    bad "workspace: status $rc, no workspace named"
    sed 's/^/    /' "$v/err" | head -5
fi

variant swapped 's/^\(    TNGC_ACLNN(aclnnMm, 0, [0-9]*, "[^"]*", \)\(G->t\[[0-9]*\]\), \(G->t\[[0-9]*\]\)/\1\3, \2/'
if [ $rc -ne 0 ] && grep -q 'aclnnMm' "$v/err"; then
    ok "swapped: $(grep -m1 'aclnnMm' "$v/err")"
else
    bad "swapped: status $rc, aclnnMm not named"
    sed 's/^/    /' "$v/err" | head -5
fi

# checker.c: one scenario a run, each with the line it must print
if ! $cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -I"$sim/include" -o "$w/checker" \
    "$here/checker.c" -L"$sim/lib64" -Wl,-rpath,"$sim/lib64" -lascendcl >"$w/checker.err" 2>&1; then
    bad "checker.c builds"
    sed 's/^/    /' "$w/checker.err" | head -5
    exit 0
fi
scenario() {   # NAME STATUS LINE
    "$w/checker" "$1" >/dev/null 2>"$w/$1.err"
    s_rc=$?
    if { [ "$2" = 0 ] && [ $s_rc -eq 0 ] && ! [ -s "$w/$1.err" ]; } ||
        { [ "$2" != 0 ] && [ $s_rc -ne 0 ] && grep -q -- "$3" "$w/$1.err"; }; then
        ok "checker $1: status $s_rc${3:+, }$(grep -m1 -- "${3:-^$}" "$w/$1.err")"
    else
        bad "checker $1: status $s_rc"
        sed 's/^/    /' "$w/$1.err" | head -5
    fi
}
scenario ordered 0 ''
scenario race 1 '^aclsim: race: aclnnAdds on s1 reads bytes 0..256 of block b1 that aclnnAdds on s0 writes'
scenario free 1 '^aclsim: aclrtFree: block b1 freed while aclnnAdds on s0, which writes its bytes 0..256, may not have run'
scenario after-free 1 '^aclsim: aclnnAdds on s1: use after free: block b1'
scenario workspace 1 '^aclsim: race: aclnnAdds on s1 (workspace) writes bytes 0..512 of block b3 that aclnnAdds on s0 (workspace) writes'
scenario twice 1 '^aclsim: aclnnAdds: an executor of aclnnAdds used again after its run or destroy (not repeatable)'
