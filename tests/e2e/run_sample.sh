#!/bin/sh
# Runs the bundles of one script on sample inputs made by PyTorch, shows
# their outputs and compares them with PyTorch's (what `make run` of the
# examples and `make demo` do).
#
# usage: tests/e2e/run_sample.sh SCRIPT BUNDLE_DIR SAMPLE_DIR [LAUNCHER_ARG...]
#
#   SCRIPT      the model script
#   BUNDLE_DIR  where `tngc build SCRIPT -o BUNDLE_DIR` put its bundles
#   SAMPLE_DIR  tests/ref/harness.py writes there, per bundle <name>/: the
#               inputs (inputs/, inputs.txt), weights.safetensors and
#               PyTorch's outputs (expected/); the launcher's outputs go to
#               <name>/actual/
#   LAUNCHER_ARG  default --warmup 0 --iters 1 (inputs updated in place, such
#               as KV caches, are updated by every run)
#
# PYTHON selects the interpreter (default /usr/bin/python3, with python3-torch).
# Exit status: 0 every bundle ran and matches PyTorch, 1 otherwise, 2 usage.
set -u
if [ $# -lt 3 ] || [ ! -f "$1" ] || [ ! -d "$2" ]; then
    echo "usage: $0 SCRIPT BUNDLE_DIR SAMPLE_DIR [LAUNCHER_ARG...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
script=$1 bundles=$2 sample=$3
shift 3
[ $# -gt 0 ] || set -- --warmup 0 --iters 1
echo "== sample inputs: PyTorch runs $script (tests/ref/harness.py -> $sample)"
log=$(mktemp) || exit 2
"$py" "$here/../ref/harness.py" "$script" "$sample" >"$log" 2>&1
rc=$?
sed 's/^/  | /' "$log"    # what the script printed, set apart
rm -f "$log"
[ $rc -eq 0 ] || exit 1
rc=0
for ref in "$sample"/*/; do
    ref=${ref%/}
    name=$(basename "$ref")
    launcher=$bundles/${name}_launcher
    echo
    echo "== $launcher $*"
    if ! sh "$here/launch.sh" "$launcher" "$ref" "$ref/actual" "$@"; then
        echo "$launcher failed" >&2
        rc=1
        continue
    fi
    "$py" - "$ref/actual" <<'EOF'
import os, sys
import numpy as np
d = sys.argv[1]
np.set_printoptions(precision=4, threshold=8, edgeitems=3, linewidth=100)
for f in sorted(os.listdir(d)):
    if f.endswith(".npy"):
        a = np.load(os.path.join(d, f))
        print("%s: %s %s %s" % (f, a.dtype, list(a.shape), np.array2string(a.ravel()[:6])))
EOF
    echo "== compared with PyTorch (tests/e2e/compare.py)"
    "$py" "$here/compare.py" --script "$script" "$ref/expected" "$ref/actual" || rc=1
done
exit $rc
