#!/bin/sh
# The files tngc writes and reads. Every output
# goes through one rule (support/out.c): a device or FIFO at the output path
# is written directly, never renamed over (as root, `plan -o /dev/null` used
# to replace /dev/null with a regular file); new files get 0666 & ~umask
# (they were 0600 whatever the umask); a directory is refused. `recompiles`
# refuses a log that is not a regular file (/dev/zero, a FIFO never ended)
# unless it is given as '-'. A refused --cache-dir creates nothing (it used
# to leave an empty -o dir).
#
# The real /dev/null is never used as an output: a FIFO made here, and (as
# root) a private character device `mknod DIR/null c 1 3`.
#
# usage: sh t_files.sh BUILD_DIR     (BUILD_DIR holds tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"

cp "$root/examples/multi_stream/model.py" "$tmp/m.py"
printf 'x\nTo compile op: Add\n=====iter1\nTo compile op: Mul\n' > "$tmp/host.log"
cd "$tmp" || exit 2

# -- a FIFO as the output of plan -o, recompiles -o and gen -MF
mkfifo "$tmp/fifo"
for cmd in "plan m.py -o fifo" "recompiles host.log -o fifo" "gen m.py -o g1 -MF fifo"; do
    rm -f got
    cat fifo > got &
    reader=$!
    timeout 20 "$tngc" $cmd > out 2> err
    rc=$?
    sleep 0.3
    kill $reader 2>/dev/null   # a reader left waiting: nothing was written to the FIFO
    wait $reader 2>/dev/null
    check "$cmd: exit 0" '[ $rc -eq 0 ]' "exit $rc: $(cat err)"
    check "$cmd: the FIFO is still a FIFO" '[ -p fifo ]'
    check "$cmd: the output went through the FIFO" '[ -s got ]'
done
check "the depfile came through the FIFO" 'grep -q "m.py:" got'

# -- a private character device (root only: mknod)
if mknod "$tmp/null" c 1 3 2>/dev/null; then
    for cmd in "plan m.py -o null" "recompiles host.log -o null" "gen m.py -o g2 -MF null" "plan m.py --format json -o null"; do
        timeout 20 "$tngc" $cmd > out 2> err
        rc=$?
        check "$cmd: exit 0" '[ $rc -eq 0 ]' "exit $rc: $(cat err)"
        check "$cmd: the device is still a character device" '[ -c null ]'
    done
    # through a symlink to it (as /dev/stdout is)
    ln -s null null-link
    timeout 20 "$tngc" plan m.py -o null-link > out 2> err
    check "plan -o symlink-to-device: device kept" '[ -c null ] && [ -L null-link ]'
else
    echo "ok # skip: mknod needs root (the FIFO cases cover the rule)"
fi

# -- a directory is refused
mkdir adir
timeout 20 "$tngc" plan m.py -o adir > out 2> err
rc=$?
check "plan -o DIR: exit 2, the directory kept" '[ $rc -eq 2 ] && [ -d adir ]' "exit $rc"
timeout 20 "$tngc" recompiles host.log -o adir > out 2> err
rc=$?
check "recompiles -o DIR: exit 2" '[ $rc -eq 2 ] && [ -d adir ]' "exit $rc"

# -- modes follow the umask
for u in 022 077 002; do
    want=$(printf '%o' $((0666 & ~0$u)))
    rm -rf p.plan gdir list.txt
    (umask $u && timeout 20 "$tngc" plan m.py -o p.plan && timeout 20 "$tngc" gen m.py -o gdir -MD &&
        timeout 20 "$tngc" recompiles host.log -o list.txt) > out 2> err
    got=$(stat -c %a p.plan 2>/dev/null)
    check "umask $u: plan -o is $want" '[ "$got" = "$want" ]' "mode $got"
    got=$(stat -c %a gdir/m.c 2>/dev/null)
    check "umask $u: gen's m.c is $want" '[ "$got" = "$want" ]' "mode $got"
    got=$(stat -c %a gdir/m.d 2>/dev/null)
    check "umask $u: the depfile is $want" '[ "$got" = "$want" ]' "mode $got"
    got=$(stat -c %a list.txt 2>/dev/null)
    check "umask $u: recompiles -o is $want" '[ "$got" = "$want" ]' "mode $got"
