#!/bin/sh
# The ACL target's FRACTAL_NZ weights and executor reuse, against the mock
# runtime (tests/acl/mock), driving the bundle API (tests/acl/mock_driver.c:
# create, load, three runs, destroy):
#
#   a. a weight every use of which is npu_format_cast(w, 29) into a matmul's
#      weight operand (linear's weight, mm's mat2) is described to
#      aclCreateTensor as ACL_FORMAT_FRACTAL_NZ with its NZ storage dims
#      ([..., ceil(w/16), ceil(h/16), 16, 16] for a [..., h, w] float
#      weight), its device block and its load sized for them; a weight also
#      read ND stays ND;
#   b. a static max-autotune gear's executors are made repeatable once and
#      launched again on runs 2 and 3 (each operator's first phase called
#      once), and destroyed at destroy; a failed launch or a failed
#      aclSetAclOpExecutorRepeatable drops that executor and the next run
#      asks again; every call of a good run failed in turn gives one error
#      line (none in teardown), no misuse, everything released (but what a
#      failing teardown call keeps), and the next run succeeds;
#   c. gears with run-time dims and captured (reduce-overhead) gears are
#      unchanged: a first phase per op and run (dynamic), no repeatable
#      executor (captured);
#   d. the mock itself: a plain executor launched twice, or an executor
#      destroyed twice, is misuse; a repeatable one launches again.
#
# usage: tests/acl/nz_reuse.sh TNGC
set -u
. "$(dirname "$0")/mocklib.sh"

# ---- the models ----
# nz: max-autotune, static; fc.weight and w2 cast to NZ for matmuls, w3 also read ND
mkdir -p "$tmp/nz"
cat >"$tmp/nz/model.py" <<'EOF'
import torch
import torch_npu
import torchair
from torchair.configs.compiler_config import CompilerConfig


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(40, 20)
        self.w2 = torch.nn.Parameter(torch.ones(20, 24))
        self.w3 = torch.nn.Parameter(torch.ones(24, 24))

    def forward(self, x):
        y = torch.nn.functional.linear(x, torch_npu.npu_format_cast(self.fc.weight, 29), self.fc.bias)
        z = torch.mm(y, torch_npu.npu_format_cast(self.w2, 29))
        z = torch.mm(z, torch_npu.npu_format_cast(self.w3, 29)) + self.w3[0]
        return torch.relu(z)


config = CompilerConfig()
config.mode = "max-autotune"
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
model(torch.ones(3, 40))
EOF
mk st "$tmp/nz/w.safetensors" fc.weight=20,40 fc.bias=20 w2=20,24 w3=24,24
# dy: run-time dims; ro: reduce-overhead (captured)
mkdir -p "$tmp/dy" "$tmp/ro"
cat >"$tmp/dy/model.py" <<'EOF'
import torch
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x, x]) + 1


config = torchair.CompilerConfig()
config.mode = "max-autotune"
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=True, fullgraph=True)
model(torch.ones(2, 8))
EOF
sed 's/max-autotune/reduce-overhead/; s/dynamic=True/dynamic=False/' "$tmp/dy/model.py" >"$tmp/ro/model.py"

for m in nz dy ro; do
    build_driver "$m" "builds"
done
[ -n "$san" ] && echo "nz_reuse: bundles and driver under ASan and UBSan"
export ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=86
weights() { [ "$1" = nz ] && echo w.safetensors; }

good() { [ $rc -eq 0 ] && ! grep -q "^misuse" "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log"; }
count() { grep -c "$1" "$2" | tr -d ' '; }

# ---- a. FRACTAL_NZ weights ----
run_mock nz env TNGC_ACL_MOCK_CALLS="$tmp/calls" ./driver 3 w.safetensors
t "a. nz: three runs, silent, no misuse, all released" 'good && [ ! -s "$tmp/e" ] || { cat "$tmp/e"; grep "^misuse" "$tmp/log"; false; }'
t "a. nz: fc.weight [20, 40], read transposed by linear: FRACTAL_NZ, storage [3, 2, 16, 16]" \
  'grep -q "^tensor nz view 40x20 storage 3x2x16x16$" "$tmp/log"'
t "a. nz: w2 [20, 24], mm's mat2: FRACTAL_NZ, storage [2, 2, 16, 16]" \
  'grep -q "^tensor nz view 20x24 storage 2x2x16x16$" "$tmp/log"'
t "a. nz: w3, also added ND: stays ND (two NZ tensors in all)" '[ "$(count "^tensor nz" "$tmp/log")" = 2 ]'
t "a. nz: the NZ weights are loaded padded (6144 and 4096 bytes), the others ND" \
  '[ "$(grep "^h2d" "$tmp/log" | head -4 | tr "\n" " ")" = "h2d 6144 h2d 80 h2d 4096 h2d 2304 " ]'
grep -q "tngc__tensor_nz(2, (const int64_t\[\]){40, 20}, (const int64_t\[\]){1, 40}, 0, ACL_FLOAT, 4, (const int64_t\[\]){3, 2, 16, 16}, c->w\[0\])" \
    "$tmp/nz/out/model.c"
