#!/bin/sh
# Modules and imports (tests/imports/): a model whose class comes from a
# package beside the script (its plan against a golden, its depfile listing
# every file read, a build whose cache key and tngc.mk rule follow the
# imported files, its bundle against PyTorch), an import cycle, modules
# found through -I and TNGC_PATH, external modules (one TNG202 naming the
# module and the name), errors in imported files (at their file:line:col),
# relative imports beyond the top-level package, and module files that
# leave their search-path folder (never read).
# usage: tests/imports.sh TNGC        UPDATE=1 rewrites the goldens
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/tests/imports
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-imports.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); return 1; fi; }
# golden NAME FILE: FILE equals tests/imports/NAME (UPDATE=1 writes it)
golden() {
    g_name=$1 g_file=$2
    if [ "${UPDATE:-0}" = 1 ]; then cp "$g_file" "$here/$g_name"; fi
    t "$g_name matches its golden" 'diff -u "$here/$g_name" "$g_file"' || true
}
cd "$here" || exit 2

# the model: plan golden, with ops from pkg/layers.py, pkg/utils.py, pkg/model.py
"$tngc" plan run_model.py > "$tmp/run_model.plan" 2> "$tmp/err"
t "plan run_model.py" '[ $? -eq 0 ] && [ ! -s "$tmp/err" ]' || cat "$tmp/err"
golden run_model.plan "$tmp/run_model.plan"

# -MD: every file read
"$tngc" gen run_model.py -o "$tmp/gen" -MD > /dev/null 2>&1
t "gen -MD" '[ -f "$tmp/gen/run_model.d" ]'
for f in run_model.py pkg/__init__.py pkg/layers.py pkg/utils.py pkg/model.py; do
    t "depfile lists $f" 'head -n 1 "$tmp/gen/run_model.d" | tr " " "\n" | grep -qx "$f"'
    t "depfile has a phony rule for $f" 'grep -qx "$f:" "$tmp/gen/run_model.d"'
done

# the cache key covers the imported files
mkdir -p "$tmp/m" && cp -R run_model.py pkg "$tmp/m/"
(cd "$tmp/m" && "$tngc" build run_model.py -o out --cache-dir cache) > "$tmp/b1" 2>&1
t "build" '[ -x "$tmp/m/out/run_model_launcher" ]' || cat "$tmp/b1"
(cd "$tmp/m" && "$tngc" build run_model.py -o out --cache-dir cache) > "$tmp/b2" 2>&1
t "unchanged files: a cache hit" 'grep -q "cache hit" "$tmp/b2"'
sed 's/torch.tanh(x) \* k/torch.sigmoid(x) * k/' pkg/utils.py > "$tmp/m/pkg/utils.py"
(cd "$tmp/m" && "$tngc" build run_model.py -o out --cache-dir cache) > "$tmp/b3" 2>&1
t "changed imported file: compiled again" 'grep -q "built" "$tmp/b3" && ! grep -q "cache hit" "$tmp/b3"'
t "changed imported file: its op in the bundle" 'cat "$tmp"/m/out/run_model*.c | grep -q "sigmoid"'

# tngc.mk: a bundle is rebuilt when a module it imports changes
cp pkg/utils.py "$tmp/m/pkg/utils.py"
printf 'TNGC := %s\nTNGC_BUNDLES := run_model.py\nTNGC_BUILD_FLAGS := --cache-dir cache\ninclude %s/tngc.mk\n' \
    "$tngc" "$root" > "$tmp/m/Makefile"
make -C "$tmp/m" tngc-build > "$tmp/mk1" 2>&1
t "tngc.mk: bundle built" '[ $? -eq 0 ] && grep -qx "pkg/layers.py:" "$tmp/m/tngc-out/run_model.d"' || cat "$tmp/mk1"
make -C "$tmp/m" tngc-build > "$tmp/mk2" 2>&1
t "tngc.mk: nothing to do" '! grep -q "tngc build" "$tmp/mk2"'
sleep 1 && echo "# changed" >> "$tmp/m/pkg/layers.py"
make -C "$tmp/m" tngc-build > "$tmp/mk3" 2>&1
t "tngc.mk: imported file changed: rebuilt" 'grep -q "tngc build" "$tmp/mk3"' || cat "$tmp/mk3"

