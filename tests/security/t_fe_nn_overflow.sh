#!/bin/sh
# The lowering of nn functions computed sizes from script values in plain
# int64 and double: padding='same' took dilation * (kernel size - 1)
# unchecked (the sanitized build aborted on a dilation of 2**62),
# interpolate converted floor(size * scale_factor) to int64 for any scale
# (1e300, inf and nan reached the shape rule as a wrapped
# -9223372036854775808), scale_factor=() read past an empty tuple, and
# nn.MultiheadAttention divided by a num_heads and multiplied an embed_dim
# the script set after the constructor (division by zero, overflow). Each
# is now one diagnostic at the call, with no sanitizer report; sizes whose
# arithmetic fits still plan.
#
#   sh tests/security/t_fe_nn_overflow.sh BUILD_DIR
#
# The scripts run on BUILD_DIR's tngc and on a sanitized build beside it
# when there is one: $TNGC_SAN_BUILD, BUILD_DIR-san or BUILD_DIR/san.
. "$(dirname "$0")/lib.sh"

builds=$build
for s in "${TNGC_SAN_BUILD:-}" "$build-san" "$build/san"; do
    if [ -n "$s" ] && [ -x "$s/tngc" ]; then
        builds="$builds $(cd "$s" && pwd)"
        break
    fi
done

# model NAME INIT BODY X-SHAPE: a module whose __init__ runs INIT (line 9)
# and whose forward(x) returns BODY (line 12)
model() {
    cat >"$tmp/$1.py" <<EOF
import torch
import torch.nn.functional as F
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        $2

    def forward(self, x):
        return $3


model = torch.compile(Model().eval(), backend=torchair.get_npu_backend(), dynamic=False)
model(torch.randn($4))
EOF
}

# refused NAME RULE PATTERN: on every build, tngc plan exits 1 with one
# diagnostic, an error RULE at line 12 that says PATTERN, and no sanitizer
# report
refused() {
    for b in $builds; do
        tag="$1 ($(basename "$b"))"
        (cd "$tmp" && timeout 120 "$b/tngc" plan "$1.py") >"$tmp/$1.out" 2>"$tmp/$1.err"
        rc=$?
        diag=$(grep ': error: \|: warning: ' "$tmp/$1.err")
        if grep -q 'runtime error\|Sanitizer' "$tmp/$1.err"; then
            fail "$tag" "sanitizer report: $(grep 'runtime error\|Sanitizer' "$tmp/$1.err" | head -n 1)"
        elif [ $rc -ne 1 ]; then
            fail "$tag" "exit status $rc, expected 1: $(head -n 3 "$tmp/$1.err")"
        elif [ "$(echo "$diag" | wc -l)" -ne 1 ] || ! echo "$diag" | grep -q "^$1.py:12:[0-9]*: error: .*\[$2\]$"; then
            fail "$tag" "expected one $2 at line 12: $diag"
        elif ! echo "$diag" | grep -q "$3"; then
            fail "$tag" "the diagnostic does not say '$3': $diag"
        elif [ -s "$tmp/$1.out" ]; then
            fail "$tag" "a partial plan on stdout"
        else
            ok "$tag"
        fi
    done
}

# planned NAME: on every build, tngc plan exits 0 with no diagnostic
planned() {
    for b in $builds; do
        tag="$1 ($(basename "$b"))"
        (cd "$tmp" && timeout 120 "$b/tngc" plan "$1.py") >/dev/null 2>"$tmp/$1.err"
        rc=$?
        if [ $rc -ne 0 ] || [ -s "$tmp/$1.err" ]; then
            fail "$tag" "exit status $rc: $(head -n 3 "$tmp/$1.err")"
        else
            ok "$tag planned"
        fi
    done
}

# padding='same': dilation * (kernel size - 1)
model same1d "pass" "F.conv1d(x, torch.randn(2, 2, 3), padding='same', dilation=2**62)" "1, 2, 8"
refused same1d TNG206 'padding="same": dilation 4611686018427387904 \* (kernel size 3 - 1) overflows 64-bit integers'
model same2d "pass" "F.conv2d(x, torch.randn(2, 2, 3, 5), padding='same', dilation=(1, 2**61))" "1, 2, 8, 8"
refused same2d TNG206 'dilation 2305843009213693952 \* (kernel size 5 - 1) overflows 64-bit integers'
model same_module "self.c = torch.nn.Conv2d(2, 2, 3, padding='same', dilation=2**62)" "self.c(x)" "1, 2, 8, 8"
refused same_module TNG206 'dilation 4611686018427387904 \* (kernel size 3 - 1) overflows'
model same_fits "pass" "F.conv1d(x, torch.randn(2, 2, 3), padding='same', dilation=2**61)" "1, 2, 8"
planned same_fits

# interpolate: floor(size * scale_factor) as int64
model scale_huge "pass" "F.interpolate(x, scale_factor=1e300)" "1, 2, 8, 8"
refused scale_huge TNG206 'the output size 8 \* scale_factor 1e+300 overflows 64-bit integers'
model scale_2p63 "pass" "F.interpolate(x, scale_factor=(1.0, 2.0 ** 60))" "1, 2, 8, 8"
refused scale_2p63 TNG206 'the output size 8 \* scale_factor 1.15292e+18 overflows'
model scale_inf "pass" "F.interpolate(x, scale_factor=float('inf'), mode='bilinear')" "1, 2, 8, 8"
refused scale_inf TNG206 'scale_factor must be a finite number, got inf'
model scale_nan "pass" "F.interpolate(x, scale_factor=float('nan'))" "1, 2, 8, 8"
refused scale_nan TNG206 'scale_factor must be a finite number, got nan'
model scale_module "self.u = torch.nn.Upsample(scale_factor=float('-inf'))" "self.u(x)" "1, 2, 8, 8"
refused scale_module TNG206 'scale_factor must be a finite number, got -inf'
model scale_empty "pass" "F.interpolate(x, scale_factor=())" "1, 2, 8, 8"
refused scale_empty TNG203 'scale_factor must be a number or two'
model size_empty "pass" "F.interpolate(x, size=[])" "1, 2, 8, 8"
refused size_empty TNG203 'size must be an int or two'
model kernel_empty "pass" "F.max_pool2d(x, ())" "1, 2, 8, 8"
refused kernel_empty TNG203 'kernel_size must be an int or two'
model scale_fits "pass" "F.interpolate(x, scale_factor=2.5)" "1, 2, 8, 8"
planned scale_fits

# nn.MultiheadAttention's attributes changed after the constructor
model mha_heads0 "self.m = torch.nn.MultiheadAttention(4, 2); self.m.num_heads = 0" "self.m(x, x, x)[0]" "3, 2, 4"
refused mha_heads0 TNG206 'embed_dim 4 must be divisible by num_heads 0'
model mha_embed "self.m = torch.nn.MultiheadAttention(4, 2); self.m.embed_dim = 2**62" "self.m(x, x, x)[0]" "3, 2, 4"
refused mha_embed TNG206 '3 \* embed_dim 4611686018427387904 overflows 64-bit integers'
model mha_fits "self.m = torch.nn.MultiheadAttention(4, 2)" "self.m(x, x, x)[0]" "3, 2, 4"
planned mha_fits

[ $fails -eq 0 ]
