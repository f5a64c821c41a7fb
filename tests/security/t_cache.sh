#!/bin/sh
# The build cache trusts only what this user's tngc wrote, and never
# removes through a link. The default cache is the user's
# ($XDG_CACHE_HOME/tngc), never a checkout's folder; but a cache may sit
# inside an untrusted checkout (--cache-dir .tngc_cache in a checkout's
# Makefile, or a script's cache_compile(cache_dir=...)), so an entry is
# used only when its tag, an HMAC-SHA-256 of its key and products list
# under the user's secret (~/.config/tngc/cache-secret), verifies:
#   - an entry another tngc wrote (its own secret: a checkout that ships a
#     complete entry with a launcher of its choosing), or one with no tag,
#     is neither installed nor removed: the build runs without the cache;
#   - an entry this user's tngc wrote whose launcher was changed since is
#     damaged: it is replaced;
#   - a level of the entry's path that is a symbolic link (a checkout's
#     Model_static_<hash>/world1... -> the user's files) makes the build
#     skip the cache: the files the link points at stay;
#   - a secret others may read is refused with a warning (no cache);
#   - a journal a dead writer "left" in the output folder that is a FIFO
#     does not hang the next build.
#
# usage: sh t_cache.sh BUILD_DIR     (BUILD_DIR holds tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
cp "$root/examples/multi_stream/model.py" m.py
export XDG_CONFIG_HOME="$tmp/victim-config"
run() { "$tngc" build m.py -o "$1" ${2:+--cache-dir "$2"} > "$1.log" 2>&1; }

# an attacker builds the same script with their own tngc (their own secret)
XDG_CONFIG_HOME="$tmp/attacker-config" "$tngc" build m.py -o att-out --cache-dir att-cache > att.log 2>&1 ||
    { cat att.log; exit 1; }
entry=$(cd att-cache && find . -name m_launcher | sed 's|^\./||; s|/m_launcher$||')
[ -n "$entry" ] || { echo "FAIL: no cache entry in att-cache"; exit 1; }
# ... and puts a launcher of their own in it, with the lists rewritten to match
printf '#!/bin/sh\necho PWNED\n' > "att-cache/$entry/m_launcher"
python3 - "att-cache/$entry" "$tmp/attacker-config/tngc/cache-secret" <<'PY'
import hashlib, hmac, os, sys
d, secret = sys.argv[1], sys.argv[2]
def fnv(b):
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xffffffffffffffff
    return '%016x' % h
lines = []
for line in open(os.path.join(d, 'products')).read().splitlines():
    name, size, digest = line.split(' ')
    data = open(os.path.join(d, name), 'rb').read()
    digest = hashlib.sha256(data).hexdigest() if len(digest) == 64 else fnv(data)
    lines.append('%s %d %s' % (name, len(data), digest))
products = ('\n'.join(lines) + '\n').encode()
open(os.path.join(d, 'products'), 'wb').write(products)
if os.path.exists(os.path.join(d, 'tag')) and os.path.exists(secret):
    key = open(os.path.join(d, 'key'), 'rb').read()
    msg = b'tngc cache entry 1\nkey %d\n' % len(key) + key + products
    tag = hmac.new(open(secret, 'rb').read(), msg, hashlib.sha256).hexdigest()
    open(os.path.join(d, 'tag'), 'w').write(tag + '\n')
PY

# -- 1. the checkout ships that entry in .tngc_cache
mkdir checkout && cp -R att-cache checkout/.tngc_cache && cp m.py checkout/
(cd checkout && XDG_CACHE_HOME="$tmp/victim-cache" "$tngc" build m.py -o out0 > ../ship0.log 2>&1)
rc=$?
check "shipped entry, default cache: the build succeeds" '[ $rc -eq 0 ]' "exit $rc: $(cat ship0.log)"
check "shipped entry, default cache: the checkout's folder is not read" \
    '! grep -q "cache hit\|not written by this user" ship0.log && ! grep -q PWNED checkout/out0/m_launcher &&
     [ -d "$tmp/victim-cache/tngc/$entry" ]' "$(cat ship0.log)"
(cd checkout && "$tngc" build m.py -o out --cache-dir .tngc_cache > ../ship.log 2>&1)
rc=$?
check "shipped entry: the build succeeds" '[ $rc -eq 0 ]' "exit $rc: $(cat ship.log)"
check "shipped entry: its launcher is not installed" '! grep -q PWNED checkout/out/m_launcher' \
    "out/m_launcher is the attacker's"
