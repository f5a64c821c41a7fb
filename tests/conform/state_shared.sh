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
#   - with neither call the decode run refuses, naming the state;
# for the CPU target, then for the ACL target on aclsim (tests/aclsim: its
# bundles' own <name>_share_state and <name>_own_state).
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
px=$tmp/ref/$pre/inputs/x.npy dx=$tmp/ref/$dec/inputs/x.npy
cmp1() {   # cmp1 OUTFILE EXPECTED: compare.py on one output
    mkdir -p "$tmp/c1" "$tmp/c2" && rm -f "$tmp"/c1/* "$tmp"/c2/* &&
        cp "$1" "$tmp/c1/out0.npy" && cp "$2" "$tmp/c2/out0.npy" &&
        "$py" "$root/tests/e2e/compare.py" --script "$script" "$tmp/c2" "$tmp/c1" >"$tmp/cmp.log" 2>&1
}
# bound TARGET: builds the two bundles for TARGET (cpu, or acl on aclsim),
# links state_shared_main.c with them and runs it in its three modes
bound() {
    t=$1 o=$tmp/$1
    mkdir -p "$o"
    if [ "$t" = acl ]; then
        sh "$root/tests/aclsim/build.sh" "$tmp/sim" >"$o/sim.log" 2>&1 || { bad "$t: tests/aclsim/build.sh"; tail -n 5 "$o/sim.log"; return; }
        set -- --target acl --acl-home "$tmp/sim"
        def=-DACL libs="$(dirname "$tngc")/libtngcrt_core.a -L$tmp/sim/lib64 -Wl,-rpath,$tmp/sim/lib64 -lascendcl -lnnopbase -lopapi -lpthread -lm"
    else
        set --
        def= libs="$(dirname "$tngc")/libtngcrt.a -lopenblas -lpthread -lm"
    fi
    if ! "$tngc" build "$@" "$script" -o "$o/out" >"$o/build.log" 2>&1; then
        bad "$t: tngc build"; tail -n 5 "$o/build.log"
        return
    fi
    # shellcheck disable=SC2086  # $san, $def and $libs are word lists
    if ! ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g $san $def \
            -DPRE=$pre -DDEC=$dec -DPRE_H="\"$pre.h\"" -DDEC_H="\"$dec.h\"" -I"$o/out" -I"$root/runtime" -o "$o/main" \
            "$root/tests/conform/state_shared_main.c" "$o/out/lib$pre.a" "$o/out/lib$dec.a" $libs >"$o/cc.log" 2>&1; then
        bad "$t: compiling state_shared_main.c"; head -n 20 "$o/cc.log"
        return
    fi
    mkdir -p "$o/share" "$o/own" "$o/none"
    if "$o/main" share "$tmp/ref/$pre/weights.safetensors" "$tmp/dec0.safetensors" "$px" "$dx" "$o/share" \
            >"$o/share.log" 2>&1 && grep -q '^shared 4 state tensors' "$o/share.log"; then
        if cmp1 "$o/share/prefill.npy" "$tmp/ref/$pre/expected/out0.npy" &&
           cmp1 "$o/share/decode.npy" "$tmp/ref/$dec/expected/out0.npy"; then
            ok "$t: bound (a share with itself refused): the prefill and then the decode step match PyTorch (the decode step read the prefill's caches)"
        else
            bad "$t: bound: differs from PyTorch"; cat "$tmp/cmp.log"
        fi
    else
        bad "$t: bound run"; cat "$o/share.log"
    fi
    if "$o/main" own "$tmp/ref/$pre/weights.safetensors" "$tmp/dec0.safetensors" "$px" "$dx" "$o/own" \
            >"$o/own.log" 2>&1 && ! cmp1 "$o/own/decode.npy" "$tmp/ref/$dec/expected/out0.npy"; then
        ok "$t: a copy of its own (the zeroed caches): the decode step differs from PyTorch"
    else
        bad "$t: own copy: $(cat "$o/own.log") $(cat "$tmp/cmp.log")"
    fi
    "$o/main" none "$tmp/ref/$pre/weights.safetensors" "$tmp/dec0.safetensors" "$px" "$dx" "$o/none" \
        >"$o/none.log" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q "the state 'model.layers.0.cache_k' is shared with the bundle of Model.forward" "$o/none.log"; then
        ok "$t: unbound: the decode run refuses, naming the state"
    else
        bad "$t: unbound: exit $rc: $(cat "$o/none.log")"
    fi
}
bound cpu
bound acl
finish
