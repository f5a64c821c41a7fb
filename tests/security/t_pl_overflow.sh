#!/bin/sh
# The shape rules of conv and the pools computed attribute products and
# sums in plain int64: F.conv2d(x, w, dilation=2**62 + 1) with a 5-wide
# kernel wrapped its extent to 5 and planned (the sanitized build aborted),
# a padding of 2**62 on both sides wrapped to a negative one, an avg_pool2d
# kernel of 2**62 x 2**62 planned and left its kernel to compute the
# window's area in int64, and so did an adaptive pool whose output size
# times the input size does not fit (the kernel's window bounds). Each is
# now one TNG206 at the op ("... overflows 64-bit integers"), with no
# sanitizer report; the largest windows whose arithmetic fits still plan,
# and their bundles run clean under the sanitizers.
#
#   sh tests/security/t_pl_overflow.sh BUILD_DIR   (holding tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"

# model NAME EXPR X-SHAPE W-SHAPE: forward(x, w) returns EXPR (line 9)
model() {
    cat >"$tmp/$1.py" <<EOF
import torch
import torch.nn.functional as F
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x, w):
        return $2


model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn($3).npu(), torch.randn($4).npu())
EOF
}

# refused NAME PATTERN: tngc plan exits 1 with one TNG206 at line 9 that
# says PATTERN, and no sanitizer report
refused() {
    (cd "$tmp" && timeout 60 "$tngc" plan "$1.py") >/dev/null 2>"$tmp/$1.err"
    rc=$?
    diag=$(grep ': error: \|: warning: ' "$tmp/$1.err")
    if [ $rc -ne 1 ]; then
        fail "$1" "exit status $rc, expected 1: $(head -n 3 "$tmp/$1.err")"
    elif grep -q 'runtime error\|Sanitizer' "$tmp/$1.err"; then
        fail "$1" "sanitizer report: $(grep 'runtime error\|Sanitizer' "$tmp/$1.err" | head -n 1)"
    elif [ "$(echo "$diag" | wc -l)" -ne 1 ] || ! echo "$diag" | grep -q "^$1.py:9:[0-9]*: error: .*\[TNG206\]$"; then
        fail "$1" "expected one TNG206 at line 9: $diag"
    elif ! echo "$diag" | grep -q "$2"; then
        fail "$1" "the diagnostic does not say '$2': $diag"
    else
        ok "$1"
    fi
}

model conv_dilation "F.conv2d(x, w, dilation=2**62 + 1)" "1, 1, 8, 8" "1, 1, 5, 5"
refused conv_dilation 'dilation 4611686018427387905 \* 4 overflows 64-bit integers'
model conv1d_dilation "F.conv1d(x, w, dilation=2**62 + 1)" "1, 1, 8" "1, 1, 5"
refused conv1d_dilation 'dilation 4611686018427387905 \* 4 overflows 64-bit integers'
model conv_dilation_w "F.conv2d(x, w, dilation=(1, 2**61 + 1))" "1, 1, 8, 8" "1, 1, 3, 9"
refused conv_dilation_w 'dilation 2305843009213693953 \* 8 overflows 64-bit integers'
model conv_padding "F.conv2d(x, w, padding=2**62)" "1, 1, 8, 8" "1, 1, 3, 3"
refused conv_padding 'the padding 4611686018427387904 + 4611686018427387904 overflows 64-bit integers'
model conv_padded_size "F.conv2d(x, w, padding=(0, 2**62 - 1))" "1, 1, 8, 8" "1, 1, 3, 3"
refused conv_padded_size 'the padded input size 8 + 9223372036854775806 overflows 64-bit integers'
model max_pool_padding "F.max_pool2d(x, 2**62 + 2**61, padding=2**62)" "1, 1, 8, 8" "1"
refused max_pool_padding 'padding 4611686018427387904: it must be at most half the kernel size'
model max_pool_padded "F.max_pool2d(x, (1, 9223372036854775807), padding=(0, 4611686018427387903))" "1, 1, 8, 8" "1"
refused max_pool_padded 'the padded input size 8 + 9223372036854775806 overflows 64-bit integers'
model avg_pool_area "F.avg_pool2d(x, 2**62, padding=2**61, stride=1)" "1, 1, 4, 4" "1"
refused avg_pool_area 'the kernel area 4611686018427387904 \* 4611686018427387904 overflows'
model adaptive "F.adaptive_avg_pool2d(x, (2**40, 1))" "1, 1, 2**30, 1" "1"
refused adaptive 'output size 1099511627776 \* 1073741824 overflows'
model adaptive_max "F.adaptive_max_pool2d(x, (1, 2**62))" "1, 1, 1, 3" "1"
refused adaptive_max 'output size 4611686018427387904 \* 3 overflows'

