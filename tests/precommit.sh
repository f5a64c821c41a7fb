#!/bin/sh
# precommit.sh - runs the repository's .pre-commit-hooks.yaml through the
# real pre-commit tool (Debian's package) against a temporary git project.
#
# usage: sh tests/precommit.sh BUILD_DIR     (the folder holding tngc)
#
# The hooks file is committed into a temporary hook repository, and the
# project's .pre-commit-config.yaml names that repository and commit, so
# pre-commit clones it and reads the shipped hooks file as a user's
# pre-commit would (offline: the clone is a local path).  The hook is
# `language: system`, so BUILD_DIR goes first on PATH: the tngc under test
# is the one the hook runs.  Checks: a seeded error (gear value 0) fails
# the hook with TNG125; a clean file passes, and a non-Python file holding
# the same error is not linted (types: [python]); a warning passes, and
# fails with `args: [--werror]`; without tngc on PATH the hook fails with
# pre-commit's "not found".  HOME, the XDG folders and PRE_COMMIT_HOME all
# point into the temporary folder: nothing outside it is read or written.
# Skipped (exit 0) where the pre-commit command is absent.
set -u
build=${1:?usage: sh tests/precommit.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$PWD/$build ;; esac
[ -x "$build/tngc" ] || { echo "pre-commit: $build/tngc is missing (make it first)" >&2; exit 1; }
[ -f "$root/.pre-commit-hooks.yaml" ] || { echo "pre-commit: $root/.pre-commit-hooks.yaml is missing" >&2; exit 1; }
if ! command -v pre-commit >/dev/null 2>&1; then
    echo "pre-commit: skipped: pre-commit not installed (scripts/deps.sh installs Debian's)"
    exit 0
fi
echo "pre-commit: $(pre-commit --version)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-precommit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config"
export PRE_COMMIT_HOME="$tmp/pre-commit" GIT_CONFIG_NOSYSTEM=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
mkdir "$HOME"
syspath=$PATH
PATH="$build:$PATH"
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/    /' "$tmp/out"; }

git_init() {   # dir: a fresh repository with a local identity
    git init -q -b main "$1" &&
    git -C "$1" config user.name "tngc test" &&
    git -C "$1" config user.email "tngc-test@example.invalid"
}

# The hook repository: the shipped hooks file, committed.
git_init "$tmp/hooks" || exit 1
cp "$root/.pre-commit-hooks.yaml" "$tmp/hooks/"
git -C "$tmp/hooks" add .pre-commit-hooks.yaml
git -C "$tmp/hooks" commit -q -m "hooks" || exit 1
rev=$(git -C "$tmp/hooks" rev-parse HEAD)

config() {   # file [args]: a config that uses tngc-lint from the hook repository
    printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: tngc-lint\n' "$tmp/hooks" "$rev" > "$1"
    [ $# -lt 2 ] || printf '        args: [%s]\n' "$2" >> "$1"
}

model() {   # gear list: a compiled model whose batch dim has these gears
    cat <<EOF
import torch
import torchair
from torchair.inference import set_dim_gears


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=True, fullgraph=True)
x = torch.zeros(8, 128)
set_dim_gears(x, {0: [$1]})
y = model(x)
EOF
}

proj=$tmp/project
git_init "$proj" || exit 1
mkdir "$proj/models"
config "$proj/.pre-commit-config.yaml"
config "$tmp/werror.yaml" --werror

hook() {   # [pre-commit run options]: stage everything, run, output in $tmp/out
    git -C "$proj" add -A &&
    (cd "$proj" && pre-commit run --all-files --color never "$@") > "$tmp/out" 2>&1
}
has() { grep -qF -- "$1" "$tmp/out"; }

# 1. A seeded error fails the hook and is reported.
model "0, 4, 8" > "$proj/models/decoder.py"
if hook; then
    fail "gear value 0: the hook passed"
elif has "models/decoder.py:15:23: error: gear value must not be 0 [TNG125]" && has "Failed"; then
    pass
else
    fail "gear value 0: no TNG125 error in the hook's output"
fi

# 2. The clean file passes; a text file with the same error is not linted.
model "2, 4, 8" > "$proj/models/decoder.py"
model "0, 4, 8" > "$proj/models/decoder.txt"
if hook && has "Passed" && ! has "TNG125"; then pass; else fail "clean file: the hook did not pass"; fi
rm "$proj/models/decoder.txt"

# 3. A warning passes by default and fails with --werror.
model "1, 4, 8" > "$proj/models/decoder.py"
if hook && has "Passed"; then pass; else fail "gear value 1: the warning failed the hook"; fi
if hook --config "$tmp/werror.yaml"; then
    fail "gear value 1 with --werror: the hook passed"
elif has "warning: gear value 1" && has "[TNG125]"; then
    pass
else
    fail "gear value 1 with --werror: no TNG125 warning in the output"
fi

# 4. Without tngc on PATH, pre-commit says so (only where none is installed).
if ! PATH=$syspath command -v tngc >/dev/null 2>&1; then
    if (PATH=$syspath; hook); then
        fail "no tngc on PATH: the hook passed"
    elif has "Executable \`tngc\` not found"; then
        pass
    else
        fail "no tngc on PATH: no 'not found' message"
    fi
fi

echo "pre-commit: $passed passed, $failed failed"
[ $failed -eq 0 ]
