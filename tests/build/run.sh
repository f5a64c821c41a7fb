#!/bin/sh
# tngc gen / tngc build: the files, the depfile, determinism, failures that
# leave nothing behind, the cache (hit, broken entries, ownership, concurrent
# builds) and user kernels checked with libclang.
# usage: tests/build/run.sh TNGC
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'chown -R "$(id -u)" "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
lines() { wc -l < "$1" | tr -d ' '; }

cp "$root/examples/multi_stream/model.py" "$tmp/ms.py"
cp "$here/chain.py" "$tmp/chain.py"

# ---- gen ----
(cd "$tmp" && "$tngc" gen ms.py -o g1 -MD) > "$tmp/o" 2>&1
t "gen succeeds" '[ $? -eq 0 ] && [ ! -s "$tmp/o" ]'
t "gen writes the three files" '[ -f "$tmp/g1/ms.h" ] && [ -f "$tmp/g1/ms.c" ] && [ -f "$tmp/g1/ms_launcher.c" ]'
t "banner" 'head -1 "$tmp/g1/ms.c" | grep -q "generated from ms.py by tngc [0-9.]*, do not edit"'
t "#line back to the script" 'grep -q "^#line 24 \"ms.py\"" "$tmp/g1/ms.c"'
t "depfile" 'grep -q "^g1/ms.h g1/ms.c g1/ms_launcher.c: ms.py$" "$tmp/g1/ms.d"'
(cd "$tmp" && "$tngc" gen ms.py -o g2 -MF deps.mk) > /dev/null 2>&1
t "-MF" 'grep -q ": ms.py$" "$tmp/deps.mk" && [ ! -f "$tmp/g2/ms.d" ]'
t "byte-identical sources" 'cmp -s "$tmp/g1/ms.c" "$tmp/g2/ms.c" && cmp -s "$tmp/g1/ms.h" "$tmp/g2/ms.h" && cmp -s "$tmp/g1/ms_launcher.c" "$tmp/g2/ms_launcher.c"'
t "no temporary files left" '[ -z "$(ls -A "$tmp/g1" | grep -v "^ms\.[chd]$" | grep -v "^ms_launcher.c$")" ]'
"$tngc" gen "$tmp/missing.py" -o "$tmp/g3" > "$tmp/o" 2>&1
t "missing script: status 2, one line, nothing written" '[ $? -eq 2 ] && [ "$(lines "$tmp/o")" = 1 ] && [ ! -e "$tmp/g3" ]'
printf 'import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.nonzero()\nm = torch.compile(M())\nm(torch.ones(2))\n' > "$tmp/bad.py"
"$tngc" gen "$tmp/bad.py" -o "$tmp/g4" > "$tmp/o" 2>&1
t "script with a graph break: status 1, located, nothing written" '[ $? -eq 1 ] && grep -q "bad.py:4:" "$tmp/o" && [ ! -e "$tmp/g4" ]'
env -u ASCEND_TOOLKIT_HOME "$tngc" build "$tmp/ms.py" -o "$tmp/g5" --target acl > "$tmp/o" 2>&1
t "build --target acl without CANN refused (tests/acl tests the target)" '[ $? -eq 2 ] && grep -q "ASCEND_TOOLKIT_HOME" "$tmp/o" && [ ! -e "$tmp/g5" ]'
"$tngc" gen "$tmp/ms.py" > "$tmp/o" 2>&1
t "gen without -o: usage error" '[ $? -eq 2 ]'

# ---- a bundle with several gears: split across files (codegen/emit_cpu.c) ----
sed 's/dim_gears={0: \[2, 4\]}/dim_gears={0: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}/' \
    "$root/examples/dim_gears/model.py" > "$tmp/dg.py"
(cd "$tmp" && "$tngc" gen dg.py -o s1 -MD && "$tngc" gen dg.py -o s2) > "$tmp/o" 2>&1
t "10 gears: gen writes dg.c and 8 gear files" '[ $? -eq 0 ] && [ -f "$tmp/s1/dg.c" ] && [ -f "$tmp/s1/dg_gears_7.c" ] &&
  [ "$(ls "$tmp/s1" | grep -c "^dg_gears_[0-9]*\.c$")" = 8 ]'