check "shipped entry: no cache hit" '! grep -q "cache hit" ship.log' "$(cat ship.log)"
check "shipped entry: a warning names it" 'grep -q "not written by this user" ship.log' "$(cat ship.log)"
check "shipped entry: left as it is" 'grep -q PWNED "checkout/.tngc_cache/$entry/m_launcher"' \
    "the planted entry was removed or changed"
./checkout/out/m_launcher --help > /dev/null 2>&1
check "shipped entry: the installed launcher is a real one" '[ $? -eq 0 ]'

# -- 2. an entry with no tag (a copy of a complete entry, tag removed)
rm -rf c2 && cp -R att-cache c2 && rm -f "c2/$entry/tag"
run out2 c2
check "untagged entry: not installed" '! grep -q PWNED out2/m_launcher && ! grep -q "cache hit" out2.log' \
    "$(cat out2.log)"
check "untagged entry: not removed" '[ -f "c2/$entry/m_launcher" ] && grep -q PWNED "c2/$entry/m_launcher"'

# -- 3. this user's own entry, its launcher changed afterwards: replaced
run own1 own && run own2 own
check "own entry: the second build is a hit" 'grep -q "cache hit" own2.log' "$(cat own2.log)"
printf '#!/bin/sh\necho CHANGED\n' > "own/$entry/m_launcher"
run own3 own
check "own damaged entry: not installed" '! grep -q CHANGED own3/m_launcher && ! grep -q "cache hit" own3.log' \
    "$(cat own3.log)"
check "own damaged entry: replaced" '! grep -q CHANGED "own/$entry/m_launcher"'
run own4 own
check "own entry: a hit again after the rebuild" 'grep -q "cache hit" own4.log' "$(cat own4.log)"

# -- 4. a level of the entry's path is a link to the user's files
mkdir -p victim/forward && echo precious > victim/forward/keep.txt && echo precious > victim/keep2.txt
top=${entry%%/*}
mid=$(echo "$entry" | cut -d/ -f2)
mkdir -p "c4/$top" && ln -s "$tmp/victim" "c4/$top/$mid"
run out4 c4
rc=$?
check "linked level: the build succeeds without the cache" '[ $rc -eq 0 ] && [ -x out4/m_launcher ]' \
    "exit $rc: $(cat out4.log)"
check "linked level: the files behind the link stay" \
    '[ -f victim/forward/keep.txt ] && [ -f victim/keep2.txt ] && [ "$(ls victim | wc -l)" = 2 ]' \
    "victim now holds: $(ls -R victim)"
check "linked level: a warning says so" 'grep -q "symbolic link" out4.log' "$(cat out4.log)"
# the entry itself a link to a folder of the user's
mkdir -p victim2 && echo precious > victim2/keep.txt
mkdir -p "c5/$top/$mid" && ln -s "$tmp/victim2" "c5/$entry"
run out5 c5
check "linked entry: the folder it points at stays" '[ -f victim2/keep.txt ] && [ -x out5/m_launcher ]' \
    "$(cat out5.log)"

# -- 5. a secret others may read: refused, the build runs without the cache
chmod 644 "$XDG_CONFIG_HOME/tngc/cache-secret"
run out6 c6
rc=$?
check "readable secret: refused with a warning" '[ $rc -eq 0 ] && grep -q "cache-secret" out6.log && [ ! -d c6/$top ]' \
    "exit $rc: $(cat out6.log)"
chmod 600 "$XDG_CONFIG_HOME/tngc/cache-secret"

# -- 6. a FIFO planted as a dead writer's journal in the output folder
mkdir out7 && mkfifo out7/.tngc-tmp-999999999-journal
timeout 60 "$tngc" build m.py -o out7 --cache-dir own > out7.log 2>&1
rc=$?
check "planted journal FIFO: no hang" '[ $rc -ne 124 ] && [ $rc -eq 0 ]' "exit $rc: $(cat out7.log)"

# -- 7. as root: an entry folder that belongs to another user is not used
if [ "$(id -u)" = 0 ]; then
    rm -rf c8 && cp -R att-cache c8 && chown -R 65534 "c8/$top"
    run out8 c8
    check "another user's entry: not installed, not removed" \
        '! grep -q PWNED out8/m_launcher && [ -f "c8/$entry/m_launcher" ]' "$(cat out8.log)"
fi
[ $fails -eq 0 ]
