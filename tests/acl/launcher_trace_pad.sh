#!/bin/sh
# The ACL launcher's --trace and --pad, and what ACL programs link, against
# the mock runtime (tests/acl/mock; no NPU here):
#
#   1. the launcher links libtngcrt_core.a, not libtngcrt.a, and no
#      OpenBLAS: no -lopenblas on its link line (seen through a --cc
#      wrapper), no cblas_ symbol in it (nm), no libopenblas it needs
#      (readelf -d);
#   2. --trace writes a Chrome trace (python3 json.load) of the last timed
#      run: one named track per stream, each op's slice named by its place
#      in the script on its stream, a "wait eN" slice and a flow arrow per
#      plan event wait, stream 0's copies and synchronisation; a replayed
#      reduce-overhead run shows as its replay; a missing directory, or
#      stdout on a full device, is exit status 2 with one line and nothing
#      left behind; float16 inputs read from '<f4' files, --widen-outputs
#      writing every output as '<f4', a '<i4' file refused in one line;
#   3. --pad as launcher.c (tests/launcher/run.sh's cases, same messages and
#      statuses): padded up to the smallest gear that holds the inputs, the
#      gear and the padded inputs printed, the outputs cropped back; no gear
#      large enough, sizes that disagree, a dim not row-independent, and no
#      --pad are exit status 2 with one line and nothing in --out-dir;
#   4. named outputs (a returned dict): <key>.npy each, listed by --help; an
#      output named like an input updated in place refused before any run.
#
# usage: tests/acl/launcher_trace_pad.sh TNGC
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
lines() { wc -l < "$1" | tr -d ' '; }
fake=$tmp/fakecann
sh "$here/mock/build.sh" "$fake" >"$tmp/e" 2>&1
t "the mock runtime builds" '[ $? -eq 0 ] || { head "$tmp/e"; false; }'
mk() { /usr/bin/python3 "$here/data.py" "$@" || python3 "$here/data.py" "$@"; }
stage() {   # dir name -> $tmp/name
    rm -rf "${tmp:?}/${2:?}"
    cp -r "$1" "$tmp/$2"
    mkdir -p "$tmp/$2/static_kernel_build"
}
build() {   # dir [tngc build options]: builds model.py into dir/out
    d=$1
    shift
    (cd "$d" && ASCEND_TOOLKIT_HOME=$fake "$tngc" build --target acl --no-cache -o out "$@" model.py) >"$tmp/o" 2>&1
}
run_mock() {   # dir launcher args... -> $tmp/log, $tmp/o, $tmp/e; status in rc
    rm -f "$tmp/log"
    (cd "$1" && shift && TNGC_ACL_MOCK_LOG=$tmp/log "$@") >"$tmp/o" 2>"$tmp/e"
    rc=$?
}

# ---- 1. the link: libtngcrt_core, no OpenBLAS ----
stage "$root/examples/multi_stream" ms
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\nexec %s "$@"\n' "$tmp/cc.log" "${CC:-clang}" >"$tmp/ccwrap"
chmod +x "$tmp/ccwrap"
build "$tmp/ms" --cc "$tmp/ccwrap"
t "link: the launcher is built" '[ $? -eq 0 ] && [ -x "$tmp/ms/out/model_launcher" ] || { cat "$tmp/o"; false; }'
grep -e '-o [^ ]*/model_launcher ' "$tmp/cc.log" >"$tmp/ld" 2>/dev/null
t "link: one link line, with libtngcrt_core.a and -lascendcl, without -lopenblas or libtngcrt.a" \
  '[ "$(lines "$tmp/ld")" = 1 ] && grep -q "/libtngcrt_core\.a " "$tmp/ld" && grep -q -- "-lascendcl" "$tmp/ld" &&
   ! grep -q -- "-lopenblas" "$tmp/ld" && ! grep -q "/libtngcrt\.a" "$tmp/ld" || { cat "$tmp/ld"; false; }'
t "link: no cblas_ symbol in the launcher (nm)" \
  'nm "$tmp/ms/out/model_launcher" >"$tmp/nm" && ! grep -q "cblas_" "$tmp/nm"'
