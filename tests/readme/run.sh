#!/bin/sh
# The README's "Using it" section, walked as a new user walks it, from an
# install prefix: every command below is first looked up, character for
# character, in README.md (a command the README no longer says fails the
# test, which then needs the new one), then run in a copy of the
# repository's examples with build/tngc standing for the installed tngc:
# lint (text, SARIF, an older TorchAir), plan (text, DOT and, where
# graphviz is installed, SVG; JSON of one entry), build, the launcher's
# --help, weights from a torch.save checkpoint (--list-weights,
# --check-weights, a run with inputs made by numpy), a C program linked
# with pkg-config, and tngc.mk with the recipe's variables set after the
# include, rebuilt when a module the script imports is touched.
#
# usage: sh tests/readme/run.sh TNGC     (the plain build: `make install`
# installs it; with a sanitized TNGC the walk is skipped, as the installed
# runtime is the plain build's)
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
readme=$root/README.md
case $tngc in */san/*) echo "readme: skipped (a sanitized tngc: make install installs the plain build)"; exit 0 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-readme.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); return 1; fi; }
# said CMD: the README says CMD (a whole line of a code block, or a part of one)
said() {
    if grep -qF -- "$1" "$readme"; then return 0; fi
    echo "FAIL the README no longer says: $1"
    fail=$((fail + 1))
    return 1
}
# walk CMD: said, then run by sh in the current folder; output in $tmp/o, status in $rc
walk() {
    said "$1" || { rc=99; return; }
    sh -c "$1" >"$tmp/o" 2>&1
    rc=$?
}

make -s -C "$root" install PREFIX="$tmp/prefix" BUILD="$(dirname "$tngc")" >"$tmp/inst.log" 2>&1
t "make install PREFIX=..." '[ $? -eq 0 ] && [ -x "$tmp/prefix/bin/tngc" ]' || { cat "$tmp/inst.log"; exit 1; }
# the walk's tree: the examples and the stand-ins, build/tngc the installed one
mkdir -p "$tmp/w/build" "$tmp/w/tests/ref"
cp -R "$root/examples" "$tmp/w/" && cp -R "$root/tests/ref/stubs" "$tmp/w/tests/ref/"
ln -s "$tmp/prefix/bin/tngc" "$tmp/w/build/tngc"
export XDG_CACHE_HOME="$tmp/cache"
# python3: Debian's, with python3-torch (the set-up installs it), before any other
PATH=/usr/bin:/bin:$PATH
cd "$tmp/w" || exit 2

# ---- as a pre-commit linter ----
walk 'build/tngc lint --soc Ascend910_9391 examples/*/*.py'
t "lint: the examples are clean (exit 0)" '[ $rc -eq 0 ]' || head -5 "$tmp/o"
walk 'build/tngc lint --format sarif examples/*/*.py > tngc.sarif'
t "lint --format sarif" '[ $rc -eq 0 ] && grep -q "\"version\":\"2.1.0\"" tngc.sarif'
walk 'build/tngc lint --torchair 770a4d54 examples/*/*.py'
t "lint --torchair 770a4d54" '[ $rc -le 1 ] && ! grep -q "usage" "$tmp/o"' || head -5 "$tmp/o"

# ---- what the compiler makes of a model ----
walk 'build/tngc plan examples/decoder/model.py'
t "plan: the text dump" '[ $rc -eq 0 ] && grep -q "gear" "$tmp/o"' || head -5 "$tmp/o"
walk 'build/tngc plan --format dot examples/multi_stream/model.py > ms.dot'
t "plan --format dot: one digraph" '[ $rc -eq 0 ] && [ "$(grep -c "^digraph" ms.dot)" = 1 ]'
if command -v dot >/dev/null 2>&1; then
    walk 'dot -Tsvg ms.dot > ms.svg'
    t "graphviz draws it" '[ $rc -eq 0 ] && grep -q "<svg" ms.svg'
fi
walk 'build/tngc plan --entry Model.decode --format json examples/cache_compile/prefill_decode.py'
t "plan --entry --format json" '[ $rc -eq 0 ] && python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$tmp/o"' ||
    head -5 "$tmp/o"

# ---- a program that runs with no Python ----
export PYTHONPATH="$tmp/w/tests/ref/stubs"   # the README's stand-ins for torch_npu and torchair
said 'export PYTHONPATH=$PWD/../../tests/ref/stubs'
walk 'cd examples/decoder'
cd examples/decoder || exit 2
walk '../../build/tngc build model.py -o out'
t "build: the launcher and the library" '[ $rc -eq 0 ] && [ -x out/model_launcher ] && [ -f out/libmodel.a ] && [ -f out/model.h ]' ||
    head -5 "$tmp/o"
walk 'out/model_launcher --help'
t "the launcher's --help lists inputs, weights, outputs, gears" '[ $rc -eq 0 ] && grep -q "^inputs" "$tmp/o" &&
    grep -q "^weights: 21" "$tmp/o" && grep -q "^gears" "$tmp/o"'
