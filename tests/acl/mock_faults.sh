#!/bin/sh
# The ACL target against the mock runtime (tests/acl/mock), under failures:
#
#   a. events that a reduce-overhead capture records (fork, join and plan
#      events of a gear on more than one stream) are created with
#      aclrtCreateEventExWithFlag(ACL_EVENT_SYNC); eager bundles' events
#      with aclrtCreateEvent; teardown synchronises every stream, then
#      destroys in reverse order of creation;
#   b. a failure injected at each AscendCL and aclnn call of a good run
#      (every call the mock logs, each occurrence in turn: create, load,
#      three runs, destroy) gives one error line (none in teardown, which
#      reports nothing), no misuse the mock can see (a use after destroy or
#      free, a free or a synchronous copy racing queued work, a destroy
#      before a synchronisation, an executor leaked), everything released,
#      and the next run in the same process succeeds (tests/acl/mock_driver.c
#      drives the bundle API); under a SANITIZE=1 tngc the bundles and the
#      driver carry ASan and UBSan, and any report fails the case;
#   c. on a chip that cannot capture (Ascend910A, Ascend310B1), a
#      reduce-overhead bundle runs eagerly: one warning line, status 0, no
#      capture, no sync-flagged event; an eager bundle does not ask.
#
# usage: tests/acl/mock_faults.sh TNGC
set -u
. "$(dirname "$0")/mocklib.sh"

# ---- the models ----
# ro: reduce-overhead on three streams (plan events at the cross-stream edges)
mkdir -p "$tmp/ro"
cat >"$tmp/ro/model.py" <<'EOF'
import torch
import torchair as tng
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def forward(self, a, b):
        x = torch.add(a, b)
        with tng.scope.npu_stream_switch('1'):
            y = torch.mm(x, b)
        with tng.scope.npu_stream_switch('2'):
            z = torch.mul(x, 2.0)
        return y + z


config = CompilerConfig()
config.mode = "reduce-overhead"
backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
model(torch.randn(8, 8), torch.randn(8, 8))
EOF
# dy: run-time dims (the arena placed at the first run, re-placed later)
mkdir -p "$tmp/dy"
cat >"$tmp/dy/model.py" <<'EOF'
import torch
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x, x]) + 1


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=True, fullgraph=True)
model(torch.ones(2, 8))
EOF
cp -r "$root/examples/multi_stream" "$tmp/ms"
cp -r "$root/examples/static_kernel" "$tmp/sk" && mkdir -p "$tmp/sk/static_kernel_build"
mkdir -p "$tmp/wt" && cp "$here/weights.py" "$tmp/wt/model.py"
mk st "$tmp/wt/w.safetensors" fc.weight=4,8 fc.bias=4

for m in ro dy ms sk wt; do
    build_driver "$m" "builds with its launcher" '[ -x "$tmp/$m/out/model_launcher" ]'
done
[ -n "$san" ] && echo "mock_faults: bundles and driver under ASan and UBSan"
export ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=86
weights() { [ "$1" = wt ] && echo w.safetensors; }


# ---- a. capture-safe events, settled and reverse-ordered teardown ----
mk npy "$tmp/ro/a.npy" '<f4' 8 8
mk npy "$tmp/ro/b.npy" '<f4' 8 8
run_mock ro ./out/model_launcher --input a=a.npy --input b=b.npy --warmup 1 --iters 3
t "a. ro: runs, captured once, replayed" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && [ "$(grep -c "^capture begin s0$" "$tmp/log")" = 1 ] &&
   [ "$(grep -c "^replay s0$" "$tmp/log")" = 3 ] || { cat "$tmp/e"; false; }'
t "a. ro: its 7 events (4 planned, fork, 2 joins) created with ACL_EVENT_SYNC" \
  '[ "$(grep -c "^event e[0-9]* sync$" "$tmp/log")" = 7 ] && ! grep -q "^event e[0-9]*$" "$tmp/log"'
t "a. ro: all 7 recorded inside the capture, no misuse" \
  '[ "$(sed -n "/^capture begin/,/^capture end/p" "$tmp/log" | grep "^record" | cut -d" " -f2 | sort -u | wc -l | tr -d " ")" = 7 ] &&
   ! grep -q "^misuse" "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log"'
