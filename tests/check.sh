#!/bin/sh
# Runs every test suite against one tngc binary and prints one summary line.
# usage: tests/check.sh TNGC [UNIT_TEST_BINARY...]
#
# The suites run CHECK_JOBS at a time (default: as many as there are CPUs),
# each in a worker (this script again, with CHECK_ONE set) whose output goes
# to a file; they start in the order of their cost (the number after
# `suite` below: rough CPU seconds, the largest first, so that the workers
# end together; a new suite gets its own figure, from /usr/bin/time).
# A line is printed as each suite finishes, in the order they finish:
# "ok NAME (S s): " and the suite's last line, or, for a suite that
# failed, "FAIL NAME (S s)" and its whole output. Every suite's output is
# kept in CHECK_LOGS (default: check-logs/ beside TNGC), one NAME.log each.
# At the end: each suite's wall time, longest first, and
# "suites: N passed, M failed".
#
# CHECK_SANITIZED=1 (make check SANITIZE=1, TNGC built with ASan and
# UBSan): the suites marked `plain` below are left out, and diff checks 80
# programs instead of 300. What those suites add is the generated code of
# many models compiled and run again (the ACL sources against the
# stand-in and real CANN headers, the conformance and op-sweep models, the
# fusion bit patterns): the same tngc code paths as the suites that stay,
# at three to four times the plain cost; the plain run checks their
# results. Everything else runs sanitized: the unit tests (the runtime's
# kernels among them), every suite that feeds tngc scripts, hostile files
# and caches, the launchers, e2e and diff's generated programs.
set -u
tngc=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

# suites MODE: the list. MODE "order" prints "COST INDEX" for each suite,
# "names" every name; "N" runs suite N into $tmp/N.log and then writes its
# exit status to $tmp/N.rc.
suites() {
    s_mode=$1 s_n=0
    shift
    diff_n=300
    [ "${CHECK_SANITIZED:-}" = 1 ] && diff_n=80
    for t in "$@"; do
        suite   1 "unit $(basename "$t")" "$t"
    done
    suite   3 include-graph sh "$here/include_graph.sh"
    suite   1 op-switches sh "$here/op_switches.sh"
    suite   5 call-graph sh "$here/call_graph.sh" "$(dirname "$tngc")/obj"
    suite   1 self-contained sh "$here/self_contained.sh"
    suite   1 file-sizes sh "$here/file_sizes.sh"
    suite   7 golden sh "$here/golden/run.sh" "$tngc"
    suite   1 dump sh "$here/dump.sh" "$tngc"
    suite   1 cli sh "$here/cli.sh" "$tngc"
    suite   1 fstrings sh "$here/fstrings.sh" "$tngc"
    suite   7 imports sh "$here/imports.sh" "$tngc"
    suite   2 lint-modules sh "$here/lint_modules.sh" "$tngc"
    suite   1 python-subset sh "$here/python_subset.sh" "$tngc"
    suite   4 recompiles sh "$here/recompiles/run.sh" "$tngc"
    suite  77 robust bash "$here/robust/run.sh" "$tngc"
    suite  11 corpus sh "$here/corpus/run.sh" "$tngc"
    suite   4 corpus-real sh "$here/corpus/real.sh" "$tngc"
    suite   1 rules-coverage python3 "$here/corpus/coverage_check.py"
    suite   5 corpus-recall sh "$here/corpus/recall_own.sh" "$tngc"
    suite   1 examples sh "$here/examples.sh" "$tngc"
    suite   3 plan sh "$here/plan/run.sh" "$tngc"
    suite   5 tngc.mk sh "$here/tngc_mk.sh" "$tngc"
    suite   8 build sh "$here/build/run.sh" "$tngc"
    plain 200 acl sh "$here/acl/run.sh" "$tngc"
    suite  15 acl-faults sh "$here/acl/mock_faults.sh" "$tngc"
    suite   5 acl-nz-reuse sh "$here/acl/nz_reuse.sh" "$tngc"
    suite   5 acl-launcher sh "$here/acl/launcher_trace_pad.sh" "$tngc"
    plain 200 aclsim sh "$here/aclsim/run.sh" "$tngc"
    plain 200 real-cann sh "$here/acl/real_cann.sh" "$tngc"
    suite  50 e2e sh "$here/e2e/run.sh" "$tngc"
    plain  88 conform sh "$here/conform/run.sh" "$tngc"
    plain  58 op-sweep sh "$here/sweep/run.sh" "$tngc"
    suite 150 diff sh "$here/diff/run.sh" "$tngc" 0 $diff_n --minimise 1 --opt=-O0
    suite   3 const-weights sh "$here/conform/const_weights.sh" "$tngc"
    plain  16 fuse-bits sh "$here/conform/fuse_bits.sh" "$tngc"
    suite   2 state-keys sh "$here/conform/state_keys.sh" "$tngc"
    suite   4 half-npy sh "$here/conform/half_npy.sh" "$tngc"
    suite  17 weights-formats sh "$here/conform/weights_formats.sh" "$tngc"
    suite   2 entry-names sh "$here/conform/entry_names.sh" "$tngc"
    suite  10 state-attr sh "$here/conform/state_attr.sh" "$tngc"
    suite  15 state-shared sh "$here/conform/state_shared.sh" "$tngc"
    suite   7 launcher sh "$here/launcher/run.sh" "$(dirname "$tngc")"
    plain  35 tp-mpi sh "$here/tp_mpi/run.sh" "$tngc"
    suite  33 security sh "$here/security/run.sh" "$(dirname "$tngc")"
    suite   1 pre-commit sh "$here/precommit.sh" "$(dirname "$tngc")"
    suite  12 readme sh "$here/readme/run.sh" "$tngc"
}
plain() {   # a suite left out of sanitized runs
    [ "${CHECK_SANITIZED:-}" = 1 ] || suite "$@"
}
suite() {   # cost name command...
    s_n=$((s_n + 1))
    case $s_mode in
    order) echo "$1 $s_n" ;;
    names) printf '%s\n' "$2" ;;
    "$s_n")
        shift 2
        date +%s >"$tmp/$s_n.start"
        "$@" >"$tmp/$s_n.log" 2>&1
        echo "$? $(date +%s)" >"$tmp/$s_n.rc.tmp" && mv "$tmp/$s_n.rc.tmp" "$tmp/$s_n.rc" ;;
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
# tngc build's default cache ($XDG_CACHE_HOME/tngc): one for the run, not
# the user's
XDG_CACHE_HOME=$tmp/xdg-cache
export XDG_CACHE_HOME
jobs=${CHECK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ "${CHECK_SANITIZED:-}" = 1 ] &&
    echo "sanitized run: acl, aclsim, real-cann, conform, op-sweep, fuse-bits and tp-mpi are left out (plain make check runs them); diff checks 80 programs"