# a script inside a package: run as `python -m pkg.run_rel`, relative imports work
"$tngc" gen pkg/run_rel.py -o "$tmp/rel" -MD > /dev/null 2> "$tmp/err"
t "script in a package: relative imports" '[ $? -eq 0 ] && [ "$(head -n 1 "$tmp/rel/run_rel.d")" = "$tmp/rel/run_rel.h $tmp/rel/run_rel.c $tmp/rel/run_rel_launcher.c: pkg/run_rel.py pkg/__init__.py pkg/layers.py pkg/utils.py" ]' || { cat "$tmp/err"; head -n 1 "$tmp/rel/run_rel.d"; }
(cd pkg && "$tngc" plan run_rel.py) > "$tmp/rel.plan" 2> "$tmp/err"
t "... from the package's folder" '[ $? -eq 0 ] && grep -q "# ../pkg/layers.py:16:13" "$tmp/rel.plan"' || cat "$tmp/err"

# tngc.mk: a plan is remade when a module its script imports changes
printf 'TNGC := %s\nTNGC_SOURCES := run_model.py\ninclude %s/tngc.mk\n' "$tngc" "$root" > "$tmp/m/Makefile"
make -C "$tmp/m" tngc-plan > "$tmp/mk4" 2>&1
t "tngc.mk: plan made" '[ $? -eq 0 ] && [ -f "$tmp/m/.tngc/run_model.plan" ] && grep -qx "pkg/utils.py:" "$tmp/m/.tngc/run_model.plan.d"' || cat "$tmp/mk4"
make -C "$tmp/m" tngc-plan > "$tmp/mk5" 2>&1
t "tngc.mk: plan up to date" '! grep -q "tngc plan" "$tmp/mk5"'
sleep 1 && echo "# changed" >> "$tmp/m/pkg/utils.py"
make -C "$tmp/m" tngc-plan > "$tmp/mk6" 2>&1
t "tngc.mk: imported file changed: plan remade" 'grep -q "tngc plan" "$tmp/mk6"' || cat "$tmp/mk6"
"$tngc" plan run_model.py -MF "$tmp/x.d" > /dev/null 2> "$tmp/err"
t "plan -MF needs -o or -MT" '[ $? -eq 2 ] && grep -q "needs a target" "$tmp/err"'

# an import cycle: each module sees the other, partially initialised
"$tngc" plan cycle.py > "$tmp/cycle.plan" 2> "$tmp/err"
t "import cycle plans" '[ $? -eq 0 ] && grep -q "relu" "$tmp/cycle.plan"' || cat "$tmp/err"

# the compile call, its config and the gears in a module, the call in the script
"$tngc" plan factory.py > "$tmp/factory.plan" 2> "$tmp/err"
t "compiled in a module" '[ $? -eq 0 ] && grep -q "^entry Model.forward  # pkg/factory.py:12:12" "$tmp/factory.plan" && grep -q "^config mode=reduce-overhead" "$tmp/factory.plan" && grep -q "values=\[2,4\]" "$tmp/factory.plan"' || cat "$tmp/err"

# from m import * with __all__; an imported module's __name__ and main guard
"$tngc" plan star.py > "$tmp/star.plan" 2> "$tmp/err"
t "star import, __name__" '[ $? -eq 0 ] && grep -q "relu %0  # helpers.py:10:12" "$tmp/star.plan"' || cat "$tmp/err"

# the search path: -I DIR, TNGC_PATH
"$tngc" plan search.py > /dev/null 2> "$tmp/err"
t "search.py without -I or TNGC_PATH: external modules" '[ $? -eq 1 ] && [ "$(grep -c "TNG202" "$tmp/err")" = 2 ]'
t "external: names the module and the name" 'grep -q "call of .extra_mod.act. from the external module .extra_mod." "$tmp/err"'
TNGC_PATH=/nonexistent:envdir "$tngc" plan -I extra search.py > "$tmp/search.plan" 2> "$tmp/err"
t "-I and TNGC_PATH" '[ $? -eq 0 ] && grep -q "sigmoid" "$tmp/search.plan" && grep -q "tanh" "$tmp/search.plan"' || cat "$tmp/err"
TNGC_PATH=envdir "$tngc" plan -Iextra search.py > /dev/null 2>&1
t "-IDIR (one word)" '[ $? -eq 0 ]'
TNGC_PATH=extra "$tngc" plan search.py > /dev/null 2> "$tmp/err"
t "only the folders named" '[ $? -eq 1 ] && grep -q "external module .env_mod." "$tmp/err" && ! grep -q "external module .extra_mod." "$tmp/err"'

