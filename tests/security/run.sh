#!/bin/sh
# Security and limits regression tests: one script per finding,
# tests/security/t_*.sh, each called as `sh SCRIPT TNGC_BUILD_DIR` (the
# directory holding tngc and libtngcrt.a: build or build/san). A script
# prints "ok NAME" / "FAIL NAME: why" lines and exits non-zero on a failure.
#
#   sh tests/security/run.sh [BUILD_DIR]      (default: build)
#   SEC_ONLY=REGEX restricts the scripts run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd) || exit 2
failed=0 n=0
for t in "$here"/t_*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    if [ -n "${SEC_ONLY:-}" ] && ! echo "$name" | grep -Eq "$SEC_ONLY"; then continue; fi
    n=$((n + 1))
    echo "-- $name"
    if ! sh "$t" "$build"; then failed=$((failed + 1)); echo "!! $name failed"; fi
done
echo "security: $n scripts, $failed failed"
[ $failed -eq 0 ]
