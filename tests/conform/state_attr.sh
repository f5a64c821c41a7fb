#!/bin/sh
# State kept between calls, on tests/conform/models/state_attr.py (KV
# caches and a call counter held as plain tensor attributes, which the
# compiled method writes in place):
#   - the plan names them `state` weights under their attribute paths;
#   - the bundle keeps them between runs: three runs of the launcher from
#     the recorded weights match PyTorch's third call on the same inputs
#     (tests/ref/harness.py --calls=3: the count 3, the caches the first
#     call wrote and the others rewrote), and one run its first call
#     (tests/conform/run.sh checks that one too, and every gear);
#   - a weights file without a state tensor whose first value is not
#     zeros (layers.0.cache_v, torch.ones) is refused naming it (exit
#     status 2): PyTorch's state_dict() does not hold it, the file must;
#   - one without a state tensor that starts at zeros (calls,
#     torch.zeros: `state zeros` in the plan) loads, and the run starts it
#     at zeros (its count is then 1, as PyTorch's first call's).
#
# usage: tests/conform/state_attr.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=state-attr model=state_attr.py
. "$(dirname "$0")/lib.sh"

s=$("$tngc" plan "$script" 2>"$tmp/plan.err" | sed -n 's/^weight %[0-9]* \([^ ]*\) .* \(state\( zeros\)\{0,1\}\) -> .*/\1 (\2)/p' | tr '\n' ' ')
if [ "$s" = 'calls (state zeros) seen (state zeros) "layers.0.cache_k" (state zeros) "layers.0.cache_v" (state) "layers.1.cache_k" (state zeros) "layers.1.cache_v" (state) ' ]; then
    ok "state weights: $s"
else
    bad "state weights: '$s'"; cat "$tmp/plan.err"
fi
l=$tmp/out/state_attr_launcher
if ! "$tngc" build "$script" -o "$tmp/out" >"$tmp/build.log" 2>&1; then
    bad "tngc build"; tail -n 5 "$tmp/build.log"
    finish
fi
for n in 1 3; do
    ref=$tmp/ref$n
    if ! "$py" "$root/tests/ref/harness.py" "$script" "$ref" "--calls=$n" >"$tmp/harness$n.log" 2>&1; then
        bad "harness --calls=$n"; tail -n 5 "$tmp/harness$n.log"
    elif sh "$root/tests/e2e/launch.sh" "$l" "$ref/state_attr" "$tmp/run$n" --warmup 0 --iters "$n" \
            >"$tmp/run$n.log" 2>&1 &&
        "$py" "$root/tests/e2e/compare.py" --script "$script" "$ref/state_attr/expected" "$tmp/run$n" \
            >"$tmp/cmp$n.log" 2>&1; then
        ok "$n run(s) of the bundle match PyTorch's call $n"
    else
        bad "$n run(s) against PyTorch's call $n"; tail -n 8 "$tmp/run$n.log" "$tmp/cmp$n.log"
    fi
done
# the third call's expected count is 3 (the state did advance)
if "$py" -c 'import numpy, sys; sys.exit(0 if numpy.load(sys.argv[1]).tolist() == [3.0] else 1)' \
        "$tmp/ref3/state_attr/expected/out5.npy" 2>/dev/null; then
    ok "PyTorch's third call counts 3"
else
    bad "PyTorch's third call does not count 3"
fi
# weights files without one state tensor
"$py" - "$tmp/ref1/state_attr/weights.safetensors" "$tmp" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
head = json.loads(data[8:8 + n])
body = data[8 + n:]
for drop, name in (("calls", "nocalls"), ("layers.0.cache_v", "nocachev")):
    out, blob = {}, b""
    for k, v in head.items():
        if k in (drop, "__metadata__"):
            continue
        a, b = v["data_offsets"]
        out[k] = dict(v, data_offsets=[len(blob), len(blob) + b - a])
        blob += body[a:b]
    h = json.dumps(out).encode()
    h += b" " * (-len(h) % 8)
    open("%s/%s.safetensors" % (sys.argv[2], name), "wb").write(struct.pack("<Q", len(h)) + h + blob)
PY
x=$(sed -n 's/^x=//p' "$tmp/ref1/state_attr/inputs.txt")
"$l" --weights "$tmp/nocachev.safetensors" --input "x=$x" --out-dir "$tmp/run0" --warmup 0 --iters 1 \
    >"$tmp/run0.log" 2>"$tmp/run0.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "weight 'layers.0.cache_v' is missing" "$tmp/run0.err"; then
    ok "a weights file without the state tensor 'layers.0.cache_v' (torch.ones) is refused naming it"
else
    bad "weights file without 'layers.0.cache_v': exit $rc: $(cat "$tmp/run0.err")"
fi
"$l" --weights "$tmp/nocalls.safetensors" --input "x=$x" --out-dir "$tmp/runz" --warmup 0 --iters 1 \
    >"$tmp/runz.log" 2>"$tmp/runz.err"
rc=$?
if [ $rc -eq 0 ] && "$py" -c 'import numpy, sys; sys.exit(0 if numpy.load(sys.argv[1]).tolist() == [1.0] else 1)' \
        "$tmp/runz/out5.npy" 2>/dev/null; then
    ok "a weights file without 'calls' (torch.zeros) loads, and the run starts it at zeros (count 1)"
else
    bad "weights file without 'calls': exit $rc: $(cat "$tmp/runz.err")"
fi
finish