suites names "$@" >"$tmp/names"
suites order "$@" | sort -k1,1nr -k2,2n | cut -d' ' -f2 |
    CHECK_ONE=$tmp xargs -P "$jobs" -I '{}' sh "$here/check.sh" "$tngc" '{}' "$@" &
workers=$!

logs=${CHECK_LOGS:-$(dirname "$tngc")/check-logs}
mkdir -p "$logs" || exit 2
start=$(date +%s)
n=$(wc -l <"$tmp/names")
passed=0 failed=0 done=0
: >"$tmp/times"
# report I NAME: suite I has finished (or its worker is gone)
report() {
    r_rc=1 r_end=$(date +%s)
    [ -f "$tmp/$1.rc" ] && read -r r_rc r_end <"$tmp/$1.rc"
    r_t=$((r_end - $(cat "$tmp/$1.start" 2>/dev/null || echo "$r_end")))
    safe=$(printf '%s' "$2" | tr -c 'A-Za-z0-9._-' '_')
    [ -f "$tmp/$1.log" ] && cp "$tmp/$1.log" "$logs/$safe.log"
    echo "$r_t $2" >>"$tmp/times"
    if [ "$r_rc" = 0 ]; then
        passed=$((passed + 1))
        printf 'ok %s (%s s): %s\n' "$2" "$r_t" "$(tail -n 1 "$tmp/$1.log" 2>/dev/null)"
    else
        failed=$((failed + 1))
        echo "FAIL $2 ($r_t s)"
        [ -f "$tmp/$1.log" ] && sed 's/^/    /' "$tmp/$1.log"
        [ -f "$tmp/$1.rc" ] || echo "    (its worker did not finish)"
        echo "!! $2 failed (whole output: $logs/$safe.log)"
    fi
}
while [ $done -lt "$n" ]; do
    alive=1
    kill -0 $workers 2>/dev/null || alive=0
    i=0
    while IFS= read -r name; do
        i=$((i + 1))
        [ -f "$tmp/$i.reported" ] && continue
        if [ -f "$tmp/$i.rc" ] || [ $alive = 0 ]; then
            : >"$tmp/$i.reported"
            done=$((done + 1))
            report $i "$name"
        fi
    done <"$tmp/names"
    [ $done -lt "$n" ] && { sleep 1 2>/dev/null || sleep 1; }
done
wait $workers
echo "suite times (wall seconds, longest first; $((  $(date +%s) - start )) s in all, $jobs at a time):"
sort -k1,1nr "$tmp/times" | awk '{ t = $1; $1 = ""; printf "  %5d %s\n", t, substr($0, 2) }'
echo "suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
