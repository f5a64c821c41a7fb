#!/bin/sh
# Checks of captured.py (the captured builds' copy of a script): each
# form of compile config it rewrites, byte for byte, and the two scripts it
# must refuse. Prints "ok ..." / "FAIL ..." lines.
#
# usage: tests/aclsim/captured_test.sh WORKDIR       (PYTHON as run.sh)
set -u
mkdir -p "$1" || exit 2
w=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
ok() { echo "ok   captured.py $*"; }
bad() { echo "FAIL captured.py $*"; }

# same NAME: captured.py turns $w/NAME.py into $w/NAME.want
same() {
    if ! "$py" "$here/captured.py" "$w/$1.py" "$w/$1.out" >"$w/$1.err" 2>&1; then
        bad "$1: exit status $?: $(head -n 1 "$w/$1.err")"
    elif cmp -s "$w/$1.out" "$w/$1.want"; then
        ok "$1: rewritten as expected"
    else
        bad "$1: rewritten otherwise: $(diff "$w/$1.want" "$w/$1.out" | head -n 4 | tr '\n' ' ')"
    fi
}
# refused NAME TEXT: captured.py fails on $w/NAME.py with status 1, TEXT in its line
refused() {
    "$py" "$here/captured.py" "$w/$1.py" "$w/$1.out" >"$w/$1.err" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -qF -- "$2" "$w/$1.err" && [ ! -e "$w/$1.out" ]; then
        ok "$1: refused ($2)"
    else
        bad "$1: status $rc, $(head -n 1 "$w/$1.err")"
    fi
}

cat >"$w/named.py" <<'EOF'
import torchair
if True:
    config = torchair.CompilerConfig()
    config.experimental_config.frozen_parameter = True
EOF
cat >"$w/named.want" <<'EOF'
import torchair
if True:
    config = torchair.CompilerConfig()
    config.mode = "reduce-overhead"
    config.experimental_config.frozen_parameter = True
EOF
same named

cat >"$w/inline.py" <<'EOF'
import torch, torchair as ta
m = torch.compile(f, options={"note": "é"}, backend=ta.get_npu_backend(compiler_config=ta.CompilerConfig()),
                  dynamic=False)  # é
EOF
cat >"$w/inline.want" <<'EOF'
import torch, torchair as ta
_aclsim_config_1 = ta.CompilerConfig()
_aclsim_config_1.mode = "reduce-overhead"
m = torch.compile(f, options={"note": "é"}, backend=ta.get_npu_backend(compiler_config=_aclsim_config_1),
                  dynamic=False)  # é
EOF
same inline

cat >"$w/cache.py" <<'EOF'
import torchair
class M:
    def __init__(self):
        self.f = torchair.inference.cache_compile(self._f, dynamic=False,)
EOF
cat >"$w/cache.want" <<'EOF'
import torchair
class M:
    def __init__(self):
        _aclsim_config_1 = torchair.CompilerConfig()
        _aclsim_config_1.mode = "reduce-overhead"
        self.f = torchair.inference.cache_compile(self._f, dynamic=False, config=_aclsim_config_1,)
EOF
same cache

cat >"$w/reset.py" <<'EOF'
import torchair
config = torchair.CompilerConfig()
config.mode = "max-autotune"
EOF
refused reset "line 3: config.mode is set to another mode"

cat >"$w/none.py" <<'EOF'
import torch
m = torch.compile(f)
EOF
refused none "no CompilerConfig() and no cache_compile call"
