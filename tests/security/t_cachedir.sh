#!/bin/sh
# A script's cache_compile(..., cache_dir=...) cannot make
# `tngc build` create directories outside where it works. A literal
# "../../../../x" is lint error TNG153 (the rule of TNG161: no '..'
# component, no NUL); one lint cannot see (a variable) is refused by the build,
# one line, exit 2, before anything is created. An absolute cache_dir is
# allowed, and so is --cache-dir with '..' (the user's own choice).
#
# usage: sh t_cachedir.sh BUILD_DIR     (BUILD_DIR holds tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"

script() {   # FILE CACHE_DIR_EXPRESSION
    cat > "$1" <<PY
import torch, torch_npu, torchair


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = torchair.inference.cache_compile(self._forward, cache_dir=$2)

    def forward(self, x):
        return self.cached(x)

    def _forward(self, x):
        return x + 1


model = Model()
y = model(torch.randn(2, 8))
PY
}
work=$tmp/w1/w2/w3/w4
mkdir -p "$work"
cd "$work" || exit 2

script lit.py '"../../../../x"'
"$build/tngc" lint lit.py > out 2>&1
rc=$?
check "literal '..' cache_dir: lint error TNG153" '[ $rc -eq 1 ] && grep -q "TNG153" out' "exit $rc: $(cat out)"
timeout 120 "$tngc" build lit.py -o o1 > out 2>&1
rc=$?
check "literal '..' cache_dir: build refused" '[ $rc -ne 0 ]' "exit $rc"
check "literal '..' cache_dir: nothing created" '[ ! -e "$tmp/x" ] && [ ! -e o1 ]' "$(ls "$tmp") / $(ls)"

script comp.py '"../../" + "../../x"'
timeout 120 "$tngc" build comp.py -o o2 > out 2> err
rc=$?
check "computed '..' cache_dir: build exit 2" '[ $rc -eq 2 ]' "exit $rc: $(cat err)"
check "computed '..' cache_dir: one line" '[ "$(wc -l < err)" -eq 1 ] && grep -q "cache_dir" err' "$(cat err)"
check "computed '..' cache_dir: nothing created" '[ ! -e "$tmp/x" ] && [ ! -e o2 ]' "$(ls "$tmp") / $(ls)"
timeout 120 "$tngc" build comp.py -o o2b --cache-dir ../c2 > out 2> err
rc=$?
check "--cache-dir with '..' stays allowed" '[ $rc -eq 0 ] && [ -d ../c2 ]' "exit $rc: $(cat err)"

script abs.py "\"$tmp/abs_cache\""
timeout 120 "$tngc" build abs.py -o o3 > out 2> err
rc=$?
check "absolute cache_dir: built" '[ $rc -eq 0 ] && [ -d "$tmp/abs_cache" ] && [ -x o3/abs_launcher ]' "exit $rc: $(cat err)"

[ $fails -eq 0 ]
