#!/bin/sh
# Half-precision .npy files at the launcher's edges, on
# tests/conform/models/half_npy.py (b, s: bfloat16 [64], h: float16 [64];
# outputs b.clone(), h.clone(), b * 3, h * 3; s updated in place):
#   - float32 ('<f4') inputs are rounded as torch's .to(torch.bfloat16) and
#     .to(torch.float16) round them: the copies equal torch's bits on ties,
#     subnormals, values past bfloat16's and float16's largest (inf), -0,
#     inf; NaN stays NaN;
#   - a run on '<f4' inputs writes the same bytes as a run on torch's
#     '<u2' (bfloat16 bits) and '<f2' files of them (NaN left out: torch
#     gives bfloat16 NaN no fixed bits);
#   - --widen-outputs writes every bf16 and f16 output and s as '<f4' .npy
#     files equal to torch's .float() of the files written without it;
#   - a '<i4' file for the bf16 input, or a '<u2' one for the f16 input, is
#     refused: exit status 2 and one line naming the input, the file and
#     the dtypes accepted.
#
# usage: tests/conform/half_npy.sh TNGC
# PYTHON selects the interpreter (default /usr/bin/python3, with torch).
set -u
check=half-npy model=half_npy.py
. "$(dirname "$0")/lib.sh"

# run NAME ARG...: the launcher with --out-dir $tmp/NAME, its log in $tmp/NAME.log
run() {
    r=$1
    shift
    "$l" --warmup 0 --iters 1 --out-dir "$tmp/$r" "$@" >"$tmp/$r.log" 2>&1
}

# inputs D NAN: writes D/{b,h,s}.npy ('<f4': the values the rounding is
# checked on, then random ones) and D/{b,s}_u2.npy, D/h_f2.npy (torch's
# rounding of them); NAN 1 puts NaNs among them
inputs() {
    "$py" - "$@" <<'PY'
import os, struct, sys
import numpy as np
import torch
d, nan = sys.argv[1], sys.argv[2] == "1"
os.makedirs(d, exist_ok=True)
bits = lambda *u: [struct.unpack("<f", struct.pack("<I", x))[0] for x in u]
tricky = bits(
    0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF,  # bfloat16 ties to even, either side
    0x00000001, 0x00008000, 0x00018000, 0x007FFFFF, 0x80000001,  # float32 subnormals
    0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0xFF7F8000)  # around bfloat16's largest
tricky += [65504.0, 65519.99, 65520.0, -65520.0, 1e5,  # float16's largest, past it
           2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -25, 3 * 2.0 ** -25, 2.0 ** -14 - 2.0 ** -26,
           1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, -(1 + 2.0 ** -11),  # float16 ties
           0.0, -0.0, float("inf"), float("-inf"), 1e-40, 3e38]
if nan:
    tricky += bits(0x7FC00000, 0xFFC00000, 0x7F800001)
g = torch.Generator().manual_seed(7)
x = torch.cat([torch.tensor(tricky), torch.randn(64 - len(tricky), generator=g) * 100])
s = torch.randn(64, generator=g)
for name, v in (("b", x), ("h", x.flip(0)), ("s", s)):
    np.save(os.path.join(d, name + ".npy"), v.numpy().astype("<f4"))
for name, v in (("b", x), ("s", s)):
    np.save(os.path.join(d, name + "_u2.npy"),
            v.to(torch.bfloat16).view(torch.int16).numpy().view("<u2"))
np.save(os.path.join(d, "h_f2.npy"), x.flip(0).half().numpy())
PY
}

if ! (cd "$root" && "$tngc" build "$script" -o "$tmp/out") >"$tmp/build.log" 2>&1; then
    bad "tngc build"; tail -n 5 "$tmp/build.log"; finish
fi
l=$tmp/out/half_npy_launcher
if ! inputs "$tmp/in" 0 || ! inputs "$tmp/nan" 1; then
    bad "writing the inputs"; finish
fi
i=$tmp/in n=$tmp/nan

if "$l" --help | grep -q -- "--widen-outputs    write bf16 and f16 outputs" &&
    "$l" --help | grep -Fq "b bf16[64]  (a '<f4' .npy, rounded, or a '<u2' .npy of bfloat16 bits)" &&
    "$l" --help | grep -Fq "h f16[64]  (a '<f2' .npy, or a '<f4' one, rounded)"; then
    ok "--help documents '<f4' half inputs and --widen-outputs"
else
    bad "--help"; "$l" --help | head -20
fi

# '<f4' against torch's '<u2' / '<f2' files: the same bytes in every file
if run f4 --input "b=$i/b.npy" --input "h=$i/h.npy" --input "s=$i/s.npy" &&
    run u2 --input "b=$i/b_u2.npy" --input "h=$i/h_f2.npy" --input "s=$i/s_u2.npy"; then
    same=1
    for f in out0 out1 out2 out3 s; do
        cmp -s "$tmp/f4/$f.npy" "$tmp/u2/$f.npy" || { same=0; echo "    $f.npy differs"; }
    done
    if [ $same -eq 1 ]; then
        ok "'<f4' inputs give the bytes of torch's '<u2'/'<f2' roundings, in every output and s"
    else
        bad "'<f4' and '<u2'/'<f2' runs differ"
    fi
