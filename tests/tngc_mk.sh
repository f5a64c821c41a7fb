#!/bin/sh
# tngc.mk, the make rules for users: a clean script gets a stamp, a script
# with findings fails the build and gets none, and a second run re-lints
# nothing that did not change.
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); return 1; fi; }
mkdir -p "$tmp/models"
cp "$root/examples/multi_stream/model.py" "$tmp/models/good.py"
printf 'import torchair as tng\nwith tng.scope.super_kernel("sk", "stream-fusion=2"):\n    pass\n' > "$tmp/models/bad.py"
printf 'TNGC := %s\nTNGC_SOURCES := $(wildcard models/*.py)\ninclude %s/tngc.mk\n' "$tngc" "$root" > "$tmp/Makefile"
make -C "$tmp" -k tngc-lint > "$tmp/out1" 2>&1
t "findings fail the build" '[ $? -ne 0 ]'
t "clean script stamped" '[ -f "$tmp/.tngc/models/good.lint" ]'
t "script with findings not stamped" '[ ! -f "$tmp/.tngc/models/bad.lint" ]'
t "the finding is shown" 'grep -q "bad.py:2:35: error: super_kernel option .stream-fusion. takes 0 or 1, not .2. \[TNG112\]" "$tmp/out1"'
printf 'import torchair as tng\nwith tng.scope.super_kernel("sk", "stream-fusion=1"):\n    pass\n' > "$tmp/models/bad.py"
make -C "$tmp" tngc-lint > "$tmp/out2" 2>&1
t "fixed script passes" '[ $? -eq 0 ] && [ -f "$tmp/.tngc/models/bad.lint" ]'
t "unchanged script not re-linted" '! grep -q "good.py" "$tmp/out2"'
# bundles: one line per model; rebuilt exactly when the script changes
printf 'TNGC := %s\nTNGC_BUNDLES := models/good.py\nTNGC_BUILD_FLAGS := --cache-dir cache\ninclude %s/tngc.mk\n' "$tngc" "$root" > "$tmp/Makefile"
make -C "$tmp" tngc-build > "$tmp/out3" 2>&1
t "bundle built" '[ $? -eq 0 ] && [ -x "$tmp/tngc-out/models/good/good_launcher" ] && [ -f "$tmp/tngc-out/models/good.d" ]'
make -C "$tmp" tngc-build > "$tmp/out4" 2>&1
t "unchanged script: nothing to do" '! grep -q "tngc build" "$tmp/out4"'
sleep 1 && touch "$tmp/models/good.py"
make -C "$tmp" tngc-build > "$tmp/out5" 2>&1
t "touched script: rebuilt from the cache" 'grep -q "cache hit" "$tmp/out5"'
sleep 1 && echo "# a comment" >> "$tmp/models/good.py"
make -C "$tmp" tngc-build > "$tmp/out6" 2>&1
t "changed script: compiled again" 'grep -q "built" "$tmp/out6" && ! grep -q "cache hit" "$tmp/out6"' || cat "$tmp/out6"
# a script whose name is shell syntax is a file name to the recipes, not a command
rm -rf "$tmp/models" "$tmp/.tngc" && mkdir -p "$tmp/models"
cp "$root/examples/multi_stream/model.py" "$tmp/models/x\`>PWNED\`'q'.py"
printf 'TNGC := %s\nTNGC_SOURCES := $(wildcard models/*.py)\ninclude %s/tngc.mk\n' "$tngc" "$root" > "$tmp/Makefile"
make -C "$tmp" tngc-lint tngc-plan tngc-scan > "$tmp/out7" 2>&1
t "a script named x\`>PWNED\`'q'.py: linted and planned, no command run" \
    '[ $? -eq 0 ] && [ ! -e "$tmp/PWNED" ] && [ -f "$tmp/.tngc/models/x\`>PWNED\`'"'q'"'.plan" ]' || cat "$tmp/out7"
# The README's recipe, verbatim: TNGC_BUNDLES is added after the include, so
# tngc.mk must read its variables when make builds, not when it is included.
# Only the include path is the repo's tngc.mk; TNGC comes from the command line.
rm -rf "$tmp/models" "$tmp/.tngc" "$tmp/tngc-out" "$tmp/cache" "$tmp/PWNED" && mkdir -p "$tmp/models"
awk '/^In a project.s Makefile/ { want = 1; next }
     want && /^```make$/ { on = 1; next }
     on && /^```$/ { exit }
     on { print }' "$root/README.md" > "$tmp/recipe.mk"