# The largest windows whose arithmetic fits: they plan, build and run,
# with no sanitizer report from the kernels (a 2**62 stride over a 2**61
# padding; a 2**31 x 2**31 kernel, whose area 2**62 divides the sums).
model big_ok "F.conv2d(x, w, stride=2**62, padding=2**61), F.avg_pool2d(x, 2**31, stride=1, padding=2**30), F.max_pool2d(x, (2**62, 1), stride=1, padding=(2**61, 0)), F.adaptive_avg_pool2d(x, (2**20, 3))" "1, 1, 8, 8" "1, 1, 3, 3"
(cd "$tmp" && timeout 60 "$tngc" plan big_ok.py) >"$tmp/big_ok.plan" 2>"$tmp/big_ok.err"
check "big_ok plans" '[ $? -eq 0 ] && [ ! -s "$tmp/big_ok.err" ]' "$(head -n 3 "$tmp/big_ok.err")"
check "big_ok shapes" 'grep -q "conv .*f32\[1,1,2,2\]\|f32\[1,1,2,2\] = conv" "$tmp/big_ok.plan" && grep -q "f32\[1,1,9,9\] = avg_pool2d" "$tmp/big_ok.plan" && grep -q "f32\[1,1,9,8\] = max_pool2d" "$tmp/big_ok.plan"' \
    "$(grep ' = \(conv\|avg_pool2d\|max_pool2d\)' "$tmp/big_ok.plan" | head -n 3)"
if (cd "$tmp" && timeout 300 "$tngc" build -o bin --cache-dir "$tmp/cache" big_ok.py) >"$tmp/build.out" 2>"$tmp/build.err"; then
    ok "big_ok builds"
    /usr/bin/python3 - "$tmp" <<'EOF'
import struct, sys
for name, shape in (("x", (1, 1, 8, 8)), ("w", (1, 1, 3, 3))):
    n = 1
    for d in shape:
        n *= d
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ", ".join(map(str, shape))
    head += " " * ((10 + len(head) + 1 + 63) // 64 * 64 - 10 - len(head) - 1) + "\n"
    with open("%s/%s.npy" % (sys.argv[1], name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() +
                struct.pack("<%df" % n, *[(i % 7) - 3.0 for i in range(n)]))
EOF
    (cd "$tmp" && timeout 120 bin/big_ok_launcher --input "x=$tmp/x.npy" --input "w=$tmp/w.npy" \
        --out-dir "$tmp/o" --warmup 0 --iters 1) >"$tmp/run.out" 2>"$tmp/run.err"
    rc=$?
    check "big_ok runs" '[ $rc -eq 0 ] && [ -f "$tmp/o/out3.npy" ]' "exit $rc: $(head -n 3 "$tmp/run.err")"
    check "big_ok no sanitizer report" '! grep -q "runtime error\|Sanitizer" "$tmp/run.err"' "$(head -n 3 "$tmp/run.err")"
else
    fail "big_ok builds" "$(head -n 5 "$tmp/build.err")"
fi

[ $fails -eq 0 ]
