# tests/security/lib.sh - what every t_*.sh starts with (sourced; $1 is the
# build directory holding tngc and libtngcrt.a): $build, $tngc, $here (this
# folder), $root (the repository), $tmp (a private directory removed on
# exit), and ok/fail/check, which count failures in $fails.
set -u
build=$(cd "${1:-build}" && pwd) || exit 2
tngc=$build/tngc
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-sec.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
# check NAME SHELL-CONDITION [WHY]
check() { if eval "$2"; then ok "$1"; else fail "$1" "${3:-$2}"; fi; }
# fake_launcher: builds $tmp/launcher, the launcher template over the fake
# bundle of tests/launcher (static gears, one weight 'w' f32[4]) and
# $build/libtngcrt.a (sanitized in a *san build), and makes its data
# (mknpy.py) in $data=$tmp/data; exits the script when either fails.
fake_launcher() {
    fl_flags="-std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g -I$root/runtime"
    case $build in *san) fl_flags="$fl_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined" ;; esac
    # shellcheck disable=SC2086  # word lists
    ${CC:-cc} $fl_flags -DFAKE_STATIC -o "$tmp/launcher" "$root/templates/launcher.c" \
        "$root/tests/launcher/fake_bundle.c" "$build/libtngcrt.a" -lopenblas -lpthread -lm \
        || { fail build "the launcher does not build"; exit 1; }
    data=$tmp/data
    mkdir "$data" && python3 "$root/tests/launcher/mknpy.py" make "$data" || { fail data "mknpy.py"; exit 1; }
}
# fake_run NAME WEIGHTS [ARG...]: $tmp/launcher (fake_launcher) on the
# data's gear-2 inputs with --weights WEIGHTS under a 10 s limit, stdout
# and stderr in $tmp/stdout and $tmp/stderr, the status in $rc and the
# seconds in $s; returns 1 (a failure counted) when it ran out of time
fake_run() {
    fr_name=$1 fr_w=$2
    shift 2
    rm -rf "$tmp/out" && mkdir "$tmp/out"
    fr_t0=$(date +%s)
    timeout 10 "$tmp/launcher" --weights "$fr_w" --input "x=$data/x2.npy" \
        --input "y=$data/y.npy" --input "cache['k']=$data/c2.npy" --out-dir "$tmp/out" \
        --warmup 0 --iters 1 "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    s=$(($(date +%s) - fr_t0))
    if [ $rc -eq 124 ]; then fail "$fr_name" "still running after 10 s"; return 1; fi
    return 0
}
# fake_expect NAME RC LINES NEEDLE: the last run exited RC with LINES
# lines on stderr, NEEDLE (fixed text, "" for any) among them
fake_expect() {
    fe_want=$2 fe_lines=$3 fe_needle=$4
    check "$1 (${s}s)" '[ $rc -eq $fe_want ] && [ "$(wc -l <"$tmp/stderr")" -eq $fe_lines ] && { [ -z "$fe_needle" ] || grep -Fq -- "$fe_needle" "$tmp/stderr"; }' \
        "exit $rc: $(head -c 300 "$tmp/stderr")"
}
