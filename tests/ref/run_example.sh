#!/bin/sh
# Runs a TorchAir example script on the CPU with PyTorch and the stand-in
# torch_npu / torchair modules of tests/ref/stubs: the reference that tngc's
# bundles are compared with.
#
# usage: tests/ref/run_example.sh SCRIPT [ARG...]
#
# The script runs in a fresh temporary directory (scripts that write files,
# such as static_kernel/model.py, leave nothing behind; give file ARGs as
# absolute paths) with
# PYTHONPATH=tests/ref/stubs, whose sitecustomize.py installs the patches:
# Tensor.npu() / Module.npu() as identities, torch.compile returning its
# argument, torch._dynamo.mark_static, torch.npu. PYTHON selects the
# interpreter (default /usr/bin/python3, Debian's, which has python3-torch).
# Exit status: the script's; 2 for a usage error.
set -u
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
    echo "usage: $0 SCRIPT [ARG...]" >&2
    exit 2
fi
stubs=$(cd "$(dirname "$0")/stubs" && pwd)
script=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
PYTHONPATH="$stubs${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
    "$python" "$script" "$@"
