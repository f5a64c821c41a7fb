# Sourced by the tests that run ACL bundles against the mock runtime
# (mock_faults.sh, nz_reuse.sh) after `set -u` with $1 = TNGC: the test
# counters, a mock CANN built in $tmp/fakecann, and how to build a model's
# bundle with the driver (tests/acl/mock_driver.c) and run it on the mock.
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
librt=$(dirname "$tngc")/libtngcrt.a
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
lines() { wc -l < "$1" | tr -d ' '; }
cc=${CC:-clang}
fake=$tmp/fakecann
sh "$here/mock/build.sh" "$fake" >"$tmp/e" 2>&1
t "the mock runtime builds" '[ $? -eq 0 ] || { head "$tmp/e"; false; }'
mk() { /usr/bin/python3 "$here/data.py" "$@" || python3 "$here/data.py" "$@"; }

# Builds $tmp/MODEL/model.py for the mock and links $tmp/MODEL/driver; a
# SANITIZE=1 tngc builds bundles with ASan and UBSan, and so is the driver
# ($san is set then). The first check's name is "MODEL: <what>".
san=
build_driver() {   # model what-the-build-check-says [extra test of the build]
    m=$1
    (cd "$tmp/$m" && "$tngc" build --target acl --acl-home "$fake" --no-cache -o out model.py) >"$tmp/o" 2>&1
    t "$m: $2" "[ \$? -eq 0 ] ${3:+&& $3} || { head -5 \"\$tmp/o\"; false; }"
    nm "$tmp/$m/out/libmodel.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined -fno-omit-frame-pointer"
    $cc -std=c11 -g $san -DBUNDLE=model -DBUNDLE_H='"model.h"' -I"$tmp/$m/out" -I"$root/runtime" \
        -o "$tmp/$m/driver" "$here/mock_driver.c" "$tmp/$m/out/libmodel.a" "$librt" -L"$fake/lib64" \
        -Wl,-rpath,"$fake/lib64" -lascendcl -lopenblas -lpthread -lm 2>"$tmp/e"
    t "$m: the driver links" '[ $? -eq 0 ] || { head -5 "$tmp/e"; false; }'
}

run_mock() {   # model env... command... -> $tmp/log, $tmp/o, $tmp/e; status in rc
    d=$tmp/$1
    shift
    rm -f "$tmp/log" "$tmp/calls"
    (cd "$d" && env TNGC_ACL_MOCK_LOG="$tmp/log" "$@") >"$tmp/o" 2>"$tmp/e"
    rc=$?
}