t "10 gears: each gear in one gear file, none in dg.c" '[ "$(cat "$tmp"/s1/dg_gears_*.c | grep -o "^static int g[0-9]*_s0(" | sort -u | wc -l)" = 10 ] &&
  [ "$(cat "$tmp"/s1/dg_gears_*.c | grep -c "^static int g[0-9]*_s0(")" = 10 ] && ! grep -q "^static int g[0-9]*_s0(" "$tmp/s1/dg.c" &&
  [ "$(grep -c "^static int g[0-9]*_s0(" "$tmp/s1/dg_gears_0.c")" = 1 ] && [ "$(grep -c "^static int g[0-9]*_s0(" "$tmp/s1/dg_gears_7.c")" = 2 ]'
t "10 gears: byte-identical sources" 'for f in "$tmp"/s1/*.c "$tmp"/s1/*.h; do cmp -s "$f" "$tmp/s2/$(basename "$f")" || exit 1; done'
t "10 gears: the depfile names every file" 'grep -q "^s1/dg.h s1/dg.c s1/dg_gears_0.c .* s1/dg_gears_7.c s1/dg_launcher.c: dg.py$" "$tmp/s1/dg.d"'
(cd "$tmp" && "$tngc" build dg.py -o sb1 -j 2 --cache-dir scache && "$tngc" build dg.py -o sb2 -j 1 --cache-dir scache) > "$tmp/o" 2>&1
t "10 gears: build, then a cache hit with every gear file" '[ $? -eq 0 ] && grep -q "cache hit" "$tmp/o" && [ -x "$tmp/sb1/dg_launcher" ] &&
  cmp -s "$tmp/sb1/dg_gears_7.c" "$tmp/sb2/dg_gears_7.c" && cmp -s "$tmp/sb1/dg_launcher" "$tmp/sb2/dg_launcher"'
$py -c "
import numpy as np
np.save('$tmp/a.npy', np.arange(18, dtype=np.float32).reshape(9, 2))
np.save('$tmp/b.npy', np.full((9, 2), 0.5, dtype=np.float32))" &&
    "$tmp/sb1/dg_launcher" --input x1="$tmp/a.npy" --input x2="$tmp/b.npy" --out-dir "$tmp/sout" > "$tmp/o" 2>&1
t "10 gears: the launcher runs gear 7 (batch 9) of file 6, right result" '[ $? -eq 0 ] && grep -q "^gear 7:" "$tmp/o" &&
  $py -c "import numpy as np, sys; sys.exit(0 if (np.load(\"$tmp/sout/out0.npy\") == np.arange(18, dtype=np.float32).reshape(9, 2) + 0.5).all() else 1)"' || cat "$tmp/o"

# static kernels (reduce-overhead) of a split bundle: in dg_sk.c, called from the gear files
mkdir -p "$tmp/sk/static_kernel_build"
sed -e 's/^K = 2048$/K = 8/' -e 's/^N = 256$/N = 4/' \
    -e 's/^    print(opt_model(x, weight, bias))$/    torchair.inference.set_dim_gears(x, dim_gears={0: [1, 2, 3]})\n&/' \
    "$root/examples/static_kernel/model.py" > "$tmp/sk/dg_sk.py"
(cd "$tmp/sk" && "$tngc" build dg_sk.py -o out --no-cache) > "$tmp/o" 2>&1
t "static kernels of a split bundle: defined once in dg_sk.c, called from the gear files" '[ $? -eq 0 ] &&
  [ "$(grep -c "^int dg_sk__sk[0-9]*(void \*const \*p, TngrtError \*err)$" "$tmp/sk/out/dg_sk.c")" = 6 ] &&
  grep -q "if (dg_sk__sk5(" "$tmp/sk/out/dg_sk_gears_2.c" && [ -x "$tmp/sk/out/dg_sk_launcher" ]' || cat "$tmp/o"

# ---- build and the cache ----
cd "$tmp"
"$tngc" build ms.py -o b1 --cache-dir cache > o1 2>&1
t "build" '[ $? -eq 0 ] && grep -q "built b1/ms_launcher" o1 && [ -x b1/ms_launcher ] && [ -f b1/libms.a ]'
t "cache layout" '[ -f cache/Model_static_*/world1global_rank0tp_rank0pp_rank0/forward/key ]'
"$tngc" build ms.py -o b2 --cache-dir cache > o2 2>&1
t "second build is a cache hit" '[ $? -eq 0 ] && grep -q "cache hit" o2 && cmp -s b1/ms.c b2/ms.c && cmp -s b1/ms_launcher b2/ms_launcher'
entry=$(dirname cache/Model_static_*/world1global_rank0tp_rank0pp_rank0/forward/key)
rm "$entry/libms.a"
"$tngc" build ms.py -o b3 --cache-dir cache > o3 2>&1
t "broken entry removed with a warning and rebuilt" '[ $? -eq 0 ] && grep -q "warning: removing the broken cache entry" o3 && grep -q "built" o3 && [ -f "$entry/libms.a" ]'
: > "$entry/ms_launcher"
"$tngc" build ms.py -o b3 --cache-dir cache > o3 2>&1
t "an emptied product in the cache is a broken entry, not a hit" '[ $? -eq 0 ] && grep -q "warning: removing" o3 && [ -s b3/ms_launcher ]'
cp "$entry/key" keep.key && echo garbage > "$entry/key"
"$tngc" build ms.py -o b3 --cache-dir cache > o3 2>&1
t "an entry whose key no longer matches its tag: built without the cache, left as it is" '[ $? -eq 0 ] &&
  grep -q "not written by this user" o3 && ! grep -q "cache hit" o3 && [ -s b3/ms_launcher ] && grep -qx garbage "$entry/key"'
cp keep.key "$entry/key"
touch cfile
"$tngc" build ms.py -o b3 --cache-dir cfile > o3 2>&1
t "a cache dir that is a file: status 2" '[ $? -eq 2 ] && grep -q "cfile" o3'
t "the key names the runtime" 'grep -q "^runtime libtngcrt.a [0-9a-f]* [1-9]" "$entry/key" && grep -q "^header tngrt_kernel_impl.h " "$entry/key"'
# A private tngc next to its own libtngcrt and headers: a changed runtime
# header (the kernels' inline bodies) makes the next build a miss.
mkdir -p rt/build rt/runtime
cp "$tngc" "$(dirname "$tngc")/libtngcrt.a" "$(dirname "$tngc")/libtngcrt_core.a" rt/build/ &&
    cp "$root"/runtime/*.h rt/runtime/
rt/build/tngc build ms.py -o r1 --cache-dir rcache > or1 2>&1
rt/build/tngc build ms.py -o r2 --cache-dir rcache > or2 2>&1
printf '/* changed */\n' >> rt/runtime/tngrt_impl_nn.h
rt/build/tngc build ms.py -o r3 --cache-dir rcache > or3 2>&1
t "a changed runtime header is a cache miss" 'grep -q "built" or1 && grep -q "cache hit" or2 && grep -q "built" or3 && ! grep -q "cache hit" or3'
sed 's/in3, in4)/in4, in3)/' ms.py > ms2.py && mv ms2.py ms.py
"$tngc" build ms.py -o b4 --cache-dir cache > o4 2>&1
t "a changed script is a miss" '[ $? -eq 0 ] && grep -q "built" o4'
if [ "$(id -u)" = 0 ] && chown 65534 cache 2>/dev/null; then
    "$tngc" build ms.py -o b5 --cache-dir cache > o5 2>&1
    t "cache of another user refused" '[ $? -ne 0 ] && grep -q "belongs to another user" o5 && [ ! -e b5/ms_launcher ]'
    chown "$(id -u)" cache
fi
"$tngc" build ms.py -o b6 --cache-dir cache2 > o6a 2>&1 &
"$tngc" build ms.py -o b7 --cache-dir cache2 > o6b 2>&1
s2=$?
wait $!
s1=$?
t "concurrent builds of one entry both succeed" '[ $s1 -eq 0 ] && [ $s2 -eq 0 ] && cmp -s b6/ms_launcher b7/ms_launcher'
t "one of them compiled, the other hit" '[ "$(cat o6a o6b | grep -c "cache hit")" = 1 ]'
"$tngc" build ms.py -o b8 --no-cache --cc false > o8 2>&1
t "failed compile: status 1, nothing in the output dir" '[ $? -eq 1 ] && [ -z "$(ls -A b8)" ]'
mkdir -p b9/.tngc-build-999999999-XyZ12 && touch b9/.tngc-build-999999999-XyZ12/model.o
"$tngc" build ms.py -o b9 --no-cache -j 1 > o9 2>&1
t "--no-cache -j 1" '[ $? -eq 0 ] && [ -x b9/ms_launcher ] && [ ! -e xdg ] && [ ! -e .tngc_cache ]'
# the default cache: $XDG_CACHE_HOME/tngc, else ~/.cache/tngc (folders made
# private), never the checkout; a relative $XDG_CACHE_HOME is ignored
XDG_CACHE_HOME=$(pwd)/xdg "$tngc" build ms.py -o b10 > o10 2>&1
t "default cache: \$XDG_CACHE_HOME/tngc" '[ $? -eq 0 ] && [ -f xdg/tngc/Model_static_*/world1global_rank0tp_rank0pp_rank0/forward/key ] &&
  [ ! -e .tngc_cache ]'
XDG_CACHE_HOME=$(pwd)/xdg "$tngc" build ms.py -o b11 > o11 2>&1
t "default cache: a hit the second time" '[ $? -eq 0 ] && grep -q "cache hit" o11'
mkdir -p home
env -u XDG_CACHE_HOME HOME=$(pwd)/home "$tngc" build ms.py -o b12 > o12 2>&1
t "default cache: ~/.cache/tngc without \$XDG_CACHE_HOME" '[ $? -eq 0 ] && [ -d home/.cache/tngc/Model_static_* ] &&
  [ "$(stat -c %a home/.cache)" = 700 ]'
XDG_CACHE_HOME=rel HOME=$(pwd)/home "$tngc" build ms.py -o b13 > o13 2>&1
t "default cache: a relative \$XDG_CACHE_HOME is ignored" '[ $? -eq 0 ] && grep -q "cache hit" o13 && [ ! -e rel ]'
env -u XDG_CACHE_HOME -u HOME "$tngc" build ms.py -o b14 > o14 2>&1
t "no \$XDG_CACHE_HOME, no \$HOME: built without a cache, said once" '[ $? -eq 0 ] && [ -x b14/ms_launcher ] &&
  [ "$(grep -c "building without the cache" o14)" = 1 ]'
t "what a killed build left is swept" '[ ! -e b9/.tngc-build-999999999-XyZ12 ] && grep -q "removed what a killed build left" o9 && [ -z "$(ls -A b9 | grep tngc-build)" ]'

# ---- names ----
"$tngc" gen ms.py -o n1 --user-kernel nosuchop > on1 2>&1
t "unknown --user-kernel op: status 2, the ops listed" '[ $? -eq 2 ] && grep -q "unknown op .nosuchop.; ops with kernels: full add" on1'
"$tngc" build ms.py -o n1 --kernels k.c > on1 2>&1
t "--kernels without --user-kernel: status 2" '[ $? -eq 2 ]'
cp ms.py tngrt_exec.py
"$tngc" gen tngrt_exec.py -o n2 > on2 2>&1
t "a bundle name that shadows the runtime's headers is refused" '[ $? -eq 2 ] && grep -q "shadow the runtime" on2 && [ ! -e n2 ]'
cp "$here/collide.py" collide.py
"$tngc" gen collide.py -o n3 > on3 2>&1
t "two entries with one bundle name: located error" '[ $? -eq 1 ] && grep -q "collide.py:[0-9]*:[0-9]*: error: entries A_b.run and A.b_run would both be the bundle .collide_A_b_run.* \[TNG213\]" on3 && [ ! -e n3 ]'
touch afile
"$tngc" gen ms.py -o afile > on4 2>&1
t "-o naming a file" '[ $? -eq 2 ] && grep -q "is a file, not a directory" on4'
"$tngc" build ms.py -o afile/sub --no-cache > on4 2>&1
t "an output folder that cannot be made: status 2, exactly one line, the sink's" '[ $? -eq 2 ] && [ "$(lines on4)" = 1 ] &&
  grep -qx "tngc: cannot create the output directory afile/sub: Not a directory" on4'
mkdir -p "sp ace#"
cp ms.py "sp ace#/m.py"
"$tngc" gen "sp ace#/m.py" -o "dep out" -MD > on5 2>&1
printf '%s\n' 'dep\ out/m.h dep\ out/m.c dep\ out/m_launcher.c: sp\ ace\#/m.py' 'sp\ ace\#/m.py:' > dep.want
t "depfile paths escaped for make" 'cmp -s dep.want "dep out/m.d"'

cp "$here/clash.py" clash.py
"$tngc" build clash.py -o n6 --no-cache > on6 2>&1
$py -c 'import numpy as np; np.save("z.npy", np.zeros((2, 4), np.float32)); np.save("x1.npy", np.ones((2, 1), np.float32))'
mkdir -p rn6
n6/clash_launcher --input out0=z.npy --input x=x1.npy --out-dir rn6 > on6 2>&1
t "results that would share a file: the launcher refuses (status 2, one line)" '[ $? -eq 2 ] && [ "$(lines on6)" = 1 ] && grep -q "output .out0. and input .out0. would both be written as out0.npy" on6 && [ -z "$(ls -A rn6)" ]'

"$tngc" build ms.py -o n7 --no-cache -j2 > on7 2>&1
t "-jN in one argument" '[ $? -eq 0 ] && [ -x n7/ms_launcher ]'
"$tngc" build ms.py -o n8 --no-cache --cache-dir c8 > on8 2>&1
t "--cache-dir with --no-cache: usage error" '[ $? -eq 2 ] && [ ! -e n8 ]'
n7/ms_launcher --iters 1 --iters 2 > on9 2>&1
t "a launcher option given twice: status 2, one line" '[ $? -eq 2 ] && [ "$(lines on9)" = 1 ] && grep -q "given twice" on9'

# ---- user kernels ----
"$tngc" build chain.py -o u1 --no-cache --user-kernel add > ou1 2>&1
t "missing user kernel: status 1, the op and its line named" '[ $? -eq 1 ] && grep -q "chain.py:8:17: error: no CPU kernel for .add..* \[TNG214\]" ou1'
t "stub written" 'grep -q "^int chain_user_add(const TngrtArg \*outs, int nout, const TngrtArg \*ins, int nin," u1/chain_kernels_user.c'
t "no launcher" '[ ! -e u1/chain_launcher ]'
printf '#include "tngrt_kernels.h"\nint chain_user_add(const TngrtArg *outs, int nout, const TngrtArg *ins, int nin, const int64_t *attr, int nattr, const float *fattr, TngrtError *err) { return 0; }\n' > wrong.c
"$tngc" build chain.py -o u2 --no-cache --user-kernel add --kernels wrong.c > ou2 2>&1
t "wrong signature caught by libclang" '[ $? -eq 1 ] && grep -q "wrong.c:2:[0-9]*: error: chain_user_add has type .* \[TNG215\]" ou2 && [ ! -e u2/chain_launcher ]'
printf 'int chain_user_mul(void) { return 0; }\n' > none.c
"$tngc" build chain.py -o u3 --no-cache --user-kernel add --kernels none.c > ou3 2>&1
t "missing definition caught" '[ $? -eq 1 ] && grep -q "none.c:1:1: error: no definition of chain_user_add .* \[TNG215\]" ou3'
cp "$here/user_add.c" good.c
"$tngc" build chain.py -o u4 --no-cache --user-kernel add --kernels good.c > ou4 2>&1
t "user kernels build" '[ $? -eq 0 ] && [ -x u4/chain_launcher ]'
$py -c 'import numpy as np; np.save("x.npy", np.arange(6, dtype=np.float32)); np.save("y.npy", np.full(6, 2, np.float32))'
mkdir -p ru
u4/chain_launcher --input x=x.npy --input y=y.npy --out-dir ru --iters 1 > oru 2>&1
t "user kernel runs" '[ $? -eq 0 ] && $py -c "import numpy as np,sys; o=np.load(\"ru/out0.npy\"); sys.exit(0 if (o == (np.arange(6)+2)*3+1).all() else 1)"'

# ---- INT64_MIN printed into generated C (codegen/emit.h's EMIT_I64) ----
cp "$here/int64_min.py" i64.py
"$tngc" gen i64.py -o i64 > oi64 2>&1 && "$tngc" gen i64.py -o i64acl --target acl >> oi64 2>&1
t "INT64_MIN: no out-of-range literal in either target's code" '[ $? -eq 0 ] && ! grep -q 9223372036854775808 i64/i64.c i64acl/i64.c &&
  grep -q "tngrt_kernel_tri(.*, (-9223372036854775807LL - 1), 0);" i64/i64.c && grep -q "aclnnTriu, .*, (-9223372036854775807LL - 1), " i64acl/i64.c' || cat oi64
strict="-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I$root/runtime"
for c in cc clang; do
    command -v "$c" > /dev/null 2>&1 || continue
    t "INT64_MIN: both targets' code compiles with $c -Werror" '"$c" $strict i64/i64.c > oi64c 2>&1 &&
      "$c" $strict -I"$root/tests/acl/cann/include" i64acl/i64.c >> oi64c 2>&1' || cat oi64c
done
"$tngc" build i64.py -o i64b --no-cache --opt "-O1 -Wall -Wextra -Werror" > oi64b 2>&1
$py -c 'import numpy as np; np.save("i64x.npy", np.arange(16, dtype=np.float32).reshape(4, 4) - 7.5); np.save("i64i.npy", np.arange(16).reshape(4, 4)); np.save("i64m.npy", np.array([[True, False, False, True]] * 4))'
mkdir -p ri64
i64b/i64_launcher --input x=i64x.npy --input i=i64i.npy --input mask=i64m.npy --out-dir ri64 --iters 1 > oi64r 2>&1
t "INT64_MIN: built with -Werror, runs: triu keeps, tril zeroes, roll keeps, fill, masked_fill, clamp" '[ $? -eq 0 ] && $py -c "
import numpy as np, sys
o = [np.load(\"ri64/out%d.npy\" % k) for k in range(6)]
x, i, m, lo = np.load(\"i64x.npy\"), np.load(\"i64i.npy\"), np.load(\"i64m.npy\"), np.iinfo(np.int64).min
ok = (o[0] == x).all() and (o[1] == 0).all() and (o[2] == x).all() and (o[3] == lo).all() and o[3].shape == (2, 3)
ok = ok and (o[4] == np.where(m, lo, i)).all() and (o[5] == i).all()
sys.exit(0 if ok else 1)"' || cat oi64b oi64r

# ---- make install: tngc, libtngcrt, headers, pkg-config; a program on the API ----
case $tngc in
*/san/*) ;;   # the installed runtime is the plain build's
*)
    make -s -C "$root" install PREFIX="$tmp/prefix" > inst.log 2>&1
    t "make install" '[ $? -eq 0 ] && [ -x prefix/bin/tngc ] && [ -f prefix/lib/libtngcrt.a ] && [ -f prefix/include/tngc/tngrt_bundle.h ] && [ -f prefix/include/tngc/tngrt_launch.h ] && [ -f prefix/share/tngc/tngc.mk ] && [ -f prefix/share/man/man1/tngc.1 ]'
    prefix/bin/tngc build chain.py -o inst --no-cache > oi 2>&1
    t "the installed tngc builds with the installed runtime" '[ $? -eq 0 ] && [ -x inst/chain_launcher ]'
    # the README's command line: pkg-config --cflags and --libs, no --static
    flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs tngcrt)
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Iinst -o use_api "$here/use_api.c" inst/libchain.a $flags > ocu 2>&1
    t "a program links the bundle with pkg-config --libs tngcrt" '[ $? -eq 0 ]' || cat ocu
    core=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --libs tngcrt_core)
    t "pkg-config --libs tngcrt_core names what its archive needs" 'printf "%s\n" "$core" | grep -q -- "-ltngcrt_core .*-lpthread"' 
    mkdir -p mkproj && cp chain.py mkproj/ &&
        printf 'TNGC_SOURCES := chain.py\ninclude %s/prefix/share/tngc/tngc.mk\n' "$tmp" > mkproj/Makefile
    env PATH=/usr/bin:/bin make -C mkproj tngc-lint > omk 2>&1
    t "the installed tngc.mk runs the tngc installed beside it when none is on PATH" \
      '[ $? -eq 0 ] && grep -q "^$tmp/prefix/bin/tngc lint" omk' || cat omk
    ./use_api > oua 2>&1
    t "and runs it through the API" '[ $? -eq 0 ] && grep -q "Model.forward: 2 inputs, 1 outputs, 1 gear(s): ok" oua' || cat oua
    ;;
esac

echo "build: $pass passed, $fail failed"
[ $fail -eq 0 ]
