#!/bin/sh
# state_dict keys the model never reads, on
# tests/conform/models/state_unread.py (a BatchNorm2d's num_batches_tracked,
# an auxiliary head forward does not call):
#   - the plan lists them as `unread` keys, not as weights;
#   - PyTorch's whole state_dict() loads with no warning, under --strict
#     too, and the result matches PyTorch;
#   - a weights file without a real weight (bn.running_var) is refused:
#     exit status 2 and "weight 'bn.running_var' is missing";
#   - an unknown extra tensor is still one warning naming it, and --strict
#     still refuses it (exit status 2);
#   - the ACL target's descriptor carries the unread keys too.
#
# usage: tests/conform/state_keys.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=state-keys model=state_unread.py
. "$(dirname "$0")/lib.sh"

# edit SRC DST DROP ADD: DST is the safetensors file SRC less tensor DROP
# ("" for none), plus a float32 [1] tensor named ADD ("" for none)
edit() {
    "$py" - "$@" <<'PY'
import json, struct, sys
src, dst, drop, add = sys.argv[1:5]
data = open(src, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
head = json.loads(data[8:8 + n])
body = data[8 + n:]
assert not drop or drop in head, sorted(head)
out, blob = {}, b""
for k, v in head.items():
    if k in (drop, "__metadata__"):
        continue
    a, b = v["data_offsets"]
    out[k] = dict(v, data_offsets=[len(blob), len(blob) + b - a])
    blob += body[a:b]
if add:
    out[add] = {"dtype": "F32", "shape": [1], "data_offsets": [len(blob), len(blob) + 4]}
    blob += struct.pack("<f", 1.0)
h = json.dumps(out).encode()
h += b" " * (-len(h) % 8)
open(dst, "wb").write(struct.pack("<Q", len(h)) + h + blob)
PY
}

# variant NAME DROP ADD: a copy of the reference folder with an edited weights file
variant() {
    mkdir -p "$tmp/$1" && cp "$ref/inputs.txt" "$tmp/$1/" && cp -R "$ref/inputs" "$tmp/$1/" &&
        edit "$ref/weights.safetensors" "$tmp/$1/weights.safetensors" "$2" "$3"
}

ref=$tmp/ref/state_unread_Net_forward
if ! "$py" "$root/tests/ref/harness.py" "$script" "$tmp/ref" >"$tmp/harness.log" 2>&1; then
    bad "PyTorch reference (tests/ref/harness.py)"; tail -n 5 "$tmp/harness.log"
elif ! (cd "$root" && "$tngc" build "$script" -o "$tmp/out") >"$tmp/build.log" 2>&1; then
    bad "tngc build"; tail -n 5 "$tmp/build.log"
else
    l=$tmp/out/state_unread_Net_forward_launcher
    u=$(cd "$root" && "$tngc" plan "$script" --entry Net.forward | sed -n 's/^unread "\(.*\)"$/\1/p' | tr '\n' ' ')
    if [ "$u" = "bn.num_batches_tracked aux_head.weight aux_head.bias " ] &&
        "$l" --help | grep -q '^weights: 8 '; then
        ok "the plan lists num_batches_tracked and aux_head's parameters as unread, 8 weights"
    else
        bad "unread keys: '$u'"; "$l" --help | grep '^weights'
    fi
    if sh "$root/tests/e2e/launch.sh" "$l" "$ref" "$tmp/run" --warmup 0 --iters 1 --strict \
        >"$tmp/run.log" 2>"$tmp/run.err" && [ ! -s "$tmp/run.err" ] &&
        "$py" "$root/tests/e2e/compare.py" --script "$script" "$ref/expected" "$tmp/run" >"$tmp/run.cmp" 2>&1; then
        ok "PyTorch's state_dict() loads under --strict with no warning, and matches"
    else
        bad "PyTorch's state_dict() under --strict"; tail -n 5 "$tmp/run.log" "$tmp/run.err" "$tmp/run.cmp"
    fi
    variant novar bn.running_var ""
    sh "$root/tests/e2e/launch.sh" "$l" "$tmp/novar" "$tmp/run2" --warmup 0 --iters 1 >"$tmp/run2.log" 2>&1
    st=$?
    if [ $st -eq 2 ] && grep -q "weight 'bn.running_var' is missing" "$tmp/run2.log"; then
        ok "a weights file without bn.running_var: exit 2, weight 'bn.running_var' is missing"
    else
        bad "a weights file without bn.running_var: exit $st"; tail -n 5 "$tmp/run2.log"
    fi
    variant extra "" bn.runing_mean
    sh "$root/tests/e2e/launch.sh" "$l" "$tmp/extra" "$tmp/run3" --warmup 0 --iters 1 >"$tmp/run3.log" 2>"$tmp/run3.err"
    st=$?
    if [ $st -eq 0 ] && [ "$(wc -l <"$tmp/run3.err")" -eq 1 ] &&
        grep -q "1 tensor the model does not use, ignored: 'bn.runing_mean'" "$tmp/run3.err"; then
        ok "an unknown extra tensor: one warning naming it"
    else
        bad "an unknown extra tensor: exit $st"; cat "$tmp/run3.err"
    fi
    sh "$root/tests/e2e/launch.sh" "$l" "$tmp/extra" "$tmp/run4" --warmup 0 --iters 1 --strict >"$tmp/run4.log" 2>&1
    st=$?
    if [ $st -eq 2 ] && grep -q "1 tensor the model does not use (--strict): 'bn.runing_mean'" "$tmp/run4.log"; then
        ok "an unknown extra tensor with --strict: exit 2 naming it"
    else
        bad "an unknown extra tensor with --strict: exit $st"; tail -n 5 "$tmp/run4.log"
    fi
    if (cd "$root" && "$tngc" gen "$script" --target acl -o "$tmp/acl" --no-line) >"$tmp/acl.log" 2>&1 &&
        grep -q '\.nunread = 3, \.unread = unread_keys' "$tmp/acl/state_unread_Net_forward.c" &&
        grep -q '"bn.num_batches_tracked"' "$tmp/acl/state_unread_Net_forward.c"; then
        ok "the ACL target's descriptor has the unread keys"
    else
        bad "the ACL target"; tail -n 5 "$tmp/acl.log"
    fi
fi
finish