t "README has the recipe" 'grep -q "^include .*/tngc\.mk$" "$tmp/recipe.mk" && grep -q "TNGC_BUNDLES" "$tmp/recipe.mk"' || cat "$tmp/recipe.mk"
sed "s|^include .*/tngc\.mk\$|include $root/tngc.mk|" "$tmp/recipe.mk" > "$tmp/Makefile"
# decoder.py imports a module of a package beside it (not a script: the
# recipe plans models/*.py): a change to it makes the bundle again
{ echo "import decparts.util"; cat "$root/examples/decoder/model.py"; } > "$tmp/models/decoder.py"
mkdir -p "$tmp/models/decparts" && : > "$tmp/models/decparts/__init__.py" && echo "SCALE = 1" > "$tmp/models/decparts/util.py"
cp "$root/examples/multi_stream/model.py" "$tmp/models/good.py"
launcher="$tmp/tngc-out/models/decoder/decoder_launcher"
make -C "$tmp" TNGC="$tngc" all check > "$tmp/out8" 2>&1
t "README recipe: make all check builds the bundle" '[ $? -eq 0 ] && [ -x "$launcher" ]' || cat "$tmp/out8"
t "README recipe: a lint stamp per script" '[ -f "$tmp/.tngc/models/decoder.lint" ] && [ -f "$tmp/.tngc/models/good.lint" ]'
t "README recipe: a plan per script" '[ -s "$tmp/.tngc/models/decoder.plan" ] && [ -s "$tmp/.tngc/models/good.plan" ]'
make -C "$tmp" TNGC="$tngc" all check > "$tmp/out9" 2>&1
t "README recipe: second make does nothing" '[ $? -eq 0 ] && ! grep -q "tngc " "$tmp/out9"' || cat "$tmp/out9"
sleep 1 && touch "$tmp/models/decoder.py"
make -C "$tmp" TNGC="$tngc" all check > "$tmp/out10" 2>&1
t "README recipe: touched script rebuilt, the other not" \
    '[ $? -eq 0 ] && grep -q "tngc.* build .*decoder\.py" "$tmp/out10" && grep -q "tngc.* lint .*decoder\.py" "$tmp/out10" && ! grep -q "good\.py" "$tmp/out10"' || cat "$tmp/out10"
sleep 1 && echo "# a comment" >> "$tmp/models/decoder.py" && rm -f "$launcher"
make -C "$tmp" TNGC="$tngc" all check > "$tmp/out11" 2>&1
t "README recipe: changed script compiled again" \
    '[ $? -eq 0 ] && [ -x "$launcher" ] && grep -q "decoder: built" "$tmp/out11" && ! grep -q "cache hit" "$tmp/out11"' || cat "$tmp/out11"
sleep 1 && touch "$tmp/models/decparts/util.py"
make -C "$tmp" TNGC="$tngc" all check > "$tmp/out11m" 2>&1
t "README recipe: touched imported module (TNGC_BUNDLES set after the include): bundle and plan made again" \
    '[ $? -eq 0 ] && grep -q "tngc.* build .*decoder\.py" "$tmp/out11m" && grep -q "tngc.* plan .*decoder\.py" "$tmp/out11m" && ! grep -q "good\.py" "$tmp/out11m"' || cat "$tmp/out11m"
make -C "$tmp" TNGC="$tngc" all check > "$tmp/out11n" 2>&1
t "README recipe: then nothing to do" '[ $? -eq 0 ] && ! grep -q "tngc " "$tmp/out11n"' || cat "$tmp/out11n"
printf 'import torchair as tng\nwith tng.scope.super_kernel("sk", "stream-fusion=2"):\n    pass\n' > "$tmp/models/bad.py"
make -C "$tmp" TNGC="$tngc" -k check > "$tmp/out12" 2>&1
t "README recipe: a script with findings fails check, unstamped" \
    '[ $? -ne 0 ] && [ ! -f "$tmp/.tngc/models/bad.lint" ] && grep -q "TNG112" "$tmp/out12" && ! grep -q "decoder\.py" "$tmp/out12"' || cat "$tmp/out12"
rm -f "$tmp/models/bad.py"
# the variables may be set anywhere: TNGC_OUT, TNGC_STAMPS and the lists after the include
printf 'include %s/tngc.mk\nall: tngc-build tngc-lint\nTNGC := %s\nTNGC_SOURCES = $(wildcard models/*.py)\nTNGC_BUNDLES := models/good.py\nTNGC_OUT := late-out\nTNGC_STAMPS := late-stamps\n' "$root" "$tngc" > "$tmp/Makefile"
make -C "$tmp" all > "$tmp/out13" 2>&1
t "variables set after the include: TNGC_OUT and TNGC_STAMPS honoured" \
    '[ $? -eq 0 ] && [ -x "$tmp/late-out/models/good/good_launcher" ] && [ -f "$tmp/late-stamps/models/good.lint" ] && [ -f "$tmp/late-stamps/models/decoder.lint" ]' || cat "$tmp/out13"
# a ';' in a script name is part of the name, not the end of a rule line
rm -rf "$tmp/models" "$tmp/.tngc" && mkdir -p "$tmp/models"
cp "$root/examples/multi_stream/model.py" "$tmp/models/y;touch\${IFS}PWNED;.py"
printf 'TNGC := %s\nTNGC_SOURCES := $(wildcard models/*.py)\ninclude %s/tngc.mk\nTNGC_BUNDLES = $(TNGC_SOURCES)\n' "$tngc" "$root" > "$tmp/Makefile"
make -C "$tmp" tngc-lint tngc-plan tngc-build > "$tmp/out14" 2>&1
t "a script named y;touch\${IFS}PWNED;.py: linted, planned and built (no depfile), no command run" \
    '[ $? -eq 0 ] && [ ! -e "$tmp/PWNED" ] && [ -f "$tmp/.tngc/models/y;touch\${IFS}PWNED;.lint" ] && [ -f "$tmp/.tngc/models/y;touch\${IFS}PWNED;.plan" ] && [ -f "$tmp/tngc-out/models/y;touch\${IFS}PWNED;.built" ]' || cat "$tmp/out14"
make -C "$tmp" tngc-lint tngc-plan tngc-build > "$tmp/out15" 2>&1
t "a script named y;touch\${IFS}PWNED;.py: second make does nothing" '[ $? -eq 0 ] && ! grep -q "tngc " "$tmp/out15"' || cat "$tmp/out15"
echo "tngc.mk: $pass passed, $fail failed"
[ $fail -eq 0 ]
