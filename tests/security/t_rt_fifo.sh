#!/bin/sh
# t_rt_fifo.sh - libtngcrt reads only regular files, and finds out without
# blocking: a path is opened with O_NONBLOCK and refused unless fstat says
# it is a regular file. A FIFO given as --weights or --input blocked the
# launcher for ever in open() (while /dev/zero was refused).
#
#   --weights FIFO, --input FIFO (f32 and bf16 readers), with no writer
#   and with a writer holding the FIFO open: exit 2 within 10 s, one line
#   saying "not a regular file"; /dev/zero the same.
#
# usage: sh t_rt_fifo.sh BUILD_DIR   (holding libtngcrt.a)
. "$(dirname "$0")/lib.sh"

flags="-std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L -O1 -g -I$root/runtime"
case $build in *san) flags="$flags -fsanitize=address,undefined -fno-sanitize-recover=undefined" ;; esac
for v in launcher:-DFAKE_STATIC launcher_bf16:-DFAKE_BF16; do
    # shellcheck disable=SC2086  # word lists
    ${CC:-cc} $flags "${v#*:}" -o "$tmp/${v%%:*}" "$root/templates/launcher.c" \
        "$root/tests/launcher/fake_bundle.c" "$build/libtngcrt.a" -lopenblas -lpthread -lm \
        || { fail build "the launcher does not build"; exit 1; }
done
data=$tmp/data
mkdir "$data" && python3 "$root/tests/launcher/mknpy.py" make "$data" || { fail data "mknpy.py"; exit 1; }
fifo=$tmp/fifo
mkfifo "$fifo" || { fail mkfifo "mkfifo failed"; exit 1; }

# refused NAME PROG WEIGHTS X Y: exit 2 within 10 s, one line, "not a regular file"
refused() {
    rm -rf "$tmp/out" && mkdir "$tmp/out"
    timeout 10 "$tmp/$2" --weights "$3" --input "x=$4" --input "y=$5" \
        --input "cache['k']=$data/c2.npy" --out-dir "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ $rc -eq 124 ]; then fail "$1" "blocked for 10 s"; return; fi
    check "$1" '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "not a regular file" "$tmp/stderr" && [ -z "$(ls -A "$tmp/out")" ]' \
        "exit $rc: $(head -c 300 "$tmp/stderr")"
}

w=$data/w.safetensors x=$data/x2.npy y=$data/y.npy
refused "--weights FIFO" launcher "$fifo" "$x" "$y"
refused "--input x=FIFO" launcher "$w" "$fifo" "$y"
refused "--input y=FIFO (bf16)" launcher_bf16 "$w" "$x" "$fifo"
refused "--weights /dev/zero" launcher /dev/zero "$x" "$y"
refused "--input x=/dev/zero" launcher "$w" /dev/zero "$y"

# a writer holds the FIFO open (and never writes)
sleep 30 >"$fifo" &
writer=$!
refused "--weights FIFO with a writer" launcher "$fifo" "$x" "$y"
refused "--input x=FIFO with a writer" launcher "$w" "$fifo" "$y"
kill $writer 2>/dev/null
wait $writer 2>/dev/null

[ $fails -eq 0 ]