walk "python3 -c \"import torch; from model import Decoder; torch.save(Decoder().state_dict(), 'model.pt')\""
t "a torch.save checkpoint" '[ $rc -eq 0 ] && [ -s model.pt ]' || head -5 "$tmp/o"
walk 'out/model_launcher --list-weights'
t "--list-weights: every weight" '[ $rc -eq 0 ] && grep -q "lm_head.weight" "$tmp/o"' || head -5 "$tmp/o"
walk 'out/model_launcher --check-weights model.pt'
t "--check-weights: the checkpoint loads" '[ $rc -eq 0 ]' || head -5 "$tmp/o"
walk "python3 -c \"import numpy as np; np.save('tokens.npy', np.array([[3], [7]])); np.save('mask.npy', np.zeros((1, 1, 1, 16), np.float32)); np.save('cache.npy', np.zeros((2, 16, 64), np.float32))\""
t "inputs made by numpy" '[ $rc -eq 0 ] && [ -s tokens.npy ] && [ -s cache.npy ]'
walk "out/model_launcher --weights model.pt --input tokens=tokens.npy --input attn_mask=mask.npy --input 'k_caches[0]=cache.npy' --input 'k_caches[1]=cache.npy' --input 'v_caches[0]=cache.npy' --input 'v_caches[1]=cache.npy' --out-dir res --iters 100 --trace t.json"
t "the run: outputs, trace, latency" '[ $rc -eq 0 ] && [ -s res/out0.npy ] && [ -s t.json ] && grep -q "p50" "$tmp/o"' ||
    head -5 "$tmp/o"
# ... and its logits are PyTorch's for the same weights and inputs
python3 - >"$tmp/o" 2>&1 <<'PY'
import numpy as np, torch
from model import Decoder
m = Decoder()
m.load_state_dict(torch.load('model.pt'))
tokens = torch.from_numpy(np.load('tokens.npy'))
mask = torch.from_numpy(np.load('mask.npy'))
caches = [torch.from_numpy(np.load('cache.npy')) for _ in range(4)]
with torch.no_grad():
    want = m(tokens, mask, caches[:2], caches[2:]).numpy()
got = np.load('res/out0.npy')
err = float(np.abs(got - want).max())
print('max |tngc - torch| =', err)
raise SystemExit(0 if got.shape == want.shape and err < 1e-4 else 1)
PY
t "the launcher's logits match PyTorch's" '[ $? -eq 0 ]' || cat "$tmp/o"

# ---- a C program on the bundle's API, linked with pkg-config ----
said 'cc -Iout app.c out/libmodel.a $(pkg-config --cflags --libs tngcrt)'
cat >app.c <<'C'
#include "model.h"

#include <stdio.h>

int main(void)
{
    TngrtError err;
    model_t *b = NULL;
    if (model_create(&b, &err) != 0) {
        fprintf(stderr, "create: %s\n", err.msg);
        return 1;
    }
    const TngrtBundleDesc *sig = model_signature(b);
    printf("%s: %d inputs, %d outputs\n", sig->entry, sig->ninputs, sig->noutputs);
    model_destroy(b);
    return 0;
}
C
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" sh -c 'cc -Iout app.c out/libmodel.a $(pkg-config --cflags --libs tngcrt)' \
    >"$tmp/o" 2>&1
t "cc ... \$(pkg-config --cflags --libs tngcrt) links it" '[ $? -eq 0 ] && ./a.out | grep -q "forward: 6 inputs, 1 outputs"' ||
    head -5 "$tmp/o"
cd "$tmp/w" || exit 2

# ---- tngc.mk in a project's Makefile, as the README writes it ----
mkdir -p proj/models/layers
cp examples/decoder/model.py proj/models/decoder.py
printf 'SCALE = 1.0\n' >proj/models/layers/consts.py
: >proj/models/layers/__init__.py
sed -i 's/^import torch$/import torch\nfrom layers.consts import SCALE/' proj/models/decoder.py
awk '/^```make$/ { on = 1; next } on && /^```$/ { exit } on' "$readme" |
    sed "s|/usr/local/share/tngc/tngc.mk|$tmp/prefix/share/tngc/tngc.mk|" >proj/Makefile
t "the README's make fragment" 'grep -q "^TNGC_BUNDLES += models/decoder.py" proj/Makefile && grep -q "^include $tmp/prefix" proj/Makefile'
(cd proj && PYTHONPATH= env PATH=/usr/bin:/bin make all) >"$tmp/o" 2>&1
t "make all: plans and the bundle, tngc found beside tngc.mk" \
  '[ $? -eq 0 ] && [ -x proj/tngc-out/models/decoder/decoder_launcher ] && [ -f proj/.tngc/models/decoder.plan ]' ||
    tail -5 "$tmp/o"
(cd proj && env PATH=/usr/bin:/bin make all) >"$tmp/o" 2>&1
t "make all again: nothing to do" '[ $? -eq 0 ] && ! grep -q "tngc build\|tngc plan" "$tmp/o"' || tail -5 "$tmp/o"
sleep 1 && touch proj/models/layers/consts.py
(cd proj && env PATH=/usr/bin:/bin make all) >"$tmp/o" 2>&1
t "an imported module touched: the bundle and the plan are made again" \
  '[ $? -eq 0 ] && grep -q "tngc build" "$tmp/o" && grep -q "tngc plan" "$tmp/o"' || tail -5 "$tmp/o"

echo "readme: $pass passed, $fail failed"
[ $fail -eq 0 ]
