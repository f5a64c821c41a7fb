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
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
mkdir -p "$tmp/models"
cp "$root/examples/multi_stream/model.py" "$tmp/models/good.py"
printf 'import torchair as tng\nwith tng.scope.npu_stream_switch(1):\n    pass\n' > "$tmp/models/bad.py"
printf 'TNGC := %s\nTNGC_SOURCES := $(wildcard models/*.py)\ninclude %s/tngc.mk\n' "$tngc" "$root" > "$tmp/Makefile"
make -C "$tmp" -k tngc-lint > "$tmp/out1" 2>&1
t "findings fail the build" '[ $? -ne 0 ]'
t "clean script stamped" '[ -f "$tmp/.tngc/models/good.lint" ]'
t "script with findings not stamped" '[ ! -f "$tmp/.tngc/models/bad.lint" ]'
t "the finding is shown" 'grep -q "bad.py:2:34: error: stream tag must be a string \[TNG102\]" "$tmp/out1"'
printf 'import torchair as tng\nwith tng.scope.npu_stream_switch("1"):\n    pass\n' > "$tmp/models/bad.py"
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
echo "tngc.mk: $pass passed, $fail failed"
[ $fail -eq 0 ]
