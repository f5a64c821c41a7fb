#!/bin/sh
# t_rtshapes.sh - shape arithmetic at run time: shapes a bundle
# computes from its inputs are overflow-checked.
#
# A model compiled with dynamic=True and no gears keeps its dims symbolic
# (the planner leaves every symbol unbound), so the generated code computes
# dims such as s0*8 and s2*(s0*s1) from the input's shape at run time.
# Hostile .npy shapes used to pass the launcher's checks (a huge dim next to
# a 0 keeps the tensor empty) and then made those products overflow
# (undefined behaviour, UBSan's report in a SANITIZE=1 build), hang in a
# kernel walking 2^50 empty rows, or run with tensors past the 2^48 bytes
# tngc plans for. Now every input dim and input is checked against 2^48
# bytes, every dim the code computes is checked, and every tensor of the
# gear is checked before any kernel runs: the launcher exits 2 with one
# line. A slice step of 2^62 (x[::2**62]) overflowed a stride in the slice
# kernel; it now runs.
#
# usage: sh t_rtshapes.sh BUILD_DIR   (holding tngc and libtngcrt.a)
set -u
build=${1:?usage: sh t_rtshapes.sh BUILD_DIR}
case $build in /*) ;; *) build=$PWD/$build ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tngc-t_rtshapes.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
fails=0
ok() { echo "ok $1"; }
bad() {
    echo "FAIL $1: $2"
    sed 's/^/    | /' "$work/err" 2>/dev/null | head -8
    fails=$((fails + 1))
}

model() {   # file body example-shape dynamic [params]
    cat >"$work/$1" <<EOF
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, ${5:-x}):
$2


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=npu_backend, dynamic=$4, fullgraph=True)
x = torch.randn($3).npu()
y = torch.randn(5, 7).npu()
print(model(${5:-x}))
EOF
}

# dims the code computes: s0*8 (cat), s2*(s0*s1) (flatten), a slice's
# length (s0 + 2**62 - 1) // 2**62; a softmax walks every row
model dyn.py '        y = torch.cat([x, x, x, x, x, x, x, x], 0)
        return y + 1, x.flatten() * 2, torch.softmax(x, dim=0), x[::2**62] + 1' '2, 3, 5' True
model slice.py '        return x[::2**62] + 1, x[:, 1::2**62] * 2' '4, 4' False
# a dim of two inputs' dims, s0*s2*s1*s3: each input is fine, the product not
model two.py '        return torch.ones(x.shape[0] * y.shape[0] * x.shape[1] * y.shape[1]) + 1' '2, 3' True 'x, y'
for m in dyn slice two; do
    (cd "$work" && "$build/tngc" build -o "bin_$m" --cache-dir "$work/cache" "$m.py") >"$work/out" 2>"$work/err" \
        || { bad "build $m" "tngc build failed"; exit 1; }
done
# the symbols stay unbound (else this tests nothing)
(cd "$work" && "$build/tngc" plan dyn.py) >"$work/plan" 2>&1
grep -q '^gear 0: s0 unbound, s1 unbound, s2 unbound$' "$work/plan" \
    || { bad "plan dyn" "a symbol is bound: $(grep '^gear' "$work/plan")"; exit 1; }

/usr/bin/python3 - "$work" <<'EOF' || { echo "FAIL data: python3 failed"; exit 1; }
import os, struct, sys
d = sys.argv[1]

def npy(name, shape, raw=b""):
    dims = ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    total = (10 + len(head) + 1 + 63) // 64 * 64
    head += " " * (total - 10 - len(head) - 1) + "\n"
    with open(os.path.join(d, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + raw)

npy("h_62.npy", [2**62, 0, 1])          # the byte size overflows
npy("h_40_40.npy", [2**40, 2**40, 0])   # so does the product of the non-0 dims
npy("h_60.npy", [2**60, 1, 0])          # s0*8 overflows int64
npy("h_30_30.npy", [2**30, 2**30, 0])   # s2*(s0*s1) is 0, s0*s1 past 2^48
npy("h_0_50.npy", [0, 2**50, 1])        # empty, a dim past 2^48: 2^50 rows to walk
npy("h_49.npy", [2**49, 0, 0])          # empty, a dim past 2^48
npy("h_45.npy", [2**45, 1, 0])          # every input dim fine, s0*8 = 2^48 elements
npy("good.npy", [2, 3, 5], struct.pack("<30f", *range(30)))
npy("good44.npy", [4, 4], struct.pack("<16f", *range(16)))
npy("h_40_0.npy", [2**40, 0])
npy("good23.npy", [2, 3], struct.pack("<6f", *range(6)))
npy("good57.npy", [5, 7], struct.pack("<35f", *range(35)))
EOF

# refused NAME NPY [LAUNCHER [MORE-ARGS]]: exit 2, one line on stderr, no
# sanitizer report, no output
refused() {
    rm -rf "$work/o"
    timeout 10 "${3:-$work/bin_dyn/dyn_launcher}" --input "x=$work/$2" ${4:-} --out-dir "$work/o" \
        --warmup 0 --iters 1 >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -ne 2 ]; then bad "$1" "exit $rc, expected 2"
    elif [ "$(wc -l <"$work/err")" -ne 1 ]; then bad "$1" "not one line on stderr"
    elif grep -q 'runtime error\|Sanitizer' "$work/err"; then bad "$1" "sanitizer report"
    elif [ -e "$work/o/out0.npy" ]; then bad "$1" "an output was written"
    else ok "$1"; fi
}
refused "[2^62,0,1]" h_62.npy
refused "[2^40,2^40,0]" h_40_40.npy
refused "[2^60,1,0]: s0*8 overflows" h_60.npy
refused "[2^30,2^30,0]: s0*s1 past 2^48" h_30_30.npy
refused "[0,2^50,1]: a dim past 2^48" h_0_50.npy
refused "[2^49,0,0]: a dim past 2^48" h_49.npy
refused "[2^45,1,0]: a computed tensor past 2^48 bytes" h_45.npy
refused "[2^40,0] and [2^40,0]: s0*s2 overflows" h_40_0.npy "$work/bin_two/two_launcher" "--input y=$work/h_40_0.npy"

# runs NAME LAUNCHER NPY [MORE-ARGS]: exit 0, no sanitizer report
runs() {
    rm -rf "$work/o"
    timeout 20 "$2" --input "x=$work/$3" ${4:-} --out-dir "$work/o" --warmup 0 --iters 1 >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -ne 0 ]; then bad "$1" "exit $rc, expected 0"
    elif [ -s "$work/err" ]; then bad "$1" "stderr not empty"
    elif [ ! -f "$work/o/out0.npy" ]; then bad "$1" "no output"
    else ok "$1"; fi
}
runs "dynamic model, [2,3,5]" "$work/bin_dyn/dyn_launcher" good.npy
runs "two inputs, [2,3] and [5,7]" "$work/bin_two/two_launcher" good23.npy "--input y=$work/good57.npy"
runs "x[::2**62] on [4,4]" "$work/bin_slice/slice_launcher" good44.npy
if [ $fails -eq 0 ] && ! /usr/bin/python3 - "$work/o" <<'EOF'
import struct, sys
def load(p):
    b = open(p, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    return list(struct.unpack("<%df" % ((len(b) - 10 - n) // 4), b[10 + n:]))
a, b = load(sys.argv[1] + "/out0.npy"), load(sys.argv[1] + "/out1.npy")
sys.exit(0 if a == [1, 2, 3, 4] and b == [2, 10, 18, 26] else 1)
EOF
then
    bad "x[::2**62] values" "out0 is not x[0] + 1 or out1 not x[:, 1] * 2"
fi
exit $((fails > 0))
