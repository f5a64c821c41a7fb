#!/bin/sh
# t_rt_install.sh - the launcher's results are all or nothing, also when a
# rename fails: every destination is checked before the first rename, and
# a failure during the renames undoes the ones done (a file replaced keeps
# a second name until the end). The launcher renamed its results one by
# one, so a later failure left the earlier outputs installed.
#
#   --trace DIR      --trace names an existing directory: exit 2, one line,
#                    and no output file changed or appeared
#   output is a dir  out2.npy is a directory: the same
#   --trace OUTPUT   --trace names an output's file: refused, not written
#                    over it
#   roll-back        tngrt_files_install with a rename that fails after the
#                    checks (a temporary on another file system, EXDEV):
#                    the file replaced before it is back, a new one removed
#
# usage: sh t_rt_install.sh BUILD_DIR   (holding libtngcrt.a)
. "$(dirname "$0")/lib.sh"

flags="-std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g -I$root/runtime"
case $build in *san) flags="$flags -fsanitize=address,undefined -fno-sanitize-recover=undefined" ;; esac
libs="$build/libtngcrt.a -lopenblas -lpthread -lm"
# shellcheck disable=SC2086  # word lists
${CC:-cc} $flags -DFAKE_STATIC -o "$tmp/launcher" "$root/templates/launcher.c" \
    "$root/tests/launcher/fake_bundle.c" $libs || { fail build "the launcher does not build"; exit 1; }
data=$tmp/data
mkdir "$data" && python3 "$root/tests/launcher/mknpy.py" make "$data" || { fail data "mknpy.py"; exit 1; }

# fresh DIR: DIR holds out0, out1 and cache__k__.npy from an earlier run
# (their names as contents); out2.npy is left out
fresh() {
    rm -rf "$1" && mkdir "$1"
    for f in out0 out1 cache__k__; do echo "old $f" >"$1/$f.npy"; done
}
# unchanged NAME DIR EXTRA: the three old files as they were, and nothing
# else in DIR but EXTRA
unchanged() {
    for f in out0 out1 cache__k__; do
        if [ "$(cat "$2/$f.npy" 2>/dev/null)" != "old $f" ]; then
            fail "$1" "$f.npy changed"
            return
        fi
    done
    left=$(cd "$2" && ls -A | grep -v -x -e out0.npy -e out1.npy -e cache__k__.npy ${3:+-e "$3"})
    check "$1" '[ -z "$left" ]' "files appeared: $left"
}
run() {
    dir=$1
    shift
    "$tmp/launcher" --weights "$data/w.safetensors" --input "x=$data/x2.npy" --input "y=$data/y.npy" \
        --input "cache['k']=$data/c2.npy" --out-dir "$dir" --warmup 0 --iters 1 "$@" \
        >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
}
refused() {
    needle=$2
    check "$1: exit 2, one line" '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ]' \
        "exit $rc: $(head -c 300 "$tmp/stderr")"
    check "$1: the message" 'grep -Fq -- "$needle" "$tmp/stderr"' "$(cat "$tmp/stderr")"
}

out=$tmp/o1
fresh "$out"
mkdir "$out/tdir"
run "$out" --trace "$out/tdir"
refused "--trace DIR" "is a directory"
unchanged "--trace DIR: no output changed" "$out" tdir
check "--trace DIR: the directory stays empty" '[ -z "$(ls -A "$out/tdir")" ]'

out=$tmp/o2
fresh "$out"
mkdir "$out/out2.npy"
run "$out"
refused "output is a directory" "out2.npy: is a directory"
unchanged "output is a directory: no output changed" "$out" out2.npy

out=$tmp/o3
fresh "$out"
run "$out" --trace "$out/out0.npy"
refused "--trace names an output" "named twice"
unchanged "--trace names an output: no output changed" "$out"

# a good run into the same directory still replaces the old files
out=$tmp/o4
fresh "$out"
run "$out" --trace "$out/t.json"
check "good run: exit 0" '[ $rc -eq 0 ] && [ ! -s "$tmp/stderr" ]' "exit $rc: $(cat "$tmp/stderr")"
check "good run: out0.npy replaced" \
    'python3 "$root/tests/launcher/mknpy.py" same "$out/out0.npy" "$data/exp_out0_2.npy" >/dev/null'
check "good run: nothing else left" \
    '[ "$(ls -A "$out" | tr "\n" " ")" = "cache__k__.npy out0.npy out1.npy out2.npy t.json " ]' \
    "$(ls -A "$out" | tr '\n' ' ')"

# ---- the roll-back, through the library ----
cat >"$tmp/install.c" <<'CEOF'
#include "tngrt.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    return f && fputs(text, f) >= 0 && fclose(f) == 0 ? 0 : -1;
}

/* argv: DIR (the destinations) OTHER (a directory on another file system) */
int main(int argc, char **argv)
{
    char t[3][4096], d[3][4096];
    char *tmp[3] = {t[0], t[1], t[2]}, *dst[3] = {d[0], d[1], d[2]};
    struct stat a, b;
    TngrtError err;
    if (argc != 3 || stat(argv[1], &a) != 0 || stat(argv[2], &b) != 0)
        return 2;
    if (a.st_dev == b.st_dev) {
        puts("skip");
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        snprintf(d[i], sizeof d[i], "%s/f%d", argv[1], i);
        snprintf(t[i], sizeof t[i], "%s/f%d.new", i < 2 ? argv[1] : argv[2], i);
        if (put(t[i], "new\n") != 0)
            return 2;
    }
    if (put(d[0], "old\n") != 0)
        return 2;
    if (tngrt_files_install(tmp, dst, 3, &err) == 0) {
        puts("installed");
        return 1;
    }
    printf("refused: %s\n", err.msg);
    return 0;
}
CEOF
rb=$tmp/rb
mkdir "$rb"
other=$(mktemp -d /dev/shm/tngc-sec.XXXXXX 2>/dev/null) || other=
# shellcheck disable=SC2086
if [ -z "$other" ]; then
    ok "roll-back # skip: no /dev/shm"
elif ${CC:-cc} $flags -o "$tmp/install" "$tmp/install.c" $libs 2>"$tmp/cc.err"; then
    "$tmp/install" "$rb" "$other" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if grep -q '^skip' "$tmp/stdout"; then
        ok "roll-back # skip: /dev/shm is on the same file system"
    else
        check "roll-back: refused" '[ $rc -eq 0 ] && grep -q "^refused: .*f2: cannot rename" "$tmp/stdout"' \
            "exit $rc: $(cat "$tmp/stdout" "$tmp/stderr")"
        check "roll-back: the replaced file is back" '[ "$(cat "$rb/f0")" = old ]'
        check "roll-back: the new file is removed" '[ ! -e "$rb/f1" ]'
        check "roll-back: no second name left" \
            '[ "$(ls -A "$rb" | tr "\n" " ")" = "f0 " ]' "$(ls -A "$rb" | tr '\n' ' ')"
    fi
    rm -rf "$other"
else
    rm -rf "$other"
    fail "roll-back" "tngrt_files_install is missing: $(grep -m1 error "$tmp/cc.err")"
fi

[ $fails -eq 0 ]
