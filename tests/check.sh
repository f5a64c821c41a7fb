#!/bin/sh
# Runs every test suite against one tngc binary and prints one summary line.
# usage: tests/check.sh TNGC [UNIT_TEST_BINARY...]
#
# The suites run CHECK_JOBS at a time (default: as many as there are CPUs),
# the longest first (those marked "first" below), each in a worker (this
# script again, with CHECK_ONE set) whose output goes to a file. Each suite's
# output is printed in the order of the list below, "== NAME" first and
# "!! NAME failed" after it when it failed, as soon as it and the suites
# before it are done; then "suites: N passed, M failed".
set -u
tngc=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

# suites MODE: the list. MODE "first" prints the index of each suite marked
# first, "rest" the others', "names" every name; "N" runs suite N into
# $tmp/N.log and then writes its exit status to $tmp/N.rc.
suites() {
    s_mode=$1 s_n=0
    shift
    for t in "$@"; do
        suite - "unit $(basename "$t")" "$t"
    done
    suite - include-graph sh "$here/include_graph.sh"
    suite - golden sh "$here/golden/run.sh" "$tngc"
    suite - dump sh "$here/dump.sh" "$tngc"
    suite - fstrings sh "$here/fstrings.sh" "$tngc"
    suite - imports sh "$here/imports.sh" "$tngc"
    suite - python-subset sh "$here/python_subset.sh" "$tngc"
    suite - recompiles sh "$here/recompiles/run.sh" "$tngc"
    suite - robust bash "$here/robust/run.sh" "$tngc"
    suite - corpus sh "$here/corpus/run.sh" "$tngc"
    suite - corpus-real sh "$here/corpus/real.sh" "$tngc"
    suite - examples sh "$here/examples.sh" "$tngc"
    suite - plan sh "$here/plan/run.sh" "$tngc"
    suite - tngc.mk sh "$here/tngc_mk.sh" "$tngc"
    suite - build sh "$here/build/run.sh" "$tngc"
    suite first acl sh "$here/acl/run.sh" "$tngc"
    suite - acl-faults sh "$here/acl/mock_faults.sh" "$tngc"
    suite - acl-nz-reuse sh "$here/acl/nz_reuse.sh" "$tngc"
    suite - acl-launcher sh "$here/acl/launcher_trace_pad.sh" "$tngc"
    suite first real-cann sh "$here/acl/real_cann.sh" "$tngc"
    suite first e2e sh "$here/e2e/run.sh" "$tngc"
    suite first conform sh "$here/conform/run.sh" "$tngc"
    suite - const-weights sh "$here/conform/const_weights.sh" "$tngc"
    suite - launcher sh "$here/launcher/run.sh" "$(dirname "$tngc")"
    suite first security sh "$here/security/run.sh" "$(dirname "$tngc")"
    suite - pre-commit sh "$here/precommit.sh" "$(dirname "$tngc")"
}
suite() {   # first|- name command...
    s_n=$((s_n + 1))
    case $s_mode in
    first) [ "$1" = first ] && echo "$s_n" ;;
    rest) [ "$1" = first ] || echo "$s_n" ;;
    names) printf '%s\n' "$2" ;;
    "$s_n")
        shift 2
        "$@" >"$tmp/$s_n.log" 2>&1
        echo $? >"$tmp/$s_n.rc.tmp" && mv "$tmp/$s_n.rc.tmp" "$tmp/$s_n.rc" ;;
    esac
    return 0
}

if [ -n "${CHECK_ONE:-}" ]; then
    tmp=$CHECK_ONE
    i=$1
    shift
    suites "$i" "$@"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
jobs=${CHECK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
suites names "$@" >"$tmp/names"
{ suites first "$@"; suites rest "$@"; } |
    CHECK_ONE=$tmp xargs -P "$jobs" -I '{}' sh "$here/check.sh" "$tngc" '{}' "$@" &
workers=$!

passed=0 failed=0
i=0
while IFS= read -r name; do
    i=$((i + 1))
    while [ ! -f "$tmp/$i.rc" ] && kill -0 $workers 2>/dev/null; do
        sleep 0.2 2>/dev/null || sleep 1
    done
    echo "== $name"
    [ -f "$tmp/$i.log" ] && cat "$tmp/$i.log"
    if [ -f "$tmp/$i.rc" ] && [ "$(cat "$tmp/$i.rc")" = 0 ]; then
        passed=$((passed + 1))
    else
        [ -f "$tmp/$i.rc" ] || echo "!! $name: its worker did not finish"
        failed=$((failed + 1))
        echo "!! $name failed"
    fi
done <"$tmp/names"
wait $workers
echo "suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