# teardown: after the last copy out, every stream synchronised before any destroy
awk '/^d2h/ { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' "$tmp/log" >"$tmp/td"
t "a. ro: teardown synchronises streams 0, 1, 2 before destroying anything" \
  '[ "$(sed -n 1,3p "$tmp/td" | tr "\n" " ")" = "sync s0 sync s1 sync s2 " ]'
t "a. ro: teardown destroys events and streams in reverse order of creation" \
  '[ "$(grep "^destroy" "$tmp/td" | cut -d" " -f2 | tr "\n" " ")" = "$(grep "^event\|^stream" "$tmp/log" |
      sed "s/^event \(e[0-9]*\).*/\1/; s/^stream \([0-9]*\).*/s\1/" | sed -n "1!G;h;\$p" | tr "\n" " ")" ]'
for i in 1 2 3 4; do mk npy "$tmp/ms/in$i.npy" '<f2' 1000 1000; done
run_mock ms ./out/model_launcher --input in1=in1.npy --input in2=in2.npy --input in3=in3.npy --input in4=in4.npy \
    --warmup 0 --iters 1
t "a. ms (eager): events with aclrtCreateEvent, no flag" \
  '[ $rc -eq 0 ] && [ "$(grep -c "^event e[0-9]*$" "$tmp/log")" = 5 ] && ! grep -q "^event.*sync" "$tmp/log"'
mk npy "$tmp/sk/x.npy" '<f4' 1 2048
mk npy "$tmp/sk/w.npy" '<f4' 2048 256
mk npy "$tmp/sk/b.npy" '<f4' 256
run_mock sk ./out/model_launcher --input x=x.npy --input weight=w.npy --input bias=b.npy --warmup 0 --iters 2
t "a. sk (reduce-overhead, one stream): no event is recorded, none needs the flag" \
  '[ $rc -eq 0 ] && ! grep -q "^record" "$tmp/log" && ! grep -q "^event.*sync" "$tmp/log" && grep -q "^replay s0$" "$tmp/log"'

# ---- b. a failure at each call of a good run ----
for m in ro dy ms sk wt; do
    rm -f "$tmp/calls"
    run_mock "$m" env TNGC_ACL_MOCK_CALLS="$tmp/calls" ./driver 3 $(weights "$m")
    t "b. $m: a good run: status 0, silent, no misuse, all released" \
      '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && ! grep -q "^misuse" "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log" ||
       { cat "$tmp/e"; grep "^misuse" "$tmp/log"; false; }'
    awk '{ print $1 ":" ++n[$1] }' "$tmp/calls" >"$tmp/cases"
    ncase=0 bad=0
    while read -r case; do
        ncase=$((ncase + 1))
        run_mock "$m" env TNGC_ACL_MOCK_FAIL="$case" ./driver 3 $(weights "$m")
        hit=$(grep -n "^fail " "$tmp/log" | cut -d: -f1)
        torn=$(grep -n "^driver destroy$" "$tmp/log" | cut -d: -f1)
        why=
        if [ -z "$hit" ]; then
            why="the failure was not reached"
        elif grep -q "^misuse" "$tmp/log"; then
            why="misuse: $(grep "^misuse" "$tmp/log" | head -3 | tr "\n" ";")"
        elif [ $rc -ne 0 ]; then
            why="status $rc (86: a sanitizer report; 3: not recovered): $(head -5 "$tmp/e" | tr "\n" ";")"
        elif [ "$hit" -gt "${torn:-0}" ] || [ "${case%%:*}" = aclrtGetSocName ]; then
            # teardown reports nowhere; no SoC name: capture is tried as usual
            [ -s "$tmp/e" ] && why="printed: $(head -3 "$tmp/e" | tr "\n" ";")"
        elif [ "$(lines "$tmp/e")" != 1 ]; then
            why="$(lines "$tmp/e") error lines: $(head -3 "$tmp/e" | tr "\n" ";")"
        elif ! grep -q "^live 0 0 0 0 0$" "$tmp/log"; then
            why="not all released: $(grep "^live" "$tmp/log")"
        fi
        [ -z "$why" ] || { echo "  $m, $case: $why"; bad=$((bad + 1)); }
    done <"$tmp/cases"
    t "b. $m: each of its $ncase calls failed in turn: one line, no misuse, all released, the next run succeeds" \
      '[ $ncase -gt 20 ] && [ $bad -eq 0 ]'