t "a. nz: the generated descriptor" '[ $? -eq 0 ]'
t "a. nz: the NZ table" 'grep -q "^static const unsigned char tngc__weight_nz\[\] = {16, 0, 16, 0, 0};$" "$tmp/nz/out/model.c"'

# ---- b. executor reuse ----
nops=$(count "^op " "$tmp/log")
t "b. nz: every op's first phase called once over three runs" \
  '[ "$(grep "^getws" "$tmp/log" | sort | tr "\n" " ")" = "getws aclnnAdd 1 getws aclnnAddmm 1 getws aclnnInplaceCopy 1 getws aclnnMm 2 getws aclnnRelu 1 " ]'
t "b. nz: 6 executors made repeatable, launched on each of the 3 runs" \
  '[ "$(count "^repeatable" "$tmp/log")" = 6 ] && [ "$nops" = 18 ]'
t "b. nz: the 6 destroyed, after the runs" \
  '[ "$(count "^aclDestroyAclOpExecutor$" "$tmp/calls")" = 6 ] &&
   [ "$(sed -n "/^aclDestroyAclOpExecutor$/,\$p" "$tmp/calls" | grep -c "GetWorkspaceSize\|^aclnn[A-Za-z]*$")" = 0 ]'
run_mock nz env TNGC_ACL_MOCK_FAIL=aclSetAclOpExecutorRepeatable ./driver 3 w.safetensors
t "b. nz: aclSetAclOpExecutorRepeatable fails: one line, then the next runs succeed" \
  'good && [ "$(cat "$tmp/e")" = "run 1: model.py:15:13: linear %4: aclSetAclOpExecutorRepeatable failed: error 507001: mock: injected failure" ] || { cat "$tmp/e"; false; }'
run_mock nz env TNGC_ACL_MOCK_FAIL=aclnnMm:3 ./driver 3 w.safetensors
t "b. nz: a reused executor's launch fails in run 2: dropped, asked again in run 3" \
  'good && [ "$(cat "$tmp/e")" = "run 2: model.py:16:13: mm %7: aclnnMm failed: error 507001: mock: injected failure" ] &&
   grep -q "^getws aclnnMm 3$" "$tmp/log" || { cat "$tmp/e"; grep "^getws\|^misuse" "$tmp/log"; false; }'
rm -f "$tmp/calls"
run_mock nz env TNGC_ACL_MOCK_CALLS="$tmp/calls" ./driver 3 w.safetensors
awk '{ print $1 ":" ++n[$1] }' "$tmp/calls" >"$tmp/cases"
ncase=0 bad=0
while read -r case; do
    ncase=$((ncase + 1))
    run_mock nz env TNGC_ACL_MOCK_FAIL="$case" ./driver 3 w.safetensors
    hit=$(grep -n "^fail " "$tmp/log" | cut -d: -f1)
    torn=$(grep -n "^driver destroy$" "$tmp/log" | cut -d: -f1)
    why=
    if [ -z "$hit" ]; then why="the failure was not reached"
    elif grep -q "^misuse" "$tmp/log"; then why="misuse: $(grep "^misuse" "$tmp/log" | head -3 | tr "\n" ";")"
    elif [ $rc -ne 0 ]; then why="status $rc: $(head -3 "$tmp/e" | tr "\n" ";")"
    elif [ "$hit" -gt "${torn:-0}" ]; then   # teardown reports nowhere and goes on
        [ -s "$tmp/e" ] && why="printed: $(head -3 "$tmp/e" | tr "\n" ";")"
    elif [ "$(lines "$tmp/e")" != 1 ]; then why="$(lines "$tmp/e") error lines: $(head -3 "$tmp/e" | tr "\n" ";")"
    elif ! grep -q "^live 0 0 0 0 0$" "$tmp/log"; then why="not all released: $(grep "^live" "$tmp/log")"
    fi
    [ -z "$why" ] || { echo "  nz, $case: $why"; bad=$((bad + 1)); }
done <"$tmp/cases"
t "b. nz: each of its $ncase calls failed in turn: no misuse, all released, the next run succeeds" \
  '[ $ncase -gt 40 ] && [ $bad -eq 0 ]'

# ---- c. dynamic and captured gears unchanged ----
run_mock dy ./driver 3
t "c. dy (run-time dims): a first phase per op and run, nothing repeatable" \
  'good && [ "$(grep "^getws" "$tmp/log" | sort | tr "\n" " ")" = "getws aclnnAdds 3 getws aclnnCat 3 " ] &&
   ! grep -q "^repeatable" "$tmp/log"'
run_mock ro ./driver 3
t "c. ro (captured): eager run and capture ask, replays do not; nothing repeatable" \
  'good && [ "$(grep "^getws" "$tmp/log" | sort | tr "\n" " ")" = "getws aclnnAdds 2 getws aclnnCat 2 " ] &&
   ! grep -q "^repeatable" "$tmp/log" && [ "$(count "^replay" "$tmp/log")" = 2 ]'

