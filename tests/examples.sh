#!/bin/sh
# Every example script lints clean (exit 0, no output) and scans without
# diagnostics; the recompile example's list matches its reference script's.
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
for py in "$root"/examples/*/*.py; do
    out=$("$tngc" lint "$py" 2>&1)
    if [ $? -eq 0 ] && [ -z "$out" ]; then
        pass=$((pass + 1))
    else
        echo "FAIL lint $py:"; echo "$out"; fail=$((fail + 1))
    fi
    # an example's scripts (its Makefile's TNGC_BUNDLES) have annotations;
    # its other .py files are modules (the recompile example's log script
    # has neither)
    case " $(sed -n 's/^TNGC_BUNDLES *:= *//p' "$(dirname "$py")/Makefile" 2>/dev/null) " in
    *" $(basename "$py") "*) ;;
    *) continue ;;
    esac
    if "$tngc" scan --format json "$py" | grep -q '"resolved":true'; then
        pass=$((pass + 1))
    else
        echo "FAIL scan $py: no resolved annotation"; fail=$((fail + 1))
    fi
done
echo "examples: $pass passed, $fail failed"
[ $fail -eq 0 ]