done
# the message of a failed launch: the op's place, once, then the recovery
run_mock ro env TNGC_ACL_MOCK_FAIL=aclnnMm ./driver 3
t "b. ro: a failing operator in the first run: its line, then the next runs succeed" \
  '[ $rc -eq 0 ] && [ "$(cat "$tmp/e")" = "run 1: model.py:10:17: mm %3: aclnnMm failed: error 507001: mock: injected failure" ] &&
   [ "$(grep -c "^capture begin" "$tmp/log")" = 1 ] && [ "$(grep -c "^replay" "$tmp/log")" = 1 ] || { cat "$tmp/e"; false; }'
t "b. ro: after it, every stream synchronised before the next run copies in" \
  'awk "/^fail/ { f = 1 } f && /^sync s[0-2]$/ { s[\$2] = 1 } f && /^h2d/ { exit !(s[\"s0\"] && s[\"s1\"] && s[\"s2\"]) }" "$tmp/log"'
run_mock ro env TNGC_ACL_MOCK_FAIL=aclnnMm,aclrtSynchronizeStream:4 ./driver 3
t "b. ro: a stream that fails to synchronise after a failed launch: noted on the same line, retried next run" \
  '[ $rc -eq 0 ] && [ "$(lines "$tmp/e")" = 1 ] &&
   grep -q "aclnnMm failed: error 507001: mock: injected failure (then aclrtSynchronizeStream of stream 1 failed: error 507001)$" "$tmp/e" &&
   [ "$(awk "/^fail aclrtSync/ { f = 1 } f && /^sync s1$/ { n++ } END { print n }" "$tmp/log")" -ge 2 ] &&
   ! grep -q "^misuse" "$tmp/log" || { cat "$tmp/e"; false; }'

# ---- c. a chip that cannot capture ----
for soc in Ascend910A Ascend310B1; do
    run_mock ro env TNGC_ACL_MOCK_SOC=$soc ./out/model_launcher --input a=a.npy --input b=b.npy --warmup 1 --iters 3
    t "c. ro on $soc: status 0, one warning line naming the chip" \
      '[ $rc -eq 0 ] && [ "$(lines "$tmp/e")" = 1 ] &&
       grep -q "^./out/model_launcher: warning: model: $soc cannot capture model run instances (aclmdlRICapture\*): reduce-overhead runs eagerly, with the same results$" "$tmp/e" ||
       { cat "$tmp/e"; false; }'
    t "c. ro on $soc: every run eager, no capture, plain events, all released" \
      '! grep -q "capture\|replay" "$tmp/log" && [ "$(grep -c "^op aclnnMm s1$" "$tmp/log")" = 4 ] &&
       ! grep -q "^event.*sync" "$tmp/log" && ! grep -q "^misuse" "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log"'
done
run_mock ro env TNGC_ACL_MOCK_SOC=Ascend910B1 ./out/model_launcher --input a=a.npy --input b=b.npy --iters 1
t "c. ro on Ascend910B1: captured, no warning" '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && grep -q "^capture begin" "$tmp/log"'
run_mock sk env TNGC_ACL_MOCK_SOC=Ascend910A ./driver 2
t "c. sk on Ascend910A through the API: create's err carries the warning, the runs succeed" \
  '[ $rc -eq 0 ] && [ "$(lines "$tmp/e")" = 1 ] && grep -q "^create: warning: model: Ascend910A cannot capture" "$tmp/e"'
run_mock ms env TNGC_ACL_MOCK_SOC=Ascend910A TNGC_ACL_MOCK_CALLS="$tmp/calls" ./out/model_launcher --input in1=in1.npy \
    --input in2=in2.npy --input in3=in3.npy --input in4=in4.npy --warmup 0 --iters 1
t "c. ms (eager) on Ascend910A: no warning, the chip not even asked" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && ! grep -q "^aclrtGetSocName$" "$tmp/calls"'

echo "acl mock faults: $pass passed, $fail failed"
[ $fail -eq 0 ]
