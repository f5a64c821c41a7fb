#!/bin/sh
# Every operation that builds a string in the interpreter (str.join,
# str.replace, str.format, f-strings, '%' formatting, '*' repetition, '+'
# in a loop) checks the 1 MiB string limit before it allocates: each
# script below ends under --max-memory 256 with exit status 1 (not a
# signal), one TNG212 naming the string limit and the operation at the
# line that builds the string, and a bounded peak RSS. A split into more
# than 100,000 pieces is the container limit. Reading a long string counts
# toward --max-time.
#
#   sh tests/security/t_fe_strings.sh BUILD_DIR
. "$(dirname "$0")/lib.sh"

case $(basename "$build") in *san*) san=1 ;; *) san=0 ;; esac
timer=
[ -x /usr/bin/time ] && timer=/usr/bin/time
max_kb=200000

# case NAME LINE PATTERN: plans $tmp/NAME.py and checks the outcome
case_() {
    name=$1 line=$2 pattern=$3
    if [ -n "$timer" ]; then
        timeout 60 $timer -o "$tmp/$name.kb" -f %M "$tngc" plan --max-memory 256 "$tmp/$name.py" \
            >/dev/null 2>"$tmp/$name.err"
    else
        timeout 60 "$tngc" plan --max-memory 256 "$tmp/$name.py" >/dev/null 2>"$tmp/$name.err"
    fi
    rc=$?
    kb=0
    [ -n "$timer" ] && [ -s "$tmp/$name.kb" ] && kb=$(tail -n 1 "$tmp/$name.kb" | tr -cd 0-9)
    [ -n "$kb" ] || kb=0
    ndiag=$(grep -c ': error: \|: warning: ' "$tmp/$name.err")
    diag=$(grep ': error: ' "$tmp/$name.err" | head -n 1)
    if [ $rc -ne 1 ]; then
        fail "$name" "exit status $rc, want 1: $(head -c 300 "$tmp/$name.err")"
    elif [ "$ndiag" -ne 1 ] || ! echo "$diag" | grep -q "^[^:]*:$line:[0-9]*: error: .*\[TNG212\]$"; then
        fail "$name" "want one TNG212 at line $line, got: $(head -c 300 "$tmp/$name.err")"
    elif ! echo "$diag" | grep -qF "$pattern"; then
        fail "$name" "the TNG212 does not say '$pattern': $diag"
    elif [ $san = 0 ] && [ "$kb" -gt $max_kb ]; then
        fail "$name" "peak RSS $kb KB (bound $max_kb KB)"
    else
        ok "$name ($kb KB)"
    fi
}

printf "s = 'a' * 1000\nt = ','.join([s] * 100000)\n" >"$tmp/join.py"
case_ join 2 'a string of more than 1 MiB (str.join)'

printf "s = 'a' * 1000000\nt = s.replace('a', 'a' * 1000)\n" >"$tmp/replace.py"
case_ replace 2 'a string of more than 1 MiB (str.replace)'

printf "s = 'a' * 1000000\nt = s.replace('a', s)\n" >"$tmp/replace_huge.py"
case_ replace_huge 2 'a string of more than 1 MiB (str.replace)'

printf "s = 'ab'\nfor i in range(64):\n    s = ''.join([s, s])\n" >"$tmp/join_doubling.py"
case_ join_doubling 3 'a string of more than 1 MiB (str.join)'

printf "s = 'ab'\nfor i in range(64):\n    s = '{}{}'.format(s, s)\n" >"$tmp/format.py"
case_ format 3 'a string of more than 1 MiB (str.format)'

printf "s = 'ab'\nfor i in range(64):\n    s = f'{s}{s}'\n" >"$tmp/fstring.py"
case_ fstring 3 'a string of more than 1 MiB (an f-string)'

printf "s = 'ab'\nfor i in range(64):\n    s = '%%s%%s' %% (s, s)\n" >"$tmp/percent.py"
case_ percent 3 "a string of more than 1 MiB ('%' formatting)"

printf "s = 'ab' * 1000\nt = s * 1000\n" >"$tmp/repeat.py"
case_ repeat 2 "a string of more than 1 MiB ('*')"

printf "s = 'ab'\nfor i in range(64):\n    s += s\n" >"$tmp/concat.py"
case_ concat 3 "a string of more than 1 MiB ('+')"

printf "s = ',' * 1000000\nt = s.split(',')\n" >"$tmp/split.py"
case_ split 2 'a container of more than 100,000 items'

printf "s = ',' * 1000000\nt = s.rsplit(',')\n" >"$tmp/rsplit.py"
case_ rsplit 2 'a container of more than 100,000 items'

# reading a long string counts as work: len() and the str methods over a
# 1 MB string in a loop end at --max-time 1 (a TNG212), not seconds later
# (the clock was read only every 4096 such calls)
for op in 'len(a)' 'a.isdigit()'; do
    printf "s = 'a' * 1000000\nt = [s] * 100000\nu = [%s for a in t]\n" "$op" >"$tmp/scan.py"
    t0=$(date +%s)
    timeout 60 "$tngc" plan --max-time 1 "$tmp/scan.py" >/dev/null 2>"$tmp/scan.err"
    rc=$? s=$(($(date +%s) - t0))
    if [ $rc -ne 1 ] || ! grep -q ':3:.*runs longer than 1 s.*\[TNG212\]$' "$tmp/scan.err"; then
        fail "time: $op" "exit $rc: $(head -c 300 "$tmp/scan.err")"
    elif [ $s -gt 3 ]; then
        fail "time: $op" "took ${s}s under --max-time 1"
    else
        ok "time: $op (${s}s)"
    fi
done

# strings under the limit are still built, and non-ASCII text in strings
# is fine: this plans without a diagnostic
cat >"$tmp/fine.py" <<'EOF'
import torch
import torch_npu
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return x + 1


names = ",".join(["层"] * 1000).replace("层", "layer") + f"{'é' * 10}" + "{}".format("x" * 1000)
assert len(names) > 5000
model = torch.compile(Model().npu(), backend=torchair.get_npu_backend(), dynamic=False, fullgraph=True)
model(torch.randn(4, 16).npu())
EOF
"$tngc" plan "$tmp/fine.py" >/dev/null 2>"$tmp/fine.err"
check fine '[ $? -eq 0 ] && [ ! -s "$tmp/fine.err" ]' "$(head -c 300 "$tmp/fine.err")"

exit $((fails != 0))
