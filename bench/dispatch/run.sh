#!/bin/sh
# Per-op dispatch cost of a bundle: a chain of N tiny adds (x = x + y on
# float32[8]) in one compiled forward, N = 10 and 1000; the cost per op is
# (p50(1000) - p50(10)) / 990, so the fixed cost of a run cancels out.
# Also the multi-stream seed example with its stream scopes vs the same
# script with them removed (one stream), as launcher p50 latencies.
# usage: bench/dispatch/run.sh TNGC
set -eu
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

chain() {   # N: writes $tmp/chain$N.py
    {
        echo "import torch, torch_npu, torchair as tng"
        echo "class Model(torch.nn.Module):"
        echo "    def forward(self, x, y):"
        i=0
        while [ $i -lt "$1" ]; do echo "        x = x + y"; i=$((i + 1)); done
        echo "        return x"
        echo "model = torch.compile(Model(), backend=tng.get_npu_backend(), fullgraph=True)"
        echo "model(torch.ones(8), torch.ones(8))"
    } > "$tmp/chain$1.py"
}
p50() {   # launcher output -> p50 in us
    sed -n 's/^latency: p50 \([0-9.]*\) us.*/\1/p' "$1"
}
$py -c 'import numpy as np; np.save("'"$tmp"'/x.npy", np.ones(8, np.float32)); np.save("'"$tmp"'/y.npy", np.full(8, 0.5, np.float32))'
for n in 10 1000; do
    chain $n
    "$tngc" build "$tmp/chain$n.py" -o "$tmp/b$n" --no-cache >/dev/null
    "$tmp/b$n/chain${n}_launcher" --input x="$tmp/x.npy" --input y="$tmp/y.npy" --out-dir "$tmp" \
        --warmup 50 --iters 2000 > "$tmp/out$n"
done
a=$(p50 "$tmp/out10") b=$(p50 "$tmp/out1000")
echo "chain of 10 adds:   p50 $a us per run"
echo "chain of 1000 adds: p50 $b us per run"
awk -v a="$a" -v b="$b" 'BEGIN { printf "dispatch cost per op: %.1f ns\n", (b - a) * 1000 / 990 }'

# two streams vs one on the multi-stream seed example
sed -e "s/^\( *\)with tng.scope.npu_stream_switch(.*):/\1if True:/" -e "s/^\( *\)tng.scope.npu_wait_tensor(.*)/\1pass/" \
    "$root/examples/multi_stream/model.py" > "$tmp/one_stream.py"
cp "$root/examples/multi_stream/model.py" "$tmp/streams.py"
$py -c 'import numpy as np
for i in range(1, 5): np.save("'"$tmp"'/in%d.npy" % i, np.random.RandomState(i).randn(1000, 1000).astype(np.float16))'
for s in streams one_stream; do
    "$tngc" build "$tmp/$s.py" -o "$tmp/$s" --no-cache >/dev/null
    grep -c '^static int g0_s[0-9]' "$tmp/$s/$s.c" | sed "s/^/$s: streams in the bundle: /"
    "$tmp/$s/${s}_launcher" --input in1="$tmp/in1.npy" --input in2="$tmp/in2.npy" --input in3="$tmp/in3.npy" \
        --input in4="$tmp/in4.npy" --out-dir "$tmp" --warmup 2 --iters 15 > "$tmp/out_$s"
done
a=$(p50 "$tmp/out_one_stream") b=$(p50 "$tmp/out_streams")
echo "multi-stream seed, one stream:    p50 $a us"
echo "multi-stream seed, three streams: p50 $b us"
awk -v a="$a" -v b="$b" 'BEGIN { printf "speed-up of the stream scopes: %.2fx\n", a / b }'
