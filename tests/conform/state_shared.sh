#!/bin/sh
# State shared by two compiled entries, on tests/conform/models/state_shared.py
# (a prefill and a decode step writing the same KV cache attributes):
#   - the plan marks the decode entry's caches `state shared Model.forward
#     "layers.N.cache_k"`;
#   - one C program (state_shared_main.c) links both bundles, binds the
#     decode step's caches to the prefill's (tngrt_bundle_share_state),
#     runs the prefill and then the decode step: both match PyTorch's calls,
#     although the decode bundle's weights file has its caches zeroed (so
#     the decode step can only have read the prefill's writes);
#   - the same with a copy of its own (tngrt_bundle_own_state) differs from
#     PyTorch (the zeroed caches: the check above can fail);
#   - with neither call the decode run refuses, naming the state.
# (tests/conform/run.sh runs each bundle's launcher on its own as well.)
#
# usage: tests/conform/state_shared.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=state-shared model=state_shared.py
. "$(dirname "$0")/lib.sh"

pre=state_shared_Model_forward dec=state_shared_Step_forward
s=$("$tngc" plan "$script" 2>"$tmp/plan.err" | grep -c 'state shared Model.forward "layers\.[01]\.cache_[kv]"')
if [ "$s" = 4 ]; then
    ok "the plan marks the decode step's four caches as shared with Model.forward"
else
    bad "shared state lines: $s"; cat "$tmp/plan.err"
fi
if ! "$tngc" build "$script" -o "$tmp/out" >"$tmp/build.log" 2>&1; then
    bad "tngc build"; tail -n 5 "$tmp/build.log"
    finish
fi
if ! "$py" "$root/tests/ref/harness.py" "$script" "$tmp/ref" >"$tmp/harness.log" 2>&1; then
    bad "harness"; tail -n 5 "$tmp/harness.log"
    finish
fi
# the decode bundle's weights with its caches zeroed
"$py" - "$tmp/ref/$dec/weights.safetensors" "$tmp/dec0.safetensors" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
head = json.loads(data[8:8 + n])
body = bytearray(data[8 + n:])
zeroed = 0
for k, v in head.items():
    if k != "__metadata__" and ".cache_" in k:
        a, b = v["data_offsets"]
        body[a:b] = bytes(b - a)
        zeroed += 1
assert zeroed == 4, zeroed
open(sys.argv[2], "wb").write(data[:8 + n] + bytes(body))
PY
san=
case $tngc in */san/*) san="-fsanitize=address,undefined -fno-sanitize-recover=undefined" ;; esac
lib=$(dirname "$tngc")/libtngcrt.a
# shellcheck disable=SC2086  # $san is a word list
if ! ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g $san \
        -DPRE=$pre -DDEC=$dec -DPRE_H="\"$pre.h\"" -DDEC_H="\"$dec.h\"" -I"$tmp/out" -I"$root/runtime" -o "$tmp/main" \
        "$root/tests/conform/state_shared_main.c" "$tmp/out/lib$pre.a" "$tmp/out/lib$dec.a" "$lib" \
        -lopenblas -lpthread -lm >"$tmp/cc.log" 2>&1; then
    bad "compiling state_shared_main.c"; head -n 20 "$tmp/cc.log"
    finish
fi
px=$tmp/ref/$pre/inputs/x.npy dx=$tmp/ref/$dec/inputs/x.npy
cmp1() {   # cmp1 OUTFILE EXPECTED: compare.py on one output
    mkdir -p "$tmp/c1" "$tmp/c2" && rm -f "$tmp"/c1/* "$tmp"/c2/* &&
        cp "$1" "$tmp/c1/out0.npy" && cp "$2" "$tmp/c2/out0.npy" &&
        "$py" "$root/tests/e2e/compare.py" --script "$script" "$tmp/c2" "$tmp/c1" >"$tmp/cmp.log" 2>&1
}
mkdir -p "$tmp/share" "$tmp/own" "$tmp/none"
if "$tmp/main" share "$tmp/ref/$pre/weights.safetensors" "$tmp/dec0.safetensors" "$px" "$dx" "$tmp/share" \
        >"$tmp/share.log" 2>&1 && grep -q '^shared 4 state tensors' "$tmp/share.log"; then
    if cmp1 "$tmp/share/prefill.npy" "$tmp/ref/$pre/expected/out0.npy" &&
       cmp1 "$tmp/share/decode.npy" "$tmp/ref/$dec/expected/out0.npy"; then
        ok "bound: the prefill and then the decode step match PyTorch (the decode step read the prefill's caches)"
    else
        bad "bound: differs from PyTorch"; cat "$tmp/cmp.log"
    fi
else
    bad "bound run"; cat "$tmp/share.log"
fi
if "$tmp/main" own "$tmp/ref/$pre/weights.safetensors" "$tmp/dec0.safetensors" "$px" "$dx" "$tmp/own" \
        >"$tmp/own.log" 2>&1 && ! cmp1 "$tmp/own/decode.npy" "$tmp/ref/$dec/expected/out0.npy"; then
    ok "a copy of its own (the zeroed caches): the decode step differs from PyTorch"
else
    bad "own copy: $(cat "$tmp/own.log") $(cat "$tmp/cmp.log")"
fi
"$tmp/main" none "$tmp/ref/$pre/weights.safetensors" "$tmp/dec0.safetensors" "$px" "$dx" "$tmp/none" \
    >"$tmp/none.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "the state 'model.layers.0.cache_k' is shared with the bundle of Model.forward" "$tmp/none.log"; then
    ok "unbound: the decode run refuses, naming the state"
else
    bad "unbound: exit $rc: $(cat "$tmp/none.log")"
fi
finish
