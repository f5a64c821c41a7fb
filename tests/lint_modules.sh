#!/bin/sh
# lint follows configs and backends across modules (tests/lint_modules/):
# a script that compiles with a backend or config built in a module it
# imports (from/import/as/relative/star, found in the script's folder, -I,
# TNGC_PATH, through a module that imports it from another, in an import
# cycle) gets the compile-dependent rules as if the config were in the
# script (goldens: <case>.err); a field of an imported config set in the
# script is checked at its line there; the module's own findings are
# reported once, in the module; each module is read once per run.
# usage: tests/lint_modules.sh TNGC        UPDATE=1 rewrites the goldens
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/tests/lint_modules
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-lintmod.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 1' INT TERM
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); return 1; fi; }
cd "$here" || exit 2
unset TNGC_PATH

# golden CASE ARGS...: `tngc lint ARGS` writes tests/lint_modules/CASE.err
golden() {
    g_name=$1
    shift
    "$tngc" lint "$@" > "$tmp/$g_name.err" 2>&1
    if [ "${UPDATE:-0}" = 1 ]; then cp "$tmp/$g_name.err" "$here/$g_name.err"; fi
    t "$g_name matches its golden" 'diff -u "$here/$g_name.err" "$tmp/$g_name.err"' || true
}
golden run_wait run_wait.py
golden run_module_attr run_module_attr.py
golden run_single run_single.py
golden run_dump run_dump.py
golden run_rel pkg/run_rel.py
golden cycle cycle_a.py cycle_b.py
golden run_gears -I incdir run_gears.py
TNGC_PATH=/nonexistent:$here/envdir golden run_env run_env.py

# clean: the config is max-autotune / overridden here; gears without -I
# see no config (silent)
for f in run_clean.py run_override.py run_gears.py compile_utils.py; do
    out=$("$tngc" lint "$f" 2>&1)
    t "$f lints clean" '[ $? -eq 0 ] && [ -z "$out" ]' || echo "$out"
done
# the module's own finding (TNG162) once, in the module, with the script
"$tngc" lint --format json run_clean.py max_autotune.py > "$tmp/both.json"
t "a module's finding is reported in the module only" \
  '[ "$(grep -o "\"rule\":\"TNG162\"" "$tmp/both.json" | wc -l)" -eq 1 ] && grep -q "\"path\":\"max_autotune.py\"" "$tmp/both.json" && ! grep -q "run_clean" "$tmp/both.json"'
# json names the file of each finding
"$tngc" lint --format json run_single.py > "$tmp/single.json"
t "json names the script" 'grep -q "\"path\":\"run_single.py\".*\"rule\":\"TNG101\"" "$tmp/single.json" && grep -q "single_stream.py:5" "$tmp/single.json"'
# imports are followed by tngc scan too (no new output, no failure)
t "scan with modules" '"$tngc" scan run_wait.py > /dev/null'
# each module read once per run (where strace is available)
if command -v strace > /dev/null 2>&1 && strace -f -o /dev/null true 2> /dev/null; then
    strace -f -e trace=open,openat -o "$tmp/trace" "$tngc" lint run_wait.py run_dump.py run_override.py run_module_attr.py > /dev/null 2>&1
    t "compile_utils.py read once for four scripts" '[ "$(grep -c "compile_utils.py\", O_RDONLY" "$tmp/trace")" -eq 1 ]' || grep compile_utils "$tmp/trace"
fi

echo "lint-modules: $pass passed, $fail failed"
[ $fail -eq 0 ]