# external modules: one TNG202 per use in the graph, naming module and name
"$tngc" plan external.py > /dev/null 2> "$tmp/external.err"
t "external.py fails" '[ $? -eq 1 ]'
golden external.err "$tmp/external.err"

# errors in imported files, relative imports
"$tngc" plan syntax.py > /dev/null 2> "$tmp/err"
t "syntax error in an imported file: at its file:line:col" '[ $? -eq 1 ] && grep -q "^bad/broken.py:5:1: error: .*\[TNG001\]" "$tmp/err"'
"$tngc" plan beyond.py > /dev/null 2> "$tmp/err"
t "relative import beyond the top-level package" '[ $? -eq 1 ] && grep -q "^pkg/beyond.py:2:1: error: attempted relative import beyond top-level package" "$tmp/err"'
"$tngc" plan relmain.py > /dev/null 2> "$tmp/err"
t "relative import in the script" '[ $? -eq 1 ] && grep -q "^relmain.py:2:1: error: attempted relative import with no known parent package" "$tmp/err"'

# a module file that leaves its folder (a symlink out of it) is never read
mkdir -p "$tmp/s/outside" "$tmp/s/in"
printf 'import torch\ndef act(x):\n    return torch.relu(x)\n' > "$tmp/s/outside/evil.py"
ln -s ../outside/evil.py "$tmp/s/in/evil.py"
printf 'import torch\nimport torchair\nimport evil\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return evil.act(x)\nm = torch.compile(M(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)\nm(torch.randn(2, 2))\n' > "$tmp/s/in/run.py"
"$tngc" plan "$tmp/s/in/run.py" > /dev/null 2> "$tmp/err"
t "a symlink out of the search-path folder is not followed" '[ $? -eq 1 ] && grep -q "external module .evil." "$tmp/err"'
"$tngc" gen "$tmp/s/in/run.py" -o "$tmp/s/gen" -MD > /dev/null 2>&1
t "... and not in the depfile" '! grep -q "evil" "$tmp/s/gen/"*.d 2>/dev/null'

# the limits: 256 modules a run, imports 64 deep (TNG212)
mkdir -p "$tmp/lim1" "$tmp/lim2"
i=0
while [ $i -lt 300 ]; do
    echo "X = $i" > "$tmp/lim1/m$i.py"
    echo "import m$i" >> "$tmp/lim1/run.py"
    echo "import n$((i + 1))" > "$tmp/lim2/n$i.py"
    i=$((i + 1))
done
echo "import n0" > "$tmp/lim2/run.py"
"$tngc" plan "$tmp/lim1/run.py" > /dev/null 2> "$tmp/err"
t "at most 256 modules" '[ $? -eq 1 ] && grep -q "run.py:257:1: error: the script imports more than 256 modules.*\[TNG212\]" "$tmp/err"'
"$tngc" plan "$tmp/lim2/run.py" > /dev/null 2> "$tmp/err"
t "imports at most 64 deep" '[ $? -eq 1 ] && grep -q "n63.py:1:1: error: imports nested more than 64 deep.*\[TNG212\]" "$tmp/err"'

# the ACL target: an op's error location names its module
(ASCEND_TOOLKIT_HOME=$root/tests/acl/cann "$tngc" build --target acl --no-cache -o "$tmp/acl" run_model.py) > /dev/null 2> "$tmp/err"
t "--target acl builds (-Werror)" '[ $? -eq 0 ] && [ -f "$tmp/acl/librun_model.a" ] && grep -q "pkg/utils.py:9:12: tanh" "$tmp/acl/run_model.c"' || cat "$tmp/err"

# the bundle of the model imported from a sibling module against PyTorch
if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
    sh "$root/tests/conform/run.sh" "$tngc" "$here/run_model.py" > "$tmp/conform" 2>&1
    t "run_model.py matches PyTorch (tests/conform/run.sh)" '[ $? -eq 0 ]' || cat "$tmp/conform"
fi

echo "imports: $pass passed, $fail failed"
[ $fail -eq 0 ]
