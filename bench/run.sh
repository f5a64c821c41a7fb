#!/bin/sh
# make bench: every benchmark, in one run, on this machine. Never part of
# make check. The tables go to stdout and to OUT/tables.md, the decoder's
# latency-vs-batch plot to OUT/decoder_latency.svg (OUT: build/bench).
# BENCH_ROUNDS (default 3) sets how many rounds each median is taken over.
# ONNX Runtime is a contender where `make bench-deps` installed it.
# usage: bench/run.sh TNGC [OUT]
set -eu
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 TNGC [OUT]" >&2
    exit 2
fi
tngc=$1
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../build/bench}
py=/usr/bin/python3
mkdir -p "$out"
rm -f "$out/tables.md"
# One core's FMA peak, measured once for every benchmark's compute floor.
BENCH_PEAK1_GFLOPS=$($py -c 'import sys; sys.path.insert(0, "'"$here"'"); import common; print(common.one_core_peak())')
export BENCH_PEAK1_GFLOPS
$py -c 'import sys; sys.path.insert(0, "'"$here"'"); import common; print("machine: " + common.machine())' \
    | tee "$out/machine.txt"
echo "load: $(uptime)" | tee -a "$out/machine.txt"
for b in dispatch encoder vision decoder prefill moe matmul streams super_kernel gears build scale; do
    echo "== $b"
    $py "$here/$b/bench.py" "$tngc" "$out"
done
$py "$here/plot.py" "$out/latency.dat" "$out/decoder_latency.svg"
echo "wrote $out/tables.md and $out/decoder_latency.svg"
echo "== lint throughput"
bash "$here/lint_throughput/run.sh" "$tngc"