else
    bad "the launcher on '<f4' or '<u2' inputs"; tail -n 3 "$tmp/f4.log" "$tmp/u2.log"
fi

# the rounding, NaN included: the copies against torch's bits
if run nan --input "b=$n/b.npy" --input "h=$n/h.npy" --input "s=$n/s.npy" &&
    "$py" - "$n" "$tmp/nan" >"$tmp/round.log" 2>&1 <<'PY'
import sys
import numpy as np
import torch
src, out = sys.argv[1:3]
bad = 0
for inp, res, dt in (("b", "out0", torch.bfloat16), ("h", "out1", torch.float16)):
    x = torch.from_numpy(np.load("%s/%s.npy" % (src, inp)))
    want = x.to(dt).view(torch.int16).numpy().view("<u2")
    got = np.load("%s/%s.npy" % (out, res))
    got = got if got.dtype == np.dtype("<u2") else got.view("<u2")
    gv = torch.from_numpy(got.view(np.int16)).view(dt).float().numpy()
    wv = torch.from_numpy(want.view(np.int16)).view(dt).float().numpy()
    for k in range(len(want)):
        ok = np.isnan(gv[k]) and np.isnan(wv[k]) if np.isnan(wv[k]) else got[k] == want[k]
        if not ok:
            bad += 1
            print("%s[%d] = %r (0x%08x): 0x%04x, torch 0x%04x" % (inp, k, float(x[k]),
                  x[k:k + 1].view(torch.int32).item() & 0xFFFFFFFF, got[k], want[k]))
sys.exit(1 if bad else 0)
PY
then
    ok "'<f4' rounded to bfloat16 and float16 as torch rounds (ties, subnormals, overflow, NaN)"
else
    bad "the rounding of '<f4' inputs"; tail -n 8 "$tmp/nan.log" "$tmp/round.log"
fi

# --widen-outputs: '<f4' files equal to torch's .float() of the half ones
if run wide --input "b=$i/b.npy" --input "h=$i/h.npy" --input "s=$i/s.npy" --widen-outputs &&
    "$py" - "$tmp/u2" "$tmp/wide" >"$tmp/wide.cmp" 2>&1 <<'PY'
import sys
import numpy as np
import torch
half, wide = sys.argv[1:3]
bad = 0
for f, dt in (("out0", torch.bfloat16), ("out1", torch.float16), ("out2", torch.bfloat16),
              ("out3", torch.float16), ("s", torch.bfloat16)):
    h = np.load("%s/%s.npy" % (half, f))
    w = np.load("%s/%s.npy" % (wide, f))
    want = torch.from_numpy(h.view(np.int16)).view(dt).float().numpy()
    if w.dtype != np.dtype("<f4") or w.shape != want.shape or w.tobytes() != want.tobytes():
        bad += 1
        print("%s.npy: %s %s, expected torch's .float(): %s %s" % (f, w.dtype, w.shape,
              want.dtype, want.shape))
sys.exit(1 if bad else 0)
PY
then
    ok "--widen-outputs writes '<f4' files equal to torch's .float() of the bf16/f16 results"
else
    bad "--widen-outputs"; tail -n 8 "$tmp/wide.log" "$tmp/wide.cmp"
fi

# other dtypes: refused, one line naming the input, the file, what is accepted
"$py" -c "import numpy as np, sys; np.save(sys.argv[1], np.zeros(64, '<i4'))" "$tmp/i4.npy"
run badb --input "b=$tmp/i4.npy" --input "h=$i/h.npy" --input "s=$i/s.npy"
st=$?
if [ $st -eq 2 ] && [ "$(wc -l <"$tmp/badb.log")" -eq 1 ] &&
    grep -Fq "input 'b': $tmp/i4.npy: dtype '<i4': a bf16 tensor is read from a '<f4' .npy (rounded to bfloat16) or a '<u2' .npy of its bfloat16 bit patterns" "$tmp/badb.log" &&
    [ ! -e "$tmp/badb/out0.npy" ]; then
    ok "a '<i4' file for a bf16 input: exit 2, one line naming it and '<f4'/'<u2'"
else
    bad "a '<i4' file for a bf16 input: exit $st"; cat "$tmp/badb.log"
fi
run badh --input "b=$i/b.npy" --input "h=$i/b_u2.npy" --input "s=$i/s.npy"
st=$?
if [ $st -eq 2 ] && [ "$(wc -l <"$tmp/badh.log")" -eq 1 ] &&
    grep -Fq "input 'h': $i/b_u2.npy: dtype '<u2': an f16 tensor is read from a '<f2' .npy or a '<f4' .npy (rounded to float16)" "$tmp/badh.log"; then
    ok "a '<u2' file for an f16 input: exit 2, one line naming it and '<f2'/'<f4'"
else
    bad "a '<u2' file for an f16 input: exit $st"; cat "$tmp/badh.log"
fi
finish
