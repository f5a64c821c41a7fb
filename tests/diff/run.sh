#!/bin/sh
# Differential testing of tngc against PyTorch on generated programs
# (tests/diff/README.md): run.sh TNGC SEED_START COUNT [OPTION...]
here=$(cd "$(dirname "$0")" && pwd)
exec "${PYTHON:-/usr/bin/python3}" "$here/run.py" "$@"
