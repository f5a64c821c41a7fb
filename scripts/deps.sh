#!/bin/sh
# Installs what tngc needs to build and test, from Debian's packages and the
# npm registry only.  Called by the Makefile when a dependency is missing;
# safe to run again.  Usage: scripts/deps.sh BUILD_DIR
set -eu
build=${1:-build}
TS_PY_VERSION=0.23.6   # ABI 14: the newest that Debian's libtree-sitter 0.20 loads
# pre-commit: only tests/precommit.sh uses it (Debian 12 has 3.0.4-1, the version
# that test is written against); it follows the Debian release, like the rest.
# libopenmpi-dev (and mpirun with it): libtngcrt_mpi.a and the launchers of
# bundles built with --world-size N > 1 (docs/bundles.md, "Tensor parallel
# over MPI"). As root, mpirun needs --allow-run-as-root, and on fewer cores
# than ranks --oversubscribe.

pkgs="libtree-sitter-dev libclang-dev libcmocka-dev libcjson-dev libopenblas-dev clang libclang-rt-14-dev pkg-config python3 python3-torch pre-commit libopenmpi-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "deps: installing Debian packages:$missing"
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

dest="$build/tree-sitter-python"
if [ ! -f "$dest/src/parser.c" ]; then
    echo "deps: fetching tree-sitter-python@$TS_PY_VERSION from npm"
    mkdir -p "$build"
    tmp=$(mktemp -d "$build/.npm.XXXXXX")
    (cd "$tmp" && npm pack --silent "tree-sitter-python@$TS_PY_VERSION" >/dev/null)
    tar -xzf "$tmp"/tree-sitter-python-*.tgz -C "$tmp"
    rm -rf "$dest"
    mv "$tmp/package" "$dest"
    rm -rf "$tmp"
fi