done
chmod 640 p.plan
timeout 20 "$tngc" plan m.py -o p.plan
check "a replaced file keeps its mode" '[ "$(stat -c %a p.plan)" = 640 ]'
check "no temporary left" '[ -z "$(ls -A | grep tmp)" ]' "$(ls -A)"

# -- recompiles reads regular files only, unless '-'
mkfifo logfifo
timeout 10 "$tngc" recompiles logfifo -o l1.txt > out 2> err
rc=$?
check "recompiles FIFO: exit 2 at once" '[ $rc -eq 2 ]' "exit $rc"
check "recompiles FIFO: one line naming it" '[ "$(wc -l < err)" -eq 1 ] && grep -q "logfifo" err' "$(cat err)"
timeout 10 "$tngc" recompiles /dev/zero -o l2.txt > out 2> err
rc=$?
check "recompiles /dev/zero: exit 2 at once" '[ $rc -eq 2 ] && grep -q "/dev/zero" err' "exit $rc: $(cat err)"
check "recompiles refused: no list file" '[ ! -e l1.txt ] && [ ! -e l2.txt ]'
timeout 10 "$tngc" recompiles - -o l3.txt < host.log > out 2> err
rc=$?
check "recompiles - (stdin): exit 0" '[ $rc -eq 0 ] && grep -q "Mul" l3.txt' "exit $rc: $(cat err)"
(printf 'To compile op: Add\n' > logfifo &) 
timeout 10 "$tngc" recompiles - -o l4.txt < logfifo > out 2> err
rc=$?
check "recompiles - from a FIFO: exit 0" '[ $rc -eq 0 ] && grep -q "Add" l4.txt' "exit $rc: $(cat err)"

# -- a refused --cache-dir creates nothing
timeout 20 "$tngc" build m.py -o o1 --no-cache --cache-dir c1 > out 2> err
rc=$?
check "--no-cache with --cache-dir: exit 2, no -o dir" '[ $rc -eq 2 ] && [ ! -e o1 ]' "exit $rc"
printf 'not a dir\n' > cfile
timeout 60 "$tngc" build m.py -o o2 --cache-dir cfile > out 2> err
rc=$?
check "--cache-dir FILE: exit 2, no -o dir" '[ $rc -eq 2 ] && [ ! -e o2 ]' "exit $rc: $(cat err)"
if [ "$(id -u)" = 0 ]; then
    mkdir theirs && chown 65534 theirs
    timeout 60 "$tngc" build m.py -o o3 --cache-dir theirs > out 2> err
    rc=$?
    check "--cache-dir of another user: exit 2, no -o dir" '[ $rc -eq 2 ] && [ ! -e o3 ]' "exit $rc: $(cat err)"
    check "--cache-dir of another user: one line" '[ "$(wc -l < err)" -eq 1 ]' "$(cat err)"
fi

# -- a FIFO as the script, an imported module or --kernels: refused at once
# (the script's open used to block for ever waiting for a writer)
mkfifo "$tmp/script_fifo.py" "$tmp/modfifo.py" "$tmp/kfifo.c"
for cmd in "scan script_fifo.py" "lint script_fifo.py" "plan script_fifo.py" "gen script_fifo.py -o gf" \
           "build script_fifo.py -o bf --no-cache"; do
    timeout 20 "$tngc" $cmd > out 2> err
    rc=$?
    check "FIFO script ($cmd): refused at once" '[ $rc -ne 124 ] && [ $rc -ne 0 ] && grep -q "not a regular file" err' \
        "exit $rc: $(cat err)"
done
printf 'import modfifo\n' > usesfifo.py
timeout 20 "$tngc" plan usesfifo.py > out 2> err
rc=$?
check "FIFO module: refused at once" '[ $rc -ne 124 ] && [ $rc -ne 0 ]' "exit $rc: $(cat err)"
timeout 20 "$tngc" build m.py -o kf --no-cache --kernels kfifo.c > out 2> err
rc=$?
check "FIFO --kernels: refused at once" '[ $rc -ne 124 ] && [ $rc -ne 0 ]' "exit $rc: $(cat err)"

[ $fails -eq 0 ]
