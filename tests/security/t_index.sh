#!/bin/sh
# t_index.sh - indexing and scatter: an index out of range in the
# data is a bad input, never an access out of bounds. A bundle built from a
# small script (index_select, advanced indexing, subscript assignment into
# an input, gather, scatter_add, F.one_hot) runs on good data (exit 0), then
# once per op on data with one index out of range: exit 2, exactly one line
# on stderr naming the script's line of that op and the index, no output
# written, and the input the script updates in place left as it was.
#
# usage: sh t_index.sh BUILD_DIR   (holding tngc and libtngcrt.a)
set -u
build=${1:?usage: sh t_index.sh BUILD_DIR}
case $build in /*) ;; *) build=$PWD/$build ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tngc-t_index.XXXXXX") || exit 2
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
fails=0
ok() { echo "ok $1"; }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/    | /' "$work/err" 2>/dev/null | head -8
    fails=$((fails + 1))
}

cat >"$work/model.py" <<'EOF'
import torch
import torch.nn.functional as F
import torchair


class Model(torch.nn.Module):
    def forward(self, x, sel, adv, pos, top, cache):
        a = x.index_select(0, sel)
        b = x[adv]
        cache[pos] = x[:2]
        c = x.gather(1, top)
        d = torch.zeros(8, 4).scatter_add(1, top, c)
        e = F.one_hot(top, 4)
        return a, b, c, d, e, cache * 1.0


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.zeros(8, 4)
sel = torch.zeros(3, dtype=torch.int64)
adv = torch.zeros(3, dtype=torch.int64)
pos = torch.zeros(2, dtype=torch.int64)
top = torch.zeros(8, 2, dtype=torch.int64)
cache = torch.zeros(8, 4)
model(x, sel, adv, pos, top, cache)
EOF
(cd "$work" && "$build/tngc" build model.py -o bin --cache-dir "$work/cache") >"$work/out" 2>"$work/err" \
    || { bad build "tngc build failed"; exit 1; }
launcher=$work/bin/model_launcher

/usr/bin/python3 - "$work" <<'EOF' || { echo "FAIL data: python3 failed"; exit 1; }
import os, struct, sys
d = sys.argv[1]

def npy(name, descr, shape, fmt, vals):
    dims = ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    total = (10 + len(head) + 1 + 63) // 64 * 64
    head += " " * (total - 10 - len(head) - 1) + "\n"
    with open(os.path.join(d, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode()
                + struct.pack("<%d%s" % (len(vals), fmt), *vals))

npy("x.npy", "<f4", [8, 4], "f", [i * 0.5 for i in range(32)])
npy("cache.npy", "<f4", [8, 4], "f", [1.0] * 32)
npy("sel.npy", "<i8", [3], "q", [7, 0, 3])
npy("sel_bad.npy", "<i8", [3], "q", [7, 8, 3])
npy("adv.npy", "<i8", [3], "q", [-8, 2, 7])
npy("adv_bad.npy", "<i8", [3], "q", [0, -9, 1])
npy("pos.npy", "<i8", [2], "q", [5, -1])
npy("pos_bad.npy", "<i8", [2], "q", [5, 8])
npy("top.npy", "<i8", [8, 2], "q", [i % 4 for i in range(16)])
npy("top_bad.npy", "<i8", [8, 2], "q", [i % 4 for i in range(15)] + [4])
EOF

# run OUTDIR SEL ADV POS TOP: the launcher on those index files (stderr in
# $work/err, the cache a fresh copy in OUTDIR.cache.npy); sets rc
run() {
    mkdir -p "$1"
    cp "$work/cache.npy" "$1.cache.npy"
    "$launcher" --input "x=$work/x.npy" --input "sel=$work/$2.npy" --input "adv=$work/$3.npy" \
        --input "pos=$work/$4.npy" --input "top=$work/$5.npy" --input "cache=$1.cache.npy" \
        --out-dir "$1" --warmup 0 --iters 1 >"$work/out" 2>"$work/err"
    rc=$?
}

# refused NAME DIR LINE NEEDLE: exit 2, one line on stderr with model.py:LINE:
# and NEEDLE, nothing in DIR, the cache file unchanged
refused() {
    if [ "$rc" -ne 2 ]; then bad "$1" "exit $rc, expected 2"; return; fi
    if [ "$(wc -l <"$work/err")" -ne 1 ]; then bad "$1" "not one line on stderr"; return; fi
    if ! grep -Fq "model.py:$3: " "$work/err"; then bad "$1" "stderr lacks 'model.py:$3: '"; return; fi
    if ! grep -Fq -- "$4" "$work/err"; then bad "$1" "stderr lacks '$4'"; return; fi
    if [ -n "$(ls -A "$2")" ]; then bad "$1" "left in the output directory: $(ls -A "$2")"; return; fi
    if ! cmp -s "$2.cache.npy" "$work/cache.npy"; then bad "$1" "the cache input was written"; return; fi
    ok "$1"
}

run "$work/good" sel adv pos top
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] && [ -f "$work/good/out5.npy" ]; then
    ok "good indices: exit 0"
else
    bad "good indices: exit 0" "exit $rc"
fi

run "$work/sel" sel_bad adv pos top
refused "index_select index out of range" "$work/sel" 8 "index 8 is out of bounds for dim 0 with size 8"
run "$work/adv" sel adv_bad pos top
refused "x[idx] index out of range (negative)" "$work/adv" 9 "index -9 is out of bounds for dim 0 with size 8"
run "$work/pos" sel adv pos_bad top
refused "cache[pos] = v index out of range" "$work/pos" 10 "index 8 is out of bounds for dim 0 with size 8"
run "$work/top" sel adv pos top_bad
refused "gather index out of range" "$work/top" 11 "index 4 is out of bounds for dim 1 with size 4"

[ "$fails" -eq 0 ]
