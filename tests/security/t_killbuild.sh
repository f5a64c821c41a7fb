#!/bin/sh
# A `tngc build` killed with SIGKILL leaves -o with the
# previous complete bundle or the new complete one, never a mix, and no
# temporary file that a later build keeps. It used to copy the bundle from
# the cache file by file (lib, launcher, sources), each through a
# NAME.tmpXXXXXX that no later build removed. Now the bundle is staged as
# .tngc-tmp-<pid>-* files and committed behind a journal (support/out.c);
# the next tngc that writes into the directory finishes a dead build's
# journal and removes its temporaries.
#
# Two scripts a/m.py and b/m.py give two different bundles "m" (A and B).
# Each round builds the other one into -o from a warm cache and kills the
# build at a random point of its run; -o must then hold A or B complete
# (a dead build's journal is finished by the next tngc writing there, which
# the check does first, as any later build would).
#
# usage: sh t_killbuild.sh BUILD_DIR [ROUNDS]   (default 30 rounds)
. "$(dirname "$0")/lib.sh"
rounds=${2:-30}
cd "$tmp" || exit 2
umask 022

mkdir a b
cp "$root/examples/multi_stream/model.py" a/m.py
sed 's/1000, 1000/500, 500/' a/m.py > b/m.py
files="m.c m.h m_launcher.c libm.a m_launcher"
sig() { (cd "$1" && for f in $files; do [ -f "$f" ] && cksum < "$f" || echo missing; done) | tr '\n' ' '; }

for s in b a; do   # warm the cache; A is in -o at the start
    "$tngc" build $s/m.py -o out --cache-dir cache > /dev/null 2> err || { cat err; exit 1; }
    mkdir -p ref$s && cp -p out/* ref$s/
done
sigA=$(sig refa) sigB=$(sig refb)
[ "$sigA" != "$sigB" ] || { fail "setup" "the two bundles are the same"; exit 1; }
m=$(stat -c %a out/m_launcher) l=$(stat -c %a out/libm.a)
[ "$m" = 755 ] && [ "$l" = 644 ] && ok "launcher 755, library 644 under umask 022" ||
    fail "modes" "launcher $m, library $l"

# how long a cache hit takes (ms): kills land across the whole run
t0=$(date +%s%N)
"$tngc" build b/m.py -o out --cache-dir cache > /dev/null 2>&1
"$tngc" build a/m.py -o out --cache-dir cache > /dev/null 2>&1
t1=$(date +%s%N)
span=$(( (t1 - t0) / 2000000 + 5 ))
echo "# a cache hit takes about $((span - 5)) ms; killing at random in [0, $span] ms"

seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
cur=a mixed=0 journals=0 hit_install=0
i=0
while [ $i -lt "$rounds" ]; do
    i=$((i + 1))
    next=$([ $cur = a ] && echo b || echo a)
    d=$(awk -v s="$seed" -v i="$i" -v n="$span" 'BEGIN { srand(s + i); printf "%.3f", rand() * n / 1000 }')
    "$tngc" build $next/m.py -o out --cache-dir cache > /dev/null 2>&1 &
    pid=$!
    sleep "$d"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    if ls -A out | grep -q -- '-journal$'; then
        journals=$((journals + 1))
        # any tngc writing into out finishes a dead build's journal first
        "$tngc" plan a/m.py -o out/.probe > /dev/null 2>&1
        rm -f out/.probe
    fi
    now=$(sig out)
    if [ "$now" = "$sigA" ]; then
        [ $cur = b ] && hit_install=$((hit_install + 1))
        cur=a
    elif [ "$now" = "$sigB" ]; then
        [ $cur = a ] && hit_install=$((hit_install + 1))
        cur=b
    else
        mixed=$((mixed + 1))
        echo "# round $i (kill after ${d}s): -o holds neither bundle: $(ls -A out | tr '\n' ' ')"
        "$tngc" build $cur/m.py -o out --cache-dir cache > /dev/null 2>&1   # back to a known state
    fi
done
echo "# $rounds kills: $hit_install left the new bundle, $journals journals finished later"
[ $mixed -eq 0 ] && ok "every kill left -o with bundle A or bundle B complete" ||
    fail "all or nothing" "$mixed of $rounds kills left a mixed or partial -o"

"$tngc" build b/m.py -o out --cache-dir cache > /dev/null 2> err || fail "build after the kills" "$(cat err)"
left=$(find out cache -name '.tngc-tmp-*' -o -name '.tngc-build-*' -o -name '*.tmp??????' | head -5)
[ -z "$left" ] && ok "a following build leaves no temporary file" || fail "temporaries" "$left"
[ "$(sig out)" = "$sigB" ] && ok "the following build installs its bundle" || fail "final bundle" "$(sig out)"

# the roll-forward itself: a dead writer's journal is finished, its stray
# temporaries removed, and a live writer's are left alone
sh -c 'exit 0' & dead=$!
wait $dead
mkdir rf
printf 'new\n' > "rf/.tngc-tmp-$dead-aaaaaa"
printf 'stray\n' > "rf/.tngc-tmp-$dead-bbbbbb"
printf 'live\n' > "rf/.tngc-tmp-$$-cccccc"
printf 'old\n' > rf/data.txt
printf '.tngc-tmp-%s-aaaaaa/data.txt\n' "$dead" > "rf/.tngc-tmp-$dead-journal"
"$tngc" plan a/m.py -o rf/p.plan > /dev/null 2> err
[ "$(cat rf/data.txt)" = new ] && ok "a dead build's journal is finished" || fail "roll-forward" "$(cat rf/data.txt)"
[ ! -e "rf/.tngc-tmp-$dead-bbbbbb" ] && [ ! -e "rf/.tngc-tmp-$dead-journal" ] && ok "a dead build's temporaries are removed" ||
    fail "sweep" "$(ls -A rf)"
[ -e "rf/.tngc-tmp-$$-cccccc" ] && ok "a live process's temporary is kept" || fail "sweep" "removed a live one"

[ $fails -eq 0 ]
