# tests/security/lib.sh - what every t_*.sh starts with (sourced; $1 is the
# build directory holding tngc and libtngcrt.a): $build, $tngc, $here (this
# folder), $root (the repository), $tmp (a private directory removed on
# exit), and ok/fail/check, which count failures in $fails.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
tngc=$build/tngc
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-sec.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
# check NAME SHELL-CONDITION [WHY]
check() { if eval "$2"; then ok "$1"; else fail "$1" "${3:-$2}"; fi; }
