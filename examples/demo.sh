#!/bin/sh
# make demo: lint and scan every example, plan the multi-stream seed and the
# decoder, analyse the recompile log, then build the decoder (and the LLaMA
# example) into bundles, run their launchers on sample inputs made by
# PyTorch (python3-torch) and compare their outputs with PyTorch's. Needs
# `make` (build/tngc and build/libtngcrt.a) first.
set -eu
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")"
echo "== tngc lint examples/*/*.py"
"$tngc" lint */*.py && echo "no findings: every example lints clean"
echo
echo "== tngc scan examples/multi_stream/model.py"
"$tngc" scan multi_stream/model.py
echo
echo "== tngc lint on a broken copy of the multi-stream example (reduce-overhead + npu_wait_tensor)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/config.debug.graph_dump.type = "pbtxt"/config.mode = "reduce-overhead"/' multi_stream/model.py > "$tmp/model.py"
(cd "$tmp" && "$tngc" lint model.py) || echo "(exit status $?: errors found, as expected)"
echo
echo "== tngc plan examples/multi_stream/model.py (three streams, two events)"
"$tngc" plan multi_stream/model.py
echo
echo "== tngc plan examples/decoder/model.py (the summary lines of the flagship decoder)"
"$tngc" plan decoder/model.py | grep -E '^(entry|config|stream|super_kernel|gear [0-9]|  memory|  e[0-9]|  seg|  s[0-9] )'
echo
echo "== tngc recompiles examples/recompile/host.log"
"$tngc" recompiles recompile/host.log -o "$tmp/recompile_op_list.txt"
echo
echo "recompile_op_list.txt:"
head -8 "$tmp/recompile_op_list.txt"
echo
echo "== tngc build examples/decoder/model.py: generate C, compile it with clang into a bundle"
"$tngc" build decoder/model.py -o "$tmp/decoder" --cache-dir "$tmp/cache"
ls "$tmp/decoder"
echo
echo "== the decoder's launcher on sample inputs from PyTorch (tests/ref/harness.py),"
echo "   2 warm-up runs and 20 timed runs, then its outputs compared with PyTorch's"
PYTHON=${PYTHON:-/usr/bin/python3} sh ../tests/e2e/run_sample.sh decoder/model.py "$tmp/decoder" \
    "$tmp/sample" --warmup 2 --iters 20
echo
echo "== examples/llama (modeling.py + run.py, HF-style): its prefill and decode bundles"
echo "   over a static KV-cache pool, each launcher compared with PyTorch"
"$tngc" build llama/run.py -o "$tmp/llama" --cache-dir "$tmp/cache"
PYTHON=${PYTHON:-/usr/bin/python3} sh ../tests/e2e/run_sample.sh llama/run.py "$tmp/llama" \
    "$tmp/llama_sample" --warmup 2 --iters 20
