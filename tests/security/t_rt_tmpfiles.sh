#!/bin/sh
# t_rt_tmpfiles.sh - libtngcrt and the launcher write their files through
# temporaries that another user cannot plant: each is created with O_EXCL
# and O_NOFOLLOW under a random name in the destination's directory. They
# used fopen("wb") on "<file>.tmp.<pid>" (the launcher's npy writes even on
# "<file>.tmp.<pid>.tmp.<pid>"), so a symlink planted at such a name in a
# shared output directory made a run overwrite the file it points to.
#
#   launcher   run under a known pid (sh -c '...; exec launcher'), with a
#              symlink to a victim file at every name the old scheme used
#              for each output and the trace: the victim is untouched and
#              the outputs are right
#   library    tngrt_npy_write and tngrt_trace_write with symlinks at
#              "<path>.tmp.<pid>": the same
#   names      tngrt_npy_write_temp twice for one path in one process: two
#              different names "<path>.tmp.<12 of [A-Za-z0-9]>", neither
#              "<path>.tmp.<pid>", each a regular file of mode 0666 & ~umask
#
# usage: sh t_rt_tmpfiles.sh BUILD_DIR   (holding libtngcrt.a)
. "$(dirname "$0")/lib.sh"

flags="-std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g -I$root/runtime"
case $build in *san) flags="$flags -fsanitize=address,undefined -fno-sanitize-recover=undefined" ;; esac
libs="$build/libtngcrt.a -lopenblas -lpthread -lm"
# shellcheck disable=SC2086  # word lists
${CC:-cc} $flags -DFAKE_STATIC -o "$tmp/launcher" "$root/templates/launcher.c" \
    "$root/tests/launcher/fake_bundle.c" $libs || { fail build "the launcher does not build"; exit 1; }
data=$tmp/data
mkdir "$data" && python3 "$root/tests/launcher/mknpy.py" make "$data" || { fail data "mknpy.py"; exit 1; }
victim=$tmp/victim
printf 'precious\n' >"$victim"

# ---- the launcher, under a known pid ----
out=$tmp/out
mkdir "$out"
# shellcheck disable=SC2016  # $$ and "$@" belong to the inner shell
sh -c 'v=$1 o=$2; shift 2
       for f in out0.npy out1.npy out2.npy cache__k__.npy t.json; do
           ln -s "$v" "$o/$f.tmp.$$"; ln -s "$v" "$o/$f.tmp.$$.tmp.$$"
       done
       exec "$@"' sh "$victim" "$out" "$tmp/launcher" --weights "$data/w.safetensors" \
    --input "x=$data/x2.npy" --input "y=$data/y.npy" --input "cache['k']=$data/c2.npy" \
    --out-dir "$out" --warmup 1 --iters 1 --trace "$out/t.json" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "launcher: exit 0" '[ $rc -eq 0 ]' "exit $rc: $(head -c 300 "$tmp/stderr")"
check "launcher: the victim is untouched" '[ "$(cat "$victim")" = precious ]' \
    "the victim now holds $(wc -c <"$victim") bytes"
for o in out0 out1 out2; do
    check "launcher: $o.npy is right" \
        '[ -f "$out/$o.npy" ] && [ ! -L "$out/$o.npy" ] && python3 "$root/tests/launcher/mknpy.py" same "$out/$o.npy" "$data/exp_${o}_2.npy" >/dev/null'
done
check "launcher: cache__k__.npy is right" \
    '[ ! -L "$out/cache__k__.npy" ] && python3 "$root/tests/launcher/mknpy.py" same "$out/cache__k__.npy" "$data/exp_cache2_r2.npy" >/dev/null'
check "launcher: the trace is written" '[ ! -L "$out/t.json" ] && grep -q traceEvents "$out/t.json"'
check "launcher: no temporary file is left" \
    '[ -z "$(find "$out" -name "*.tmp.*" ! -type l)" ]' "$(find "$out" -name '*.tmp.*' ! -type l)"

# ---- the library's own atomic writers ----
cat >"$tmp/writer.c" <<'CEOF'
#include "tngrt.h"
#include "tngrt_exec.h"
#include <stdio.h>
#include <unistd.h>

