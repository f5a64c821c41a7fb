#!/bin/sh
# A script's file name names its bundle: <name>.h, <name>_t, lib<name>.a.
# A name that is a system header's (time.py, stdint.py, errno.py,
# pthread.py, stdio.py, math.py) or whose <name>_t is a C library type
# (size.py) made a bundle that shadowed the header: a wall of clang errors,
# or, for math.py, a bundle compiled with <math.h>'s declarations missing.
# Such names are refused before anything is generated, with one line that
# names the clash, exit 2; an ordinary name still builds.
#
# usage: sh t_names.sh BUILD_DIR     (BUILD_DIR holds tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 2
export XDG_CONFIG_HOME="$tmp/config"
for n in time stdint errno pthread stdio math size signal cblas __m; do
    cp "$root/examples/multi_stream/model.py" "$n.py"
    "$tngc" build "$n.py" -o "out_$n" --no-cache > "$n.log" 2>&1
    rc=$?
    check "$n.py: refused, exit 2" '[ $rc -eq 2 ]' "exit $rc: $(head -c 400 "$n.log")"
    check "$n.py: one line naming the clash" \
        '[ "$(wc -l < "$n.log")" -eq 1 ] && grep -q "bundle name .$n. .*cannot name a bundle" "$n.log"' \
        "$(head -c 400 "$n.log")"
    check "$n.py: nothing written" '[ ! -e "out_$n/$n.h" ]'
    "$tngc" gen "$n.py" -o "gen_$n" > "g$n.log" 2>&1
    rc=$?
    check "$n.py: gen refuses it too" '[ $rc -eq 2 ] && [ ! -e "gen_$n/$n.h" ]' "exit $rc: $(head -c 400 "g$n.log")"
done
cp "$root/examples/multi_stream/model.py" mymodel.py
"$tngc" build mymodel.py -o ok --no-cache > ok.log 2>&1
check "an ordinary name builds" '[ $? -eq 0 ] && [ -x ok/mymodel_launcher ]' "$(cat ok.log)"
[ $fails -eq 0 ]