t "link: the launcher needs no libopenblas (readelf -d)" \
  'readelf -d "$tmp/ms/out/model_launcher" >"$tmp/dyn" && grep -q "libascendcl" "$tmp/dyn" && ! grep -qi "openblas" "$tmp/dyn"'

# ---- 2. --trace ----
for i in 1 2 3 4; do mk npy "$tmp/ms/in$i.npy" '<f2' 1000 1000; done
ms_in="--input in1=in1.npy --input in2=in2.npy --input in3=in3.npy --input in4=in4.npy"
mkdir -p "$tmp/ms/res"
# shellcheck disable=SC2086  # $ms_in is a word list
run_mock "$tmp/ms" ./out/model_launcher $ms_in --out-dir res --warmup 1 --iters 3 --trace res/t.json
t "trace: runs, status 0, nothing on stderr, says it wrote the trace" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && grep -q "^wrote res/t.json$" "$tmp/o" || { cat "$tmp/e"; false; }'
cat >"$tmp/check_trace.py" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
nstreams, want = int(sys.argv[2]), sys.argv[3:]
ev = doc["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
assert sorted(names) == list(range(nstreams)), names
slices = [e for e in ev if e.get("ph") == "X"]
assert all(0 <= e["tid"] < nstreams and e["dur"] >= 0 and e["ts"] >= 0 for e in slices)
for tid in range(nstreams):
    assert any(e["tid"] == tid for e in slices), "no slice on stream %d" % tid
got = ["%d %s" % (e["tid"], e["name"]) for e in slices]
for w in want:
    assert w in got, "no slice '%s' in %s" % (w, got)
starts = {e["id"]: e for e in ev if e.get("ph") == "s"}
ends = {e["id"]: e for e in ev if e.get("ph") == "f"}
assert sorted(starts) == sorted(ends)
for i, s in starts.items():
    assert s["name"] == ends[i]["name"] and s["ts"] <= ends[i]["ts"]
print(len(slices), len(starts))
EOF
t "trace: valid JSON; three named tracks; ops on their streams; waits; copies and sync on stream 0; e0, e1 arrows" \
  'python3 "$tmp/check_trace.py" "$tmp/ms/res/t.json" 3 "0 model.py:24:22: add %4" "1 model.py:29:25: mm %5" \
      "2 model.py:35:20: add %7" "1 wait e0" "2 wait e1" "0 inputs to the device (aclrtMemcpy)" \
      "0 synchronize (aclrtSynchronizeStream)" "0 outputs to the host (aclrtMemcpy)" >"$tmp/py" 2>&1 &&
   [ "$(cat "$tmp/py")" = "9 2" ] || { cat "$tmp/py"; false; }'
t "trace: the last run only (each op once), everything released" \
  '[ "$(grep -c "\"name\":\"model.py:30:15: mm %6\"" "$tmp/ms/res/t.json")" = 1 ] && grep -q "^live 0 0 0 0 0$" "$tmp/log"'
rm -rf "$tmp/ms/res" && mkdir "$tmp/ms/res"
# shellcheck disable=SC2086
run_mock "$tmp/ms" ./out/model_launcher $ms_in --out-dir res --trace nope/t.json
t "trace: a missing directory: status 2, one line, before any run" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && grep -q -- "--trace .nope/t.json.: no such directory" "$tmp/e" &&
   [ -z "$(ls -A "$tmp/ms/res")" ] && [ ! -s "$tmp/log" ]'
(cd "$tmp/ms" && TNGC_ACL_MOCK_LOG=$tmp/log ./out/model_launcher $ms_in --out-dir res --trace res/t.json \
    >/dev/full 2>"$tmp/e")
rc=$?
t "trace: stdout on a full device: status 2, one line, no trace nor output left" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && grep -q "stdout: write error" "$tmp/e" && [ -z "$(ls -A "$tmp/ms/res")" ]'

# float16 inputs from '<f4' files (rounded on load), --widen-outputs
for i in 1 2 3 4; do mk npy "$tmp/ms/f$i.npy" '<f4' 1000 1000; done
mk npy "$tmp/ms/i4.npy" '<i4' 1000 1000
rm -rf "$tmp/ms/res" && mkdir "$tmp/ms/res"
run_mock "$tmp/ms" ./out/model_launcher --input in1=f1.npy --input in2=f2.npy --input in3=f3.npy \
    --input in4=f4.npy --out-dir res --warmup 0 --iters 1 --widen-outputs
all_f4() {   # dir: it holds .npy files, every one '<f4'
    for f in "$1"/*.npy; do
        [ -f "$f" ] && head -c 128 "$f" | grep -q "'descr': '<f4'" || return 1
    done
}
t "half files: f16 inputs from '<f4' .npy files; --widen-outputs writes every output as '<f4'" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && all_f4 "$tmp/ms/res" || { cat "$tmp/e"; ls "$tmp/ms/res"; false; }'
rm -rf "$tmp/ms/res" && mkdir "$tmp/ms/res"
run_mock "$tmp/ms" ./out/model_launcher --input in1=i4.npy --input in2=f2.npy --input in3=f3.npy \
    --input in4=f4.npy --out-dir res --warmup 0 --iters 1
t "half files: a '<i4' file for an f16 input: status 2, one line naming the input and what is accepted" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] &&
   grep -q "input .in1.: i4.npy: dtype .<i4.: an f16 tensor is read from a .<f2. .npy or a .<f4. .npy" "$tmp/e" &&
   [ -z "$(ls -A "$tmp/ms/res")" ] || { cat "$tmp/e"; false; }'

# reduce-overhead: the traced run is a replay of the captured one
stage "$root/examples/static_kernel" sk
build "$tmp/sk"
mk npy "$tmp/sk/x.npy" '<f4' 1 2048
mk npy "$tmp/sk/w.npy" '<f4' 2048 256
mk npy "$tmp/sk/b.npy" '<f4' 256
run_mock "$tmp/sk" ./out/model_launcher --input x=x.npy --input weight=w.npy --input bias=b.npy --iters 2 --trace t.json
t "trace: reduce-overhead: the last run is one replay slice on stream 0, no op slice" \
  '[ $rc -eq 0 ] && python3 "$tmp/check_trace.py" "$tmp/sk/t.json" 1 "0 replay (aclmdlRIExecuteAsync)" >"$tmp/py" 2>&1 &&
   ! grep -q "\"name\":\"model.py:" "$tmp/sk/t.json" || { cat "$tmp/py" "$tmp/e"; false; }'

# ---- 3. --pad, as tests/launcher/run.sh ----
stage "$root/examples/dim_gears" dg
build "$tmp/dg"
t "pad: dim_gears builds" '[ $? -eq 0 ] || { cat "$tmp/o"; false; }'
for n in 2 3 5; do mk npy "$tmp/dg/x$n.npy" '<f4' $n 2; done
mkdir -p "$tmp/dg/res"
run_mock "$tmp/dg" ./out/model_launcher --input x1=x3.npy --input x2=x3.npy --out-dir res --pad --trace res/t.json
t "pad 3 -> 4: gear 1, both inputs padded, status 0, nothing on stderr" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && grep -qx "gear 1: s0=4" "$tmp/o" && grep -qx "padded: x1 \[3,2\] -> \[4,2\]" "$tmp/o" &&
   grep -qx "padded: x2 \[3,2\] -> \[4,2\]" "$tmp/o" || { cat "$tmp/e" "$tmp/o"; false; }'
t "pad: the output cropped back to [3,2]; the run was [4,2] (32-byte copies)" \
  'head -c 128 "$tmp/dg/res/out0.npy" | grep -q "'"'"'shape'"'"': (3, 2)" && grep -q "^h2d 32$" "$tmp/log" &&
   grep -q "^d2h 32$" "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log"'
t "pad: the trace too" 'python3 "$tmp/check_trace.py" "$tmp/dg/res/t.json" 1 >/dev/null 2>&1'
reject() {   # name needle args...: status 2, one line holding needle, nothing in res
    name=$1 needle=$2
    shift 2
    rm -rf "$tmp/dg/res" && mkdir "$tmp/dg/res"
    run_mock "$tmp/dg" ./out/model_launcher --out-dir res "$@"
    t "$name: status 2, one line, nothing left" \
      '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && grep -Fq -- "$needle" "$tmp/e" && [ -z "$(ls -A "$tmp/dg/res")" ] ||
       cat "$tmp/e"'
}
reject "no --pad" "input shapes x1=[3,2], x2=[3,2] match no gear; gears: s0=2, s0=4 (--pad pads up to a larger gear)" \
    --input x1=x3.npy --input x2=x3.npy
reject "pad: too large" "match no gear; gears: s0=2, s0=4 (--pad: no gear is large enough)" \
    --input x1=x5.npy --input x2=x5.npy --pad
reject "pad: sizes disagree" "input 'x2' dim 0 is 2, but s0 is 3 (input 'x1' dim 0)" \
    --input x1=x3.npy --input x2=x2.npy --pad

# a geared dim that is reduced over: not row-independent
mkdir -p "$tmp/np"
cat >"$tmp/np/model.py" <<'EOF'
import torch
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return x.sum(0)


x = torch.ones(2, 4)
config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), fullgraph=True, backend=backend)
torchair.inference.set_dim_gears(x, dim_gears={0: [2, 4]})
model(x)
EOF
build "$tmp/np"
mk npy "$tmp/np/x3.npy" '<f4' 3 4
mkdir -p "$tmp/np/res"
run_mock "$tmp/np" ./out/model_launcher --out-dir res --input x=x3.npy --pad
t "pad: not row-independent: status 2, one line, nothing left" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && [ -z "$(ls -A "$tmp/np/res")" ] &&
   grep -Fq "dim s0 (input '"'"'x'"'"' dim 0) cannot be padded: the planner did not prove it row-independent" "$tmp/e" ||
   cat "$tmp/o" "$tmp/e"'
run_mock "$tmp/np" ./out/model_launcher --out-dir res --input x=x3.npy
t "no --pad, no paddable dim: the message does not suggest --pad" \
  '[ $rc -eq 2 ] && grep -q "match no gear; gears: s0=2, s0=4$" "$tmp/e" || { cat "$tmp/e"; false; }'

# ---- 4. named outputs ----
# a returned dict names the outputs: res/<key>.npy; --help lists them; an
# output named like an input updated in place is refused before any run
mkdir -p "$tmp/no"
cat >"$tmp/no/model.py" <<'EOF'
import torch
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return {"logits": x * 2, "layer.0-norm": x + 1}


class Clash(torch.nn.Module):
    def forward(self, x, cache):
        cache.add_(x)
        return {"cache": x - 1}


x = torch.ones(2, 4)
cache = torch.zeros(2, 4)
config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), fullgraph=True, backend=backend)
clash = torch.compile(Clash(), fullgraph=True, backend=backend)
model(x)
clash(x, cache)
EOF
build "$tmp/no"
t "named: builds" '[ $? -eq 0 ] || { cat "$tmp/o"; false; }'
mk npy "$tmp/no/x.npy" '<f4' 2 4
mkdir -p "$tmp/no/res" "$tmp/no/res2"
run_mock "$tmp/no" ./out/model_Model_forward_launcher --out-dir res --input x=x.npy
t "named: status 0; res holds logits.npy and layer.0-norm.npy only" \
  '[ $rc -eq 0 ] && [ "$(ls -A "$tmp/no/res" | LC_ALL=C sort | tr "\n" " ")" = "layer.0-norm.npy logits.npy " ] ||
   { ls -A "$tmp/no/res"; cat "$tmp/e"; false; }'
run_mock "$tmp/no" ./out/model_Model_forward_launcher --help
t "named: --help lists the outputs by name" \
  '[ $rc -eq 0 ] && grep -q "^  logits f32, 2 dims$" "$tmp/o" && grep -q "^  layer.0-norm f32" "$tmp/o" ||
   { cat "$tmp/o" "$tmp/e"; false; }'
run_mock "$tmp/no" ./out/model_Clash_forward_launcher --out-dir res2 --input x=x.npy --input cache=x.npy
t "named: an output named like an input updated in place: status 2, one line, before any run" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] &&
   grep -Fq "output '"'"'cache'"'"' and input '"'"'cache'"'"' would both be written to one .npy file" "$tmp/e" &&
   [ -z "$(ls -A "$tmp/no/res2")" ] && [ ! -s "$tmp/log" ] || { cat "$tmp/e"; false; }'

echo "acl launcher: $pass passed, $fail failed"
[ $fail -eq 0 ]
