#!/bin/sh
# Runs a bundle's launcher on what tests/ref/harness.py recorded for it.
#
# usage: tests/e2e/launch.sh LAUNCHER REFDIR OUTDIR [LAUNCHER_ARG...]
#
# REFDIR is one bundle's folder of the harness (inputs.txt, inputs/,
# optionally weights.safetensors). Passes --weights REFDIR/weights.safetensors
# when it exists, --input NAME=FILE for every line of REFDIR/inputs.txt whose
# NAME the launcher's signature (--help) lists, --out-dir OUTDIR (created),
# then the LAUNCHER_ARGs. An input of the call that the signature does not
# list (tngc leaves out arguments the compiled graph never reads) is not
# passed, with a note on stderr.
# Exit status: the launcher's; 2 for a usage error here.
set -u
if [ $# -lt 3 ] || [ ! -x "$1" ] || [ ! -f "$2/inputs.txt" ]; then
    echo "usage: $0 LAUNCHER REFDIR OUTDIR [LAUNCHER_ARG...]" >&2
    exit 2
fi
launcher=$1 ref=$2 out=$3
shift 3
mkdir -p "$out" || exit 2
# The input names of the signature: the lines between "inputs (...):" and
# "weights:", each "  NAME dtype[dims]...".
sig=$("$launcher" --help | sed -n '/^inputs (/,/^weights:/p' | sed -n 's/^  \([^ ]*\) .*/\1/p')
if [ -z "$sig" ] && ! "$launcher" --help | grep -q '^inputs ('; then
    echo "$0: $launcher --help lists no signature" >&2
    exit 2
fi
if [ -f "$ref/weights.safetensors" ]; then
    set -- --weights "$ref/weights.safetensors" "$@"
fi
while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=${line%%=*}
    if printf '%s\n' "$sig" | grep -qxF -- "$name"; then
        set -- "$@" --input "$line"
    else
        echo "note: input $name is not in the signature of $(basename "$launcher") (not read by the compiled graph): not passed" >&2
    fi
done < "$ref/inputs.txt"
# VALGRIND, when set, is a command line to run the launcher under.
exec ${VALGRIND:-} "$launcher" --out-dir "$out" "$@"
