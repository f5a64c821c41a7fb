#!/bin/sh
# Python reads identifiers in their NFKC normal form (PEP 3131): `ｘ`
# (fullwidth) is `x`. tngc compares names byte for byte, so a name that may
# not be NFKC-normal is refused (TNG003 at file:line:col, exit 1, nothing
# written) by plan, gen and build, in the script and in a module it
# imports; lint reports it as a finding. Names in CJK letters, and any
# non-ASCII text in strings and comments, are fine.
#
#   sh tests/security/t_fe_identifiers.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

model() {   # model BODY-LINE: a script whose forward runs BODY-LINE before return x + 1
    cat <<EOF2
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        $1
        return x + 1


model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(4, 16).npu())
EOF2
}
mkdir -p "$tmp/s" "$tmp/m"
model 'ｘ = x * 2' >"$tmp/s/fw.py"
model 'x = x.ｍul(2)' >"$tmp/s/attr.py"
model 'x = torch.add(x, x, ａlpha=2)' >"$tmp/s/kw.py"
model 'name = f"{ｘ}"' >"$tmp/s/fstr.py"
model '层 = x * 2  # ｘ in a comment, "ｘ" in a string: "层"' >"$tmp/s/cjk.py"

for s in fw:8:9 attr:8:15 kw:8:29 fstr:8:19; do
    name=${s%%:*} at=${s#*:}
    for cmd in plan gen build; do
        rm -rf "$tmp/out"
        case $cmd in plan) set -- plan ;; *) set -- "$cmd" -o "$tmp/out" ;; esac
        "$tngc" "$@" "$tmp/s/$name.py" >"$tmp/o" 2>"$tmp/e"
        rc=$?
        check "$cmd $name: exit 1" '[ $rc -eq 1 ]' "exit $rc: $(head -c 300 "$tmp/e")"
        check "$cmd $name: TNG003 at $at" 'grep -q "^[^:]*$name.py:$at: error: .*\[TNG003\]$" "$tmp/e"' \
            "$(head -c 300 "$tmp/e")"
        check "$cmd $name: one diagnostic" '[ "$(grep -c ": error: " "$tmp/e")" -eq 1 ]'
        [ "$cmd" = plan ] || check "$cmd $name: nothing written" '[ ! -e "$tmp/out" ] || [ -z "$(ls -A "$tmp/out")" ]'
    done
done

"$tngc" lint --format json "$tmp/s/fw.py" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "lint fw: a TNG003 finding" '[ $rc -eq 1 ] && grep -q "\"rule\":\"TNG003\"" "$tmp/o"' "exit $rc: $(head -c 300 "$tmp/o")"

# a module the script imports
printf 'def double(ｘ):\n    return x * 2\n' >"$tmp/m/helpers.py"
model 'x = helpers.double(x)' | sed 's/^import torchair$/import torchair\nimport helpers/' >"$tmp/m/main.py"
(cd "$tmp/m" && "$tngc" plan main.py) >"$tmp/o" 2>"$tmp/e"
rc=$?
check "plan: imported module refused" '[ $rc -eq 1 ] && grep -q "helpers.py:1:12: error: .*\[TNG003\]" "$tmp/e"' \
    "exit $rc: $(head -c 300 "$tmp/e")"

# CJK names, non-ASCII strings and comments: planned as usual
"$tngc" plan "$tmp/s/cjk.py" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "plan cjk: exit 0, nothing on stderr" '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ]' "exit $rc: $(head -c 300 "$tmp/e")"
check "plan cjk: the mul is in the graph" 'grep -q "= mul %0, 2" "$tmp/o"'

exit $((fails != 0))
