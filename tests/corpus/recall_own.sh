#!/bin/sh
# The recall test of tests/corpus/mutate.py on this folder's own three
# corpus files (no snapshots needed, so it runs in CI too): first the
# self-test of the judging (a finding already there never counts), then
# every mutant must lint without a crash or an exit status above 1.
# Prints recall per operator and overall; the figures are not pinned (the
# rules change them).
#
#   sh tests/corpus/recall_own.sh TNGC
set -u
tngc=${1:?usage: recall_own.sh TNGC}
here=$(cd "$(dirname "$0")" && pwd)
case $tngc in /*) ;; */*) tngc=$(pwd)/$tngc ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for f in deepseek_moe.py qwen_moe_aclgraph.py torchair_model_runner.py; do
    cp "$here/$f" "$tmp/$f" && echo "$f" >>"$tmp/files"
done
python3 "$here/mutate.py" --self-test || exit 1
python3 "$here/mutate.py" "$tngc" "$tmp" "$tmp/files"
