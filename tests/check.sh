#!/bin/sh
# Runs every test suite against one tngc binary and prints one summary line.
# usage: tests/check.sh TNGC [UNIT_TEST_BINARY...]
set -u
tngc=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0
run() {   # name command...
    name=$1
    shift
    echo "== $name"
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "!! $name failed"; fi
}
for t in "$@"; do
    run "unit $(basename "$t")" "$t"
done
run include-graph sh "$here/include_graph.sh"
run golden sh "$here/golden/run.sh" "$tngc"
run dump sh "$here/dump.sh" "$tngc"
run fstrings sh "$here/fstrings.sh" "$tngc"
run imports sh "$here/imports.sh" "$tngc"
run lint-modules sh "$here/lint_modules.sh" "$tngc"
run python-subset sh "$here/python_subset.sh" "$tngc"
run recompiles sh "$here/recompiles/run.sh" "$tngc"
run robust bash "$here/robust/run.sh" "$tngc"
run corpus sh "$here/corpus/run.sh" "$tngc"
run corpus-real sh "$here/corpus/real.sh" "$tngc"
run examples sh "$here/examples.sh" "$tngc"
run plan sh "$here/plan/run.sh" "$tngc"
run tngc.mk sh "$here/tngc_mk.sh" "$tngc"
run build sh "$here/build/run.sh" "$tngc"
run acl sh "$here/acl/run.sh" "$tngc"
run acl-faults sh "$here/acl/mock_faults.sh" "$tngc"
run acl-nz-reuse sh "$here/acl/nz_reuse.sh" "$tngc"
run acl-launcher sh "$here/acl/launcher_trace_pad.sh" "$tngc"
run real-cann sh "$here/acl/real_cann.sh" "$tngc"
run e2e sh "$here/e2e/run.sh" "$tngc"
run conform sh "$here/conform/run.sh" "$tngc"
run const-weights sh "$here/conform/const_weights.sh" "$tngc"
run launcher sh "$here/launcher/run.sh" "$(dirname "$tngc")"
run security sh "$here/security/run.sh" "$(dirname "$tngc")"
run pre-commit sh "$here/precommit.sh" "$(dirname "$tngc")"
echo "suites: $passed passed, $failed failed"
[ $failed -eq 0 ]
