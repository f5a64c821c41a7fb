#!/bin/sh
# Runs an ACL bundle's launcher on one call recorded by tests/ref/harness.py,
# as tests/e2e/launch.sh runs a CPU one: the recorded inputs the launcher's
# signature lists (its --help: the lines after "inputs (" up to "outputs"),
# the recorded weights.
#
# usage: tests/aclsim/launch.sh LAUNCHER REFDIR OUTDIR [LAUNCHER_ARG...]
set -u
if [ $# -lt 3 ] || [ ! -x "$1" ] || [ ! -f "$2/inputs.txt" ]; then
    echo "usage: $0 LAUNCHER REFDIR OUTDIR [LAUNCHER_ARG...]" >&2
    exit 2
fi
launcher=$1 ref=$2 out=$3
shift 3
mkdir -p "$out" || exit 2
sig=$("$launcher" --help | sed -n '/inputs (/,/^outputs/s/^  \([^ ]*\) .*/\1/p')
if [ -f "$ref/weights.safetensors" ]; then
    set -- --weights "$ref/weights.safetensors" "$@"
fi
# the recorded inputs whose names the signature lists, in inputs.txt's order
while IFS= read -r line; do
    [ -z "$line" ] || set -- "$@" --input "$line"
done <<EOF
$(printf '%s\n' "$sig" | awk 'NR == FNR { if ($0 != "") want[$0] = 1; next }
    { n = $0; sub(/=.*/, "", n) } $0 != "" && (n in want)' - "$ref/inputs.txt")
EOF
exec "$launcher" --out-dir "$out" "$@"
