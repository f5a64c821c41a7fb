# tests/conform/lib.sh - the preamble the single-model checks in this folder
# share (const_weights.sh, state_keys.sh, entry_names.sh, half_npy.sh,
# state_attr.sh). Source it with ". lib.sh" after setting
#   check   the check's name, as its summary line prints it
#   model   the model's file name under tests/conform/models/
# and with the check's own "$@". It checks the usage (one argument: an
# executable tngc), and sets
#   tngc    tngc's absolute path          root   the repository's root
#   py      PYTHON, or /usr/bin/python3   script the model's absolute path
#   tmp     a fresh directory, removed on exit
# and the counters pass/fail with ok/bad to count and print a result;
# finish prints the summary line and exits 0 only when nothing failed.
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC" >&2
    exit 2
fi
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-/usr/bin/python3}
script=$root/tests/conform/models/$model
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-$check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
finish() {
    echo "$check: $pass passed, $fail failed"
    [ $fail -eq 0 ]
    exit
}
