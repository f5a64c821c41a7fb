#!/bin/sh
# Constant tensors and the weights file, on
# tests/conform/models/const_rope.py:
#   - the plan has only the parameter and the persistent buffer as weights
#     (proj.weight, scale; the launcher counts 2): the non-persistent buffers
#     (inv_freq, cos_cached, sin_cached, causal_mask) and the module-level
#     tensor are computed by the bundle;
#   - PyTorch's state_dict() runs it (tests/conform/run.sh checks values);
#   - a weights file without the persistent buffer 'scale' is refused:
#     exit status 2 and "weight 'scale' is missing";
#   - on the CPU target the constants are computed once, at create: the
#     plan lists them, their kernels are only in tngc__consts_run, and five
#     calls in one launcher process (warmup 2, iters 3) still match; the
#     ACL target still generates them in its per-call launches.
#
# usage: tests/conform/const_weights.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=const-weights model=const_rope.py
. "$(dirname "$0")/lib.sh"

if ! "$py" "$root/tests/ref/harness.py" "$script" "$tmp/ref" >"$tmp/harness.log" 2>&1; then
    bad "PyTorch reference (tests/ref/harness.py)"; tail -n 5 "$tmp/harness.log"
elif ! (cd "$root" && "$tngc" build "$script" -o "$tmp/out") >"$tmp/build.log" 2>&1; then
    bad "tngc build"; tail -n 5 "$tmp/build.log"
else
    l=$tmp/out/const_rope_Model_forward_launcher
    w=$(cd "$root" && "$tngc" plan "$script" | sed -n 's/^weight %[0-9]* \([^ ]*\) .*/\1/p' | sort -u | tr '\n' ' ')
    if [ "$w" = '"proj.weight" scale ' ] && "$l" --help | grep -q '^weights: 2 '; then
        ok "the weights are proj.weight and scale only"
    else
        bad "the weights are: $w"
    fi
    # the recorded state_dict less 'scale', rewritten as safetensors
    mkdir -p "$tmp/noscale"
    cp "$tmp/ref/const_rope_Model_forward/inputs.txt" "$tmp/noscale/" && cp -R "$tmp/ref/const_rope_Model_forward/inputs" "$tmp/noscale/"
    "$py" - "$tmp/ref/const_rope_Model_forward/weights.safetensors" "$tmp/noscale/weights.safetensors" <<'PY'
import json, struct, sys
src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
head = json.loads(data[8:8 + n])
body = data[8 + n:]
assert "scale" in head, sorted(head)
out, blob = {}, b""
for k, v in head.items():
    if k in ("scale", "__metadata__"):
        continue
    a, b = v["data_offsets"]
    out[k] = dict(v, data_offsets=[len(blob), len(blob) + b - a])
    blob += body[a:b]
h = json.dumps(out).encode()
h += b" " * (-len(h) % 8)
open(dst, "wb").write(struct.pack("<Q", len(h)) + h + blob)
PY
    sh "$root/tests/e2e/launch.sh" "$l" "$tmp/ref/const_rope_Model_forward" "$tmp/run" --warmup 0 --iters 1 \
        >"$tmp/run.log" 2>&1 && ok "the launcher runs on PyTorch's state_dict()" ||
        { bad "the launcher fails on PyTorch's state_dict()"; tail -n 5 "$tmp/run.log"; }
    sh "$root/tests/e2e/launch.sh" "$l" "$tmp/noscale" "$tmp/run2" --warmup 0 --iters 1 \
        >"$tmp/run2.log" 2>&1
    st=$?
    if [ $st -eq 2 ] && grep -q "weight 'scale' is missing" "$tmp/run2.log"; then
        ok "a weights file without the persistent buffer: exit 2, weight 'scale' is missing"
    else
        bad "a weights file without the persistent buffer: exit $st"; tail -n 5 "$tmp/run2.log"
    fi
    # computed once, at create: the plan lists them, the per-call code has
    # none of their kernels, several calls in one process all match
    if (cd "$root" && "$tngc" plan "$script") | grep -q '^constants: computed once at create, [0-9]* bytes: %'; then
        ok "the plan lists the constants computed at create"
    else
        bad "the plan lists no constants computed at create"
    fi
    (cd "$root" && "$tngc" gen "$script" -o "$tmp/gen" --no-line) >"$tmp/gen.log" 2>&1
    c=$tmp/gen/const_rope_Model_forward.c
    # every file of the bundle (its gears are in ..._gears_K.c when it has several)
    all=$(cat "$c" "$tmp"/gen/const_rope_Model_forward_gears_*.c 2>/dev/null | grep -c 'tngrt_kernel_arange\|TNGRT_UN_COS\|tngrt_kernel_tri(')
    once=$(sed -n '/^static int tngc__consts_run/,/^}/p' "$c" 2>/dev/null | grep -c 'tngrt_kernel_arange\|TNGRT_UN_COS\|tngrt_kernel_tri(')
    if [ "${all:-0}" -gt 0 ] && [ "$all" = "$once" ]; then
        ok "arange, cos and triu run only in tngc__consts_run ($once calls)"
    else
        bad "arange/cos/triu calls: $all in all, $once at create"
    fi
    sh "$root/tests/e2e/launch.sh" "$l" "$tmp/ref/const_rope_Model_forward" "$tmp/run3" --warmup 2 --iters 3 \
        >"$tmp/run3.log" 2>&1 &&
        "$py" "$root/tests/e2e/compare.py" --script "$script" "$tmp/ref/const_rope_Model_forward/expected" "$tmp/run3" \
        >"$tmp/run3.cmp" 2>&1 && ok "five calls in one process: the last matches PyTorch" ||
        { bad "five calls in one process"; tail -n 5 "$tmp/run3.log" "$tmp/run3.cmp"; }
    if (cd "$root" && "$tngc" gen "$script" --target acl -o "$tmp/acl" --no-line) >"$tmp/acl.log" 2>&1 &&
        grep -q 'aclnnArange' "$tmp/acl/const_rope_Model_forward.c"; then
        ok "the ACL target still runs them in its per-call launches"
    else
        bad "the ACL target"; tail -n 5 "$tmp/acl.log"
    fi
fi
finish
