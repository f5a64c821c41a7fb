#!/bin/sh
# A path or option value with control bytes is echoed escaped (\xHH, and
# C1 and bidirectional controls as \uHHHH) in tngc's messages: it can send
# no escape sequence to the terminal and fake no second line. Each command
# below fails with its usual exit status and one message line naming the
# escaped path.
#
#   sh tests/security/t_fe_paths.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

esc=$(printf '\033')
nl='
'
bad=$(printf 'a\033[31mred\nb\001\302\233.py')   # ESC, newline, ^A, U+009B (CSI)
shown='a\\x1b\[31mred\\x0ab\\x01\\u009b\.py'

# no raw control byte in FILE, and exactly LINES lines
clean() {   # clean NAME FILE LINES PATTERN
    if LC_ALL=C grep -q "$esc" "$2" || LC_ALL=C grep -q "$(printf '\001')" "$2" ||
        LC_ALL=C grep -q "$(printf '\302\233')" "$2"; then
        fail "$1" "a raw control byte on stderr: $(od -c "$2" | head -3)"
    elif [ "$(wc -l <"$2")" -ne "$3" ]; then
        fail "$1" "$(wc -l <"$2") lines on stderr, want $3: $(cat "$2")"
    elif ! grep -q "$4" "$2"; then
        fail "$1" "stderr does not say '$4': $(cat "$2")"
    else
        ok "$1"
    fi
}

cd "$tmp" || exit 2
for cmd in lint scan plan; do
    "$tngc" $cmd "$bad" >/dev/null 2>"$tmp/e"
    rc=$?
    check "$cmd missing: exit 2" '[ $rc -eq 2 ]' "exit $rc"
    clean "$cmd missing: escaped" "$tmp/e" 1 "^tngc: $shown: No such file or directory$"
done
for cmd in gen build; do
    "$tngc" $cmd -o "$tmp/out" "$bad" >/dev/null 2>"$tmp/e"
    rc=$?
    check "$cmd missing: exit 2" '[ $rc -eq 2 ]' "exit $rc"
    clean "$cmd missing: escaped" "$tmp/e" 1 "^tngc: $shown: No such file or directory$"
done

# a script that plans, and an output directory that is a file named with control bytes
cat >"$tmp/m.py" <<'EOF2'
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1


model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(4, 16).npu())
EOF2
: >"$bad"
"$tngc" gen -o "$bad" "$tmp/m.py" >/dev/null 2>"$tmp/e"
rc=$?
check "gen -o FILE: exit 2" '[ $rc -eq 2 ]' "exit $rc"
clean "gen -o FILE: escaped" "$tmp/e" 1 "$shown is a file, not a directory"
rm -f "$bad"

# an option's value is echoed escaped too (the message, then the synopsis)
"$tngc" plan --format "$bad" "$tmp/m.py" >/dev/null 2>"$tmp/e"
rc=$?
check "--format value: exit 2" '[ $rc -eq 2 ]' "exit $rc"
clean "--format value: escaped" "$tmp/e" 2 "unknown format '$shown'"
"$tngc" build --user-kernel add --kernels "$bad" -o "$tmp/out" "$tmp/m.py" >/dev/null 2>"$tmp/e"
rc=$?
check "--kernels unreadable: exit 2" '[ $rc -eq 2 ]' "exit $rc"
clean "--kernels unreadable: escaped" "$tmp/e" 1 "cannot read $shown"

# the text plan names the script it came from: escaped, one line
cp "$tmp/m.py" "$bad"
"$tngc" plan "$bad" > "$tmp/p" 2>"$tmp/e"
rc=$?
check "plan of a script with control bytes in its name: exit 0" '[ $rc -eq 0 ]' "exit $rc: $(cat "$tmp/e")"
check "plan: its entry line names the path escaped" 'head -1 "$tmp/p" | grep -q "^entry .*  # $shown:[0-9]*:[0-9]*$"' \
    "$(head -2 "$tmp/p" | od -c | head -4)"
check "plan: no raw control byte" '! LC_ALL=C grep -q "$esc" "$tmp/p" && ! LC_ALL=C grep -q "$(printf "\001")" "$tmp/p"'
rm -f "$bad"

exit $((fails != 0))
