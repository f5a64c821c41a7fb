#!/bin/sh
# Shape arithmetic wrapped. x.reshape(2**62 + 4, 4) has
# (2**62 + 4) * 4 = 2**64 + 16 elements, which wrapped to x's own 16, so
# the plan passed and the bundle's select read 16 bytes before its input;
# 62 doublings by torch.cat printed a dim of -9223372036854775808. Every
# size is now overflow-checked and no tensor may pass 2^48 bytes (graph.h):
# plan exits 1 with TNG206 at the op's line, build refuses, and the
# examples still plan.
#
#   sh t_overflow.sh BUILD_DIR      (BUILD_DIR holds tngc)
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
tngc=$build/tngc
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

# model.py with BODY (lines of forward, indented 8) and example shape SHAPE.
script() {   # file body shape
    cat >"$1" <<EOF
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
$2


config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False, fullgraph=True)
x = torch.randn($3).npu()
print(model(x))
EOF
}

# plan must exit 1 with RULE at LINE of FILE, and never print a wrapped size.
expect_plan_error() {   # name file line rule
    (cd "$tmp" && "$tngc" plan "$(basename "$2")") >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ $status -ne 1 ]; then
        fail "$1" "tngc plan exited $status, expected 1"
    elif ! grep -q "^$(basename "$2"):$3:[0-9]*: error: .*\[$4\]\$" "$tmp/err"; then
        fail "$1" "no $4 error at line $3: $(head -3 "$tmp/err")"
    elif grep -q -- '-9223372036854775808\|\[[0-9]*,*-[0-9]' "$tmp/out" "$tmp/err"; then
        fail "$1" "a wrapped size was printed"
    elif [ -s "$tmp/out" ]; then
        fail "$1" "a plan was printed despite the error"
    else
        ok "$1"
    fi
}

# 1. the exploit of the issue
script "$tmp/reshape.py" '        return x.reshape(2**62 + 4, 4)[2**62 - 1]' '4, 4'
expect_plan_error reshape-2^62 "$tmp/reshape.py" 11 TNG206

(cd "$tmp" && "$tngc" build -o "$tmp/out_reshape" reshape.py) >"$tmp/out" 2>&1
status=$?
if [ $status -eq 0 ]; then
    fail build-refuses "tngc build exited 0"
elif ls "$tmp/out_reshape"/*launcher* "$tmp/out_reshape"/*.a >/dev/null 2>&1; then
    fail build-refuses "tngc build left a launcher or library"
elif ! grep -q 'reshape.py:11:[0-9]*: error: .*\[TNG206\]' "$tmp/out"; then
    fail build-refuses "no TNG206 at line 11: $(head -3 "$tmp/out")"
else
    ok build-refuses
fi

# 2. 62 doublings by cat: refused at the first past 2^48 bytes
script "$tmp/cat.py" '        for i in range(62):
            x = torch.cat([x, x])
        return x' '2, 4'
expect_plan_error cat-62-doublings "$tmp/cat.py" 12 TNG206

# 3. sizes whose product overflows int64 while each is below 2^48:
# (2**20 + 1) * (2**40 - 2**20 + 1) * 16 = 2**64 + 16 wrapped to x's 16
script "$tmp/view.py" '        return x.view(1048577, 1099510579201, 16)' '4, 4'
expect_plan_error view-product-overflow "$tmp/view.py" 11 TNG206
script "$tmp/zeros.py" '        return x + 1, torch.zeros(2**31, 2**31, 2**31)' '4, 4'
expect_plan_error zeros-huge "$tmp/zeros.py" 11 TNG206

# 4. a gear of 2**62
cat >"$tmp/gear.py" <<'EOF'
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return x.reshape(-1) + 1


x = torch.ones(2, 4).npu()
config = torchair.CompilerConfig()
npu_backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model().npu(), fullgraph=True, backend=npu_backend)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 2**62]})
print(model(x))
EOF
expect_plan_error gear-2^62 "$tmp/gear.py" 15 TNG209

# 5. the examples still plan
for py in "$root"/examples/*/model.py "$root"/examples/*/prefill_decode.py "$root"/examples/*/product.py; do
    [ -f "$py" ] || continue
    name=examples/$(basename "$(dirname "$py")")/$(basename "$py")
    if (cd "$(dirname "$py")" && "$tngc" plan "$(basename "$py")") >/dev/null 2>"$tmp/err"; then
        ok "plan $name"
    else
        fail "plan $name" "$(head -3 "$tmp/err")"
    fi
done

exit $failed