/* argv: victim npy-path trace-path */
int main(int argc, char **argv)
{
    char link[4096];
    TngrtError err;
    TngrtTensor *t;
    TngrtTrace *tr;
    int64_t shape[1] = {3};
    if (argc != 4)
        return 2;
    for (int i = 2; i < 4; i++) {
        snprintf(link, sizeof link, "%s.tmp.%ld", argv[i], (long)getpid());
        if (symlink(argv[1], link) != 0)
            return 2;
    }
    t = tngrt_tensor_new(TNGRT_F32, 1, shape, &err);
    if (!t || tngrt_npy_write(argv[2], t, &err) != 0) {
        fprintf(stderr, "npy: %s\n", err.msg);
        return 1;
    }
    tngrt_tensor_delete(t);
    if (tngrt_trace_new(&tr, 1, &err) != 0)
        return 1;
    tngrt_trace_slice(tr, 0, "unit", 10, 20);
    if (tngrt_trace_write(tr, argv[3], NULL, &err) != 0) {
        fprintf(stderr, "trace: %s\n", err.msg);
        return 1;
    }
    tngrt_trace_delete(tr);
    return 0;
}
CEOF
lib=$tmp/lib
mkdir "$lib"
printf 'precious\n' >"$victim"
# shellcheck disable=SC2086
if ${CC:-cc} $flags -o "$tmp/writer" "$tmp/writer.c" $libs; then
    "$tmp/writer" "$victim" "$lib/a.npy" "$lib/t.json" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    check "library: exit 0" '[ $rc -eq 0 ]' "exit $rc: $(cat "$tmp/stderr")"
    check "library: the victim is untouched" '[ "$(cat "$victim")" = precious ]'
    check "library: the .npy is written" '[ -f "$lib/a.npy" ] && [ ! -L "$lib/a.npy" ] && [ "$(wc -c <"$lib/a.npy")" -eq 140 ]'
    check "library: the trace is written" '[ ! -L "$lib/t.json" ] && grep -q "\"unit\"" "$lib/t.json"'
else
    fail "library" "writer.c does not build"
fi

# ---- the temporary names ----
cat >"$tmp/names.c" <<'CEOF'
#include "tngrt.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* argv: path; prints the two temporary names, their modes, and the pid */
int main(int argc, char **argv)
{
    char tmp[2][4096];
    TngrtError err;
    TngrtTensor *t;
    int64_t shape[1] = {2};
    if (argc != 2 || !(t = tngrt_tensor_new(TNGRT_I32, 1, shape, &err)))
        return 2;
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (tngrt_npy_write_temp(argv[1], t, tmp[i], sizeof tmp[i], &err) != 0) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        if (lstat(tmp[i], &st) != 0 || !S_ISREG(st.st_mode))
            return 1;
        printf("%s %o\n", tmp[i], (unsigned)(st.st_mode & 07777));
    }
    printf("pid %ld\n", (long)getpid());
    tngrt_tensor_delete(t);
    return 0;
}
CEOF
nm=$tmp/nd
mkdir "$nm"
# shellcheck disable=SC2086
if ${CC:-cc} $flags -o "$tmp/names" "$tmp/names.c" $libs 2>"$tmp/cc.err"; then
    (umask 027 && "$tmp/names" "$nm/r.npy") >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    pid=$(sed -n 's/^pid //p' "$tmp/stdout")
    n1=$(sed -n 1p "$tmp/stdout") n2=$(sed -n 2p "$tmp/stdout")
    check "names: exit 0" '[ $rc -eq 0 ]' "exit $rc: $(cat "$tmp/stderr")"
    check "names: two different names" '[ -n "$n1" ] && [ "${n1% *}" != "${n2% *}" ]' "$n1 / $n2"
    check "names: not <path>.tmp.<pid>" '[ "${n1% *}" != "$nm/r.npy.tmp.$pid" ] && [ "${n2% *}" != "$nm/r.npy.tmp.$pid" ]'
    check "names: <path>.tmp.<12 random characters>" \
        'echo "${n1% *}" | grep -Eq "^$nm/r\.npy\.tmp\.[A-Za-z0-9]{12}$"' "$n1"
    check "names: mode 0666 & ~umask" '[ "${n1#* }" = 640 ] && [ "${n2#* }" = 640 ]' "$n1 / $n2"
else
    fail "names" "tngrt_npy_write_temp is missing: $(grep -m1 error "$tmp/cc.err")"
fi

[ $fails -eq 0 ]