# ---- d. the mock's executor rules ----
cat >"$tmp/ex.c" <<'EOF'
#include "acl/acl.h"
#include <stdint.h>
typedef struct aclOpExecutor aclOpExecutor;
int32_t mock_ws(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor);
int32_t mock_run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
int32_t aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
int32_t aclDestroyAclOpExecutor(aclOpExecutor *executor);
int main(int argc, char **argv)
{
    aclrtStream s;
    aclOpExecutor *e;
    uint64_t n;
    void *ws;
    int plain = argc > 1 && argv[1][0] == 'p';
    aclrtCreateStreamWithConfig(&s, 0, 0);
    mock_ws("aclnnRelu", &n, &e);
    aclrtMalloc(&ws, n, ACL_MEM_MALLOC_HUGE_FIRST);
    if (!plain)
        aclSetAclOpExecutorRepeatable(e);
    mock_run("aclnnRelu", ws, n, e, s);
    mock_run("aclnnRelu", ws, n, e, s);
    if (!plain) {
        aclDestroyAclOpExecutor(e);
        aclDestroyAclOpExecutor(e);
    }
    aclrtSynchronizeStream(s);
    aclrtFree(ws);
    aclrtDestroyStream(s);
    return 0;
}
EOF
$cc -std=c11 -I"$root/tests/acl/cann/include" -o "$tmp/ex" "$tmp/ex.c" -L"$fake/lib64" -Wl,-rpath,"$fake/lib64" \
    -lascendcl 2>"$tmp/e"
t "d. the executor probe builds" '[ $? -eq 0 ] || { head -5 "$tmp/e"; false; }'
run_mock nz "$tmp/ex" plain
t "d. a plain executor launched twice: misuse" \
  '[ "$(grep "^misuse" "$tmp/log")" = "misuse aclnnRelu: an executor of aclnnRelu used again after its run or destroy (not repeatable)" ] &&
   [ "$(count "^op aclnnRelu" "$tmp/log")" = 1 ]'
run_mock nz "$tmp/ex" repeatable
t "d. a repeatable one: launched twice, destroyed once; a second destroy is misuse" \
  '[ "$(count "^op aclnnRelu" "$tmp/log")" = 2 ] &&
   [ "$(grep "^misuse" "$tmp/log")" = "misuse aclDestroyAclOpExecutor: an executor of aclnnRelu used again after its run or destroy" ]'

# ---- e. the bytes loaded for the two NZ weights, element by element: NZ of
# [h, w] is [ceil(w/16), ceil(h/16), 16, 16] for float32, (i, j) at
# ((j/16 * h1 + i/16) * 16 + i%16) * 16 + j%16, the padding zero
rm -f "$tmp/h2d"
/usr/bin/python3 - "$tmp/nz/wv.safetensors" <<'PY'
import json, struct, sys
shapes = {"fc.weight": [20, 40], "fc.bias": [20], "w2": [20, 24], "w3": [24, 24]}
head, data = {}, b""
for name, shape in shapes.items():
    count = 1
    for d in shape:
        count *= d
    vals = struct.pack("<%df" % count, *[k + 1.0 for k in range(count)])   # every element distinct
    head[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + len(vals)]}
    data += vals
h = json.dumps(head).encode()
h += b" " * (-len(h) % 8)
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h + data)
PY
run_mock nz env TNGC_ACL_MOCK_H2D="$tmp/h2d" ./driver 1 wv.safetensors
/usr/bin/python3 - "$tmp/nz/wv.safetensors" "$tmp/h2d" >"$tmp/nzcheck" 2>&1 <<'PY'
import json, struct, sys
st = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", st[:8])[0]
head = json.loads(st[8:8 + n])
def weight(name):
    e = head[name]
    a, b = e["data_offsets"]
    raw = st[8 + n + a:8 + n + b]
    return e["shape"], struct.unpack("<%df" % (len(raw) // 4), raw)
blobs, d = [], open(sys.argv[2], "rb").read()
while d:
    k = struct.unpack("<Q", d[:8])[0]
    blobs.append(d[8:8 + k])
    d = d[8 + k:]
def nz(shape, vals):
    h, w = shape
    h1, w1 = (h + 15) // 16, (w + 15) // 16
    out = [0.0] * (w1 * h1 * 256)
    for i in range(h):
        for j in range(w):
            out[((j // 16 * h1 + i // 16) * 16 + i % 16) * 16 + j % 16] = vals[i * w + j]
    return struct.pack("<%df" % len(out), *out)
want = [nz(*weight("fc.weight")), nz(*weight("w2"))]
got = [b for b in blobs if len(b) in (6144, 4096)]
if got[:2] != want:
    sys.exit("NZ bytes differ from the reference layout")
PY
t "a. nz: fc.weight and w2 loaded in the NZ element order, zero-padded" '[ $? -eq 0 ] || { cat "$tmp/nzcheck"; false; }'

echo "acl nz and executor reuse: $pass passed, $fail failed"
[ $fail -eq 0 ]
