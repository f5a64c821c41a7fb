#!/bin/sh
# t_launcher.sh - the launcher on failure and hostile data, on a bundle
# that `tngc build` makes from a small script (an embedding, two outputs of
# different sizes):
#   disk full      the second output cannot be written (RLIMIT_FSIZE, and a
#                  64 KiB tmpfs when mount works): exit 2, one line on
#                  stderr, nothing written and no temporary file left
#   stdout         stdout on /dev/full: exit 2, one line, no output files
#   safetensors    trailing bytes after the last tensor: exit 2; a tensor
#                  the model does not use: one warning line, exit 0, and
#                  with --strict exit 2
#   embedding id   an id out of range in the input: exit 2 (bad input, not
#                  a runtime failure), the message names the script's line
#   --out-dir      a missing directory is created (mode 0777 & ~umask); a
#                  missing parent is refused with exit 2
#
# usage: sh t_launcher.sh BUILD_DIR   (holding tngc and libtngcrt.a)
set -u
build=${1:?usage: sh t_launcher.sh BUILD_DIR}
case $build in /*) ;; *) build=$PWD/$build ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tngc-t_launcher.XXXXXX") || exit 2
mounted=
cleanup() {
    if [ -n "$mounted" ]; then umount "$mounted" 2>/dev/null; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
ok() { echo "ok $1"; }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/    | /' "$work/err" "$work/out" 2>/dev/null | head -8
    fails=$((fails + 1))
}

# ---- the bundle and its data ----
cat >"$work/model.py" <<'EOF'
import torch
import torchair
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 64)

    def forward(self, ids):
        h = self.emb(ids)
        return h.sum(1), h * 2.0


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
ids = torch.zeros(64, dtype=torch.int64)
model(ids)
EOF
emb_line=12   # the line of self.emb(ids) above
(cd "$work" && "$build/tngc" build model.py -o bin --cache-dir "$work/cache") >"$work/out" 2>"$work/err" \
    || { bad build "tngc build failed"; exit 1; }
launcher=$work/bin/model_launcher

/usr/bin/python3 - "$work" <<'EOF' || { echo "FAIL data: python3 failed"; exit 1; }
import json, os, struct, sys
d = sys.argv[1]

def npy(name, descr, shape, raw):
    dims = ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    total = (10 + len(head) + 1 + 63) // 64 * 64
    head += " " * (total - 10 - len(head) - 1) + "\n"
    with open(os.path.join(d, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + raw)

def safetensors(name, tensors, tail=b""):
    header, blob = {}, b""
    for key, raw, shape in tensors:
        header[key] = {"dtype": "F32", "shape": shape,
                       "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    text = json.dumps(header).encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob + tail)

w = struct.pack("<1024f", *[(i % 7) * 0.25 for i in range(1024)])
extra = struct.pack("<4f", 1, 2, 3, 4)
safetensors("w.safetensors", [("emb.weight", w, [16, 64])])
safetensors("w_tail.safetensors", [("emb.weight", w, [16, 64])], tail=b"\0" * 8)
safetensors("w_extra.safetensors", [("emb.weight", w, [16, 64]), ("head.bias", extra, [4]),
                                    ("head.weight", extra, [2, 2])])
npy("ids.npy", "<i8", [64], struct.pack("<64q", *[i % 16 for i in range(64)]))
npy("ids_bad.npy", "<i8", [64], struct.pack("<64q", *([3] * 10 + [16] + [0] * 53)))
EOF
wf=$work/w.safetensors   # the weights run() passes
ids=$work/ids.npy

# run OUTDIR [ARGS...]: runs the launcher on the good data and weights $wf (stdout in
# $work/out, stderr in $work/err); sets rc
run() {
    r_dir=$1
    shift
    "$launcher" --weights "$wf" --input "ids=$ids" --out-dir "$r_dir" --warmup 0 --iters 1 "$@" \
        >"$work/out" 2>"$work/err"
    rc=$?
}

# refused NAME RC NEEDLE DIR: exit RC, exactly one line on stderr containing
# NEEDLE, and DIR (when given) holds nothing at all
refused() {
    if [ "$rc" -ne "$2" ]; then bad "$1" "exit $rc, expected $2"; return 1; fi
    if [ "$(wc -l <"$work/err")" -ne 1 ]; then bad "$1" "not one line on stderr"; return 1; fi
    if ! grep -Fq -- "$3" "$work/err"; then bad "$1" "stderr lacks '$3'"; return 1; fi
    if [ -n "${4:-}" ] && [ -n "$(ls -A "$4")" ]; then
        bad "$1" "left in the output directory: $(ls -A "$4" | tr '\n' ' ')"
        return 1
    fi
    ok "$1"
}

# ---- a good run, as the baseline ----
mkdir "$work/good"
run "$work/good"
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] && [ -f "$work/good/out0.npy" ] \
    && [ -f "$work/good/out1.npy" ]; then ok "good run"; else bad "good run" "exit $rc"; fi

# ---- a full disk ----
# RLIMIT_FSIZE of 2 blocks of 512 bytes: out0 (384 bytes) fits, out1 (16 KiB)
# does not. SIGXFSZ is ignored so that the write fails with EFBIG.
mkdir "$work/fsize"
(trap '' XFSZ; ulimit -f 2 && exec "$launcher" --weights "$wf" --input "ids=$ids" \
    --out-dir "$work/fsize" --warmup 0 --iters 1) >"$work/out" 2>"$work/err"
rc=$?
refused "file size limit: nothing written" 2 "write error" "$work/fsize"

# a 64 KiB tmpfs, nearly filled (root only; skipped where mount is refused)
mkdir "$work/full"
if mount -t tmpfs -o size=64k tmpfs "$work/full" 2>/dev/null; then
    mounted=$work/full
    dd if=/dev/zero of="$work/full/filler" bs=4096 count=13 2>/dev/null
    run "$work/full" --trace "$work/full/t.json"
    rm -f "$work/full/filler"
    refused "tmpfs full: nothing written" 2 "write error" "$work/full"
    umount "$work/full" && mounted=
else
    echo "ok tmpfs full # skip: mount -t tmpfs is not permitted here"
fi

# ---- stdout on a full device ----
mkdir "$work/devfull"
"$launcher" --weights "$wf" --input "ids=$ids" --out-dir "$work/devfull" --warmup 0 --iters 1 \
    >/dev/full 2>"$work/err"
rc=$?
refused "stdout on /dev/full" 2 "stdout" "$work/devfull"
"$launcher" --help >/dev/full 2>"$work/err"
rc=$?
refused "--help on /dev/full" 2 "stdout" ""

# ---- safetensors ----
mkdir "$work/tail"
wf=$work/w_tail.safetensors
run "$work/tail"
refused "safetensors with trailing bytes" 2 "8 trailing bytes" "$work/tail"

mkdir "$work/extra"
wf=$work/w_extra.safetensors
run "$work/extra"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$work/err")" -eq 1 ] \
    && grep -Fq "warning: " "$work/err" && grep -Fq "2 tensors the model does not use" "$work/err" \
    && grep -Fq "'head.bias'" "$work/err" && [ -f "$work/extra/out1.npy" ]; then
    ok "unused tensors: one warning line"
else
    bad "unused tensors: one warning line" "exit $rc"
fi
rm -rf "$work/extra" && mkdir "$work/extra"
run "$work/extra" --strict
refused "unused tensors with --strict" 2 "2 tensors the model does not use" "$work/extra"

wf=$work/w.safetensors

# ---- an embedding id out of range ----
mkdir "$work/emb"
"$launcher" --weights "$wf" --input "ids=$work/ids_bad.npy" --out-dir "$work/emb" \
    >"$work/out" 2>"$work/err"
rc=$?
refused "embedding id out of range: exit 2" 2 "id 16 out of range [0, 16)" "$work/emb"
refused "embedding id out of range: the script's line" 2 "model.py:$emb_line: " "$work/emb"

# ---- --out-dir is created ----
old=$(umask)
umask 027
run "$work/made"
umask "$old"
if [ "$rc" -eq 0 ] && [ -f "$work/made/out1.npy" ] \
    && [ "$(stat -c %a "$work/made")" = 750 ]; then
    ok "missing --out-dir is created (0777 & ~umask)"
else
    bad "missing --out-dir is created (0777 & ~umask)" "exit $rc, mode $(stat -c %a "$work/made" 2>/dev/null)"
fi
run "$work/nope/deeper"
refused "--out-dir with a missing parent" 2 "--out-dir '$work/nope/deeper'" ""
[ ! -e "$work/nope" ] || bad "--out-dir with a missing parent" "$work/nope was created"
: >"$work/afile"
run "$work/afile"
refused "--out-dir naming a file" 2 "not a directory" ""
# a run refused later removes the directory it created
"$launcher" --weights "$wf" --input "ids=$work/ids_bad.npy" --out-dir "$work/made2" \
    >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" -eq 2 ] && [ ! -e "$work/made2" ]; then ok "a failed run removes the --out-dir it made"
else bad "a failed run removes the --out-dir it made" "exit $rc"; fi

[ "$fails" -eq 0 ]
