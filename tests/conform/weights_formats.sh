#!/bin/sh
# Weights files of every format the launcher reads, on
# tests/conform/models/weights_formats.py (float32, float16 and bfloat16
# parameters, an int64 buffer, a head tied to the embedding):
#   - torch.save(model.state_dict()) of the script's own Model (its values
#     those of the PyTorch reference) loads under --strict with no warning
#     and the outputs match PyTorch's; so does one whose fc.weight is saved
#     as a transposed view (copied contiguous when read);
#   - the same weights as two safetensors shards and their
#     model.safetensors.index.json load and match;
#   - --list-weights lists each weight with its dtype, shape and tied key;
#   - --check-weights says "would load" (exit 0) for the good files, and
#     for a torch.save file whose float16 weight was saved as float32,
#     names it (exit 1), which --weights refuses in one line (exit 2);
#   - a checkpoint dict holding more than a state dict, and the format
#     before PyTorch 1.6 (_use_new_zipfile_serialization=False), are
#     refused in one line, exit 2.
#
# usage: tests/conform/weights_formats.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=weights-formats model=weights_formats.py
. "$(dirname "$0")/lib.sh"

# save DIR: writes the files of the checks into DIR from the reference's
# weights.safetensors, through the script's Model (run under the stubs of
# tests/ref, as the harness runs it)
save() {
    "$py" - "$root" "$script" "$ref/weights.safetensors" "$1" <<'PY'
import collections, json, os, runpy, struct, sys
root, script, ref, out = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, "tests", "ref", "stubs"))
sys.dont_write_bytecode = True
import _tngc_ref
_tngc_ref.install()
import torch
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    Model = runpy.run_path(script)["Model"]

names = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I64": torch.int64}
data = open(ref, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
head = json.loads(data[8:8 + n])
sd = {}
for k, v in head.items():
    if k == "__metadata__":
        continue
    a, b = v["data_offsets"]
    sd[k] = torch.frombuffer(bytearray(data[8 + n + a:8 + n + b]), dtype=names[v["dtype"]]).reshape(v["shape"])
m = Model()
m.load_state_dict(sd)
state = m.state_dict()
assert state["head.weight"].data_ptr() == state["emb.weight"].data_ptr()
torch.save(state, os.path.join(out, "model.pt"))

t = collections.OrderedDict(state)
t["fc.weight"] = state["fc.weight"].t().contiguous().t()
assert not t["fc.weight"].is_contiguous()
torch.save(t, os.path.join(out, "model_t.pt"))

f = collections.OrderedDict(state)
f["scale_h"] = state["scale_h"].float()
torch.save(f, os.path.join(out, "model_f32.pt"))
torch.save({"epoch": 3, "model": state}, os.path.join(out, "checkpoint.pt"))
torch.save(state, os.path.join(out, "legacy.pt"), _use_new_zipfile_serialization=False)

# two safetensors shards (this writer: Debian has no safetensors package)
st_names = {v: k for k, v in names.items()}
def shard(path, items):
    header, blob = {}, b""
    for k, v in items:
        raw = v.contiguous().view(torch.uint8).numpy().tobytes() if v.numel() else b""
        header[k] = {"dtype": st_names[v.dtype], "shape": list(v.shape),
                     "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + blob)
items = list(state.items())
files = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
shard(os.path.join(out, files[0]), items[:3])
shard(os.path.join(out, files[1]), items[3:])
wm = {k: files[0] if i < 3 else files[1] for i, (k, _) in enumerate(items)}
json.dump({"metadata": {"total_size": 1234}, "weight_map": wm},
          open(os.path.join(out, "model.safetensors.index.json"), "w"))
PY
}

# run NAME WEIGHTS [ARG...]: the launcher on the reference's inputs with
# WEIGHTS; 0 when it exits 0 with nothing on stderr and matches PyTorch
run() {
    name=$1 wf=$2
    shift 2
    mkdir -p "$tmp/$name" &&
        "$l" --weights "$wf" $(sed 's/^/--input /' "$ref/inputs.txt") \
            --out-dir "$tmp/$name/out" --warmup 0 --iters 1 "$@" >"$tmp/$name.log" 2>"$tmp/$name.err" &&
        [ ! -s "$tmp/$name.err" ] &&
        "$py" "$root/tests/e2e/compare.py" --script "$script" "$ref/expected" "$tmp/$name/out" \
            >"$tmp/$name.cmp" 2>&1
}

# refused NAME WEIGHTS PATTERN: exit 2, one line on stderr matching PATTERN
refused() {
    "$l" --weights "$2" $(sed 's/^/--input /' "$ref/inputs.txt") \
        --out-dir "$tmp/refused" --warmup 0 --iters 1 >/dev/null 2>"$tmp/refused.err"
    st=$?
    if [ $st -eq 2 ] && [ "$(wc -l <"$tmp/refused.err")" -eq 1 ] && grep -q "$3" "$tmp/refused.err"; then
        ok "$1: exit 2, one line"
    else
        bad "$1: exit $st"; cat "$tmp/refused.err"
    fi
}

ref=$tmp/ref/weights_formats
w=$tmp/w
mkdir -p "$w"
if ! "$py" "$root/tests/ref/harness.py" "$script" "$tmp/ref" >"$tmp/harness.log" 2>&1; then
    bad "PyTorch reference (tests/ref/harness.py)"; tail -n 5 "$tmp/harness.log"
elif ! (cd "$root" && "$tngc" build "$script" -o "$tmp/out") >"$tmp/build.log" 2>&1; then
    bad "tngc build"; tail -n 5 "$tmp/build.log"
elif ! save "$w" >"$tmp/save.log" 2>&1; then
    bad "torch.save of the script's Model"; tail -n 5 "$tmp/save.log"
else
    l=$tmp/out/weights_formats_launcher
    for f in model.pt model_t.pt model.safetensors.index.json; do
        if run "run_$f" "$w/$f" --strict; then
            ok "--weights $f --strict: no warning, matches PyTorch"
        else
            bad "--weights $f"; tail -n 5 "$tmp/run_$f.log" "$tmp/run_$f.err" "$tmp/run_$f.cmp"
        fi
    done
    # a torch.save file named like a safetensors file: told by its content
    cp "$w/model.pt" "$w/renamed.safetensors"
    if run renamed "$w/renamed.safetensors"; then
        ok "a torch.save file named .safetensors is read by its content"
    else
        bad "renamed torch.save file"; tail -n 5 "$tmp/renamed.err"
    fi
    "$l" --list-weights >"$tmp/list.log" 2>&1
    if grep -q '^  emb.weight f32\[16,8\]  (tied: head.weight)$' "$tmp/list.log" &&
        grep -q '^  scale_b bf16\[8\]$' "$tmp/list.log" && grep -q '^  pos i64\[8\]  (buffer)$' "$tmp/list.log"; then
        ok "--list-weights: names, dtypes, shapes, the tied key"
    else
        bad "--list-weights"; cat "$tmp/list.log"
    fi
    "$l" --check-weights "$w/model.pt" >"$tmp/check.log" 2>&1
    st=$?
    if [ $st -eq 0 ] && tail -n 1 "$tmp/check.log" | grep -q ': would load$'; then
        ok "--check-weights model.pt: would load, exit 0"
    else
        bad "--check-weights model.pt: exit $st"; cat "$tmp/check.log"
    fi
    "$l" --check-weights "$w/model_f32.pt" >"$tmp/check2.log" 2>&1
    st=$?
    if [ $st -eq 1 ] && grep -q '^dtype: scale_h is f32, the model expects f16' "$tmp/check2.log" &&
        tail -n 1 "$tmp/check2.log" | grep -q 'would not load$'; then
        ok "--check-weights of a float16 weight saved as float32: named, exit 1"
    else
        bad "--check-weights model_f32.pt: exit $st"; cat "$tmp/check2.log"
    fi
    refused "--weights of a float16 weight saved as float32" "$w/model_f32.pt" \
        "weight 'scale_h' has dtype f32, the model expects f16"
    refused "a checkpoint holding more than a state dict" "$w/checkpoint.pt" "'epoch' is not a tensor"
    refused "torch.save's format before PyTorch 1.6" "$w/legacy.pt" "before PyTorch 1.6"
fi
finish
