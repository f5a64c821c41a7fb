#!/bin/sh
# No make injection through depfiles. `-MD` wrote paths
# with a newline as they are, so a script in a folder named
# "A=<newline>CC=touch${IFS}X;echo${IFS}" set CC for every rule of a
# Makefile that includes the depfile, and make ran it. Paths that make
# syntax cannot hold (control bytes, ';', '=', '$', '%', '|', '*?[', a
# leading '~', a trailing blank, backslash, '&' or ')') are now refused,
# one line, exit 2, before anything is written; the paths it can hold
# (blank, '#', ':', backslashes, parentheses, non-ASCII ...) are escaped so
# that GNU make names exactly the script and the outputs.
#
# usage: sh t_depfile.sh BUILD_DIR     (BUILD_DIR holds tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
nl='
'

# -- the injection of the issue
dir="A=${nl}CC=touch\${IFS}X;echo\${IFS}"
mkdir -p "$dir"
cp "$root/examples/multi_stream/model.py" "$dir/m.py"
"$tngc" gen "$dir/m.py" -o out -MD > out.txt 2> err
rc=$?
printf 'include out/m.d\nall: ; @$(CC) -v > /dev/null 2>&1 || true\n' > Makefile
[ -f out/m.d ] && make -s > /dev/null 2>&1
check "newline in the script's folder: exit 2" '[ $rc -eq 2 ]' "exit $rc"
check "newline in the script's folder: one line" '[ "$(wc -l < err)" -eq 1 ]' "$(cat err)"
check "newline in the script's folder: nothing written" '[ ! -e out ]'
check "make ran nothing" '[ ! -e X ]'
rm -rf out X

# -- every path make cannot hold is refused, for gen and build, script and -o
i=0
for bad in "a${nl}b" "a$(printf '\r')b" "a$(printf '\t')b" "a$(printf '\001')b" 'a;b' 'a=b' 'a$b' 'a%b' 'a|b' 'a*b' 'a?b' 'a[b'; do
    i=$((i + 1))
    mkdir -p "s$i/$bad"
    cp "$root/examples/multi_stream/model.py" "s$i/$bad/m.py"
    "$tngc" gen "s$i/$bad/m.py" -o "o$i" -MD > /dev/null 2> err
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < err)" -eq 1 ] && [ ! -e "o$i" ] ||
        fail "script path $(printf '%s' "$bad" | od -An -c | tr -s ' ') refused" "exit $rc, $(cat err)"
    "$tngc" gen "s$i/$bad/m.py" -o "o$i" -MF "o$i.d" > /dev/null 2> err
    [ $? -eq 2 ] && [ ! -e "o$i" ] && [ ! -e "o$i.d" ] || fail "-MF: refused" "$(cat err)"
    "$tngc" gen "$root/examples/multi_stream/model.py" -o "p$i/$bad" -MD > /dev/null 2> err
    rc=$?
    [ $rc -eq 2 ] && [ ! -e "p$i" ] || fail "-o path $(printf '%s' "$bad" | od -An -c | tr -s ' ') refused" "exit $rc"
done
# where a word starts or ends: a leading '~' (a home directory), a trailing
# blank, backslash, '&' (grouped targets) or ')' (an archive member)
for bad in '~m.py' 'm.py ' 'm.py\' 'm.py&' 'm(1)'; do
    i=$((i + 1))
    cp "$root/examples/multi_stream/model.py" "$bad"
    "$tngc" gen "$bad" -o "o$i" -MD > /dev/null 2> err
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < err)" -eq 1 ] && [ ! -e "o$i" ] || fail "script path '$bad' refused" "exit $rc, $(cat err)"
done
"$tngc" gen "$root/examples/multi_stream/model.py" -o '~o' -MD > /dev/null 2> err
check "-o with a leading '~': refused" '[ $? -eq 2 ] && [ ! -e "~o" ]' "$(cat err)"
"$tngc" build "s1/a${nl}b/m.py" -o ob -MD > /dev/null 2> err
rc=$?
check "build -MD: refused too, nothing created" '[ $rc -eq 2 ] && [ ! -e ob ]' "exit $rc"
[ $fails -eq 0 ] && ok "unsafe paths refused by gen -MD, -MF (script and -o)"

# -- paths make can hold: make names exactly the script and the outputs
i=0
for good in 'a b' 'a#b' 'a:b' 'a\b' 'a\ b' 'a\#b' 'a\\:b' 'x (1)' 'a&b' 'a~b' 'a]b' "$(printf 'caf\303\251')" 'a!b' "a'b"; do
    i=$((i + 1))
    mkdir -p "g$i/$good"
    cp "$root/examples/multi_stream/model.py" "g$i/$good/m.py"
    (cd "g$i" && "$tngc" gen "$good/m.py" -o "$good/out" -MD > /dev/null 2> ../err)
    rc=$?
    if [ $rc -ne 0 ]; then fail "path '$good': gen" "exit $rc: $(cat err)"; continue; fi
    printf 'include dep.d\n%%.c: ; $(file >>remade,$@)\n%%.h: ; $(file >>remade,$@)\n' > "g$i/Makefile"
    cp "g$i/$good/out/m.d" "g$i/dep.d"
    touch -d '2001-01-01' "g$i/$good/m.py"
    touch -d '2002-01-01' "g$i/$good/out/"*
    (cd "g$i" && make -r > /dev/null 2>&1)   # the first target: up to date
    r1=$(cat "g$i/remade" 2>/dev/null)
    touch -d '2003-01-01' "g$i/$good/m.py"
    (cd "g$i" && make -r > /dev/null 2>&1)
    r2=$(cat "g$i/remade" 2>/dev/null)
    case "$r2" in "$good/out/m."[ch]) r2=ok ;; esac
    [ -z "$r1" ] && [ "$r2" = ok ] ||
        fail "path '$good': make names the script and the outputs" "before: '$r1' after: '$r2'"
done
[ $fails -eq 0 ] && ok "14 paths with blanks, '#', ':', backslashes ... written so that make names them exactly"
[ $fails -eq 0 ]
