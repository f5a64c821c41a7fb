#!/bin/sh
# The ACL target (--target acl). No NPU and no CANN are here, so the
# generated code is compiled against tests/acl/cann/include (declarations of
# the AscendCL functions and types it uses, written from CANN's public
# documentation; acl/ is C, aclnn/ and aclnnop/ are C++ only, as CANN's
# are) and run against tests/acl/mock (a stand-in runtime that logs the
# calls that order work). It has not run on hardware; tests/acl/real_cann.sh
# compiles the same sources against CANN's real headers where a copy is.
#
#   1. every example builds with `tngc build --target acl` against the
#      declarations: lib<name>.a, warning-free (-Wall -Werror), and one line
#      saying no launcher is linked (no libascendcl); every generated file
#      also compiles with -Wextra -Wpedantic;
#   2. every conformance model (every op family) builds the same way, but
#      for the ops with no aclnn operator, which fail naming the op; so do
#      the op sweep's models (every row of ir/ops.def); the
#      aclnn headers do not compile as C, and the aclnn declarations the
#      bundles make themselves (the template's, the operators') compile in
#      C++ after the headers, so they are the headers' (a changed one fails);
#   3. golden ACL sources of the multi-stream and super-kernel examples
#      (tests/golden/acl/X.c: `tngc gen --target acl --no-line`), checked
#      for one aclrtStream per stream tag, event records and waits at the
#      planned edges, and one arena per gear (also on the dim_gears example);
#   4. without CANN, --target acl fails with one line and exit status 2;
#      an op with no aclnn operator (unmapped.py) fails naming it, and so
#      does scaled_dot_product_attention in a gear with run-time dims
#      (sdpa_dyn.py); npu_weight_quant_batchmatmul in the forms
#      aclnnWeightQuantBatchMatmulV2 does not take fails naming each
#      (weight_quant.py);
#   5. against the mock runtime: launchers link and run (streams with their
#      priorities, events recorded before they are waited for, copies only at
#      the boundary, reduce-overhead captured once and replayed, weights
#      copied once, every resource released), and an AscendCL failure gives
#      one line naming the call and the op's place in the script.
#
# The builds of sections 1 and 2 and of the op sweep's models pass
# --opt -O0: clang reports its warnings before optimising (-Werror fails
# the same at -O0 and -O2) and compiles several times faster (3.0 s at
# -O2, 0.4 s at -O0 for tests/conform/models/complex_rope.py); the optimiser
# and gcc's flow warnings are real_cann.sh's (gcc -O2 against CANN's
# headers).
#
# usage: tests/acl/run.sh TNGC        UPDATE=1 rewrites tests/golden/acl/
set -u
tngc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cann=$here/cann
golden=$root/tests/golden/acl
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
lines() { wc -l < "$1" | tr -d ' '; }
cc=${CC:-clang}
cxx=${CXX:-clang++}
strict="-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I$root/runtime -I$cann/include"
. "$here/decls.sh"

# A copy of a script's folder, with the build dirs its scripts name.
stage() {   # dir name -> $tmp/name
    rm -rf "$tmp/$2"
    cp -r "$1" "$tmp/$2"
    mkdir -p "$tmp/$2/static_kernel_build"
}

# Compiles every generated .c of dir with the strict flags.
compiles() {   # dir
    for c in "$1"/*.c; do
        $cc $strict -I"$1" "$c" 2>"$tmp/cc" || { head -10 "$tmp/cc"; return 1; }
    done
}

# ---- 1. every example builds against the declarations ----
# (an example's scripts are its Makefile's TNGC_BUNDLES; its other .py files
# are modules they import)
for mk in "$root"/examples/*/Makefile; do
  for py in $(sed -n 's/^TNGC_BUNDLES *:= *//p' "$mk"); do
    py=$(dirname "$mk")/$py
    ex=$(basename "$(dirname "$py")")_$(basename "$py" .py)
    stage "$(dirname "$py")" "$ex"
    (cd "$tmp/$ex" && ASCEND_TOOLKIT_HOME=$cann "$tngc" build --target acl --no-cache --opt -O0 -o out "$(basename "$py")") \
        >"$tmp/o" 2>"$tmp/e"
    rc=$?
    t "build $ex: status 0, lib<name>.a, no launcher, said in one line per bundle" \
      '[ $rc -eq 0 ] && ls "$tmp/$ex/out"/lib*.a >/dev/null 2>&1 && ! ls "$tmp/$ex/out"/*_launcher >/dev/null 2>&1 &&
       [ "$(grep -c "libascendcl.so is absent" "$tmp/o")" = "$(ls "$tmp/$ex/out"/lib*.a | wc -l | tr -d " ")" ]'
    t "build $ex: warning-free" '[ ! -s "$tmp/e" ] || { cat "$tmp/e"; false; }'
    t "build $ex: -Wextra -Wpedantic" 'compiles "$tmp/$ex/out"'
  done
done

# the templates compile on their own (the header with the ACL handle)
mkdir -p "$tmp/tpl"
sed 's/^typedef struct TngrtBundle tngc_template_t;/typedef struct tngc_template_acl tngc_template_t;/' \
    "$root/templates/tngc_template.h" >"$tmp/tpl/tngc_template.h"
cp "$root/templates/bundle_acl.c" "$root/templates/launcher_acl.c" "$tmp/tpl/"
t "templates/bundle_acl.c and launcher_acl.c compile on their own" \
  '$cc $strict "$tmp/tpl/bundle_acl.c" 2>"$tmp/cc" && $cc $strict "$tmp/tpl/launcher_acl.c" 2>>"$tmp/cc" || { head "$tmp/cc"; false; }'

# ---- 2. the conformance models: every op family ----
for py in "$root"/tests/conform/models/*.py; do
    m=conform_$(basename "$py" .py)
    stage "$(dirname "$py")" "$m"
    (cd "$tmp/$m" && ASCEND_TOOLKIT_HOME=$cann "$tngc" build --target acl --no-cache --opt -O0 -o out "$(basename "$py")") \
        >"$tmp/o" 2>&1
    rc=$?
    case $m in
    conform_binary)   # 3.0 / (y.abs() + 1.0): aclnnReciprocal, then aclnnInplaceMuls
        t "$m: builds as tngc build does (-Wall -Werror; -O0)" \
          '[ $rc -eq 0 ] && ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { head -5 "$tmp/o"; false; }'
        t "$m: -Wextra -Wpedantic" 'compiles "$tmp/$m/out"'
        t "$m: a scalar divided by a tensor is a reciprocal, then an in-place scaling" \
          'grep -A1 "TNGC_ACLNN(aclnnReciprocal, .*binary.py:22:25: div" "$tmp/$m/out/binary.c" |
           grep -q "TNGC_ACLNN(aclnnInplaceMuls, .*binary.py:22:25: div"' ;;
    conform_nn_sdpa)   # scaled_dot_product_attention: a chain of aclnn calls
        t "$m: builds as tngc build does (-Wall -Werror; -O0)" \
          '[ $rc -eq 0 ] && ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { head -5 "$tmp/o"; false; }'
        t "$m: -Wextra -Wpedantic" 'compiles "$tmp/$m/out"'
        t "$m: sdpa is q @ k^T, scaled, softmax, @ v; is_causal a -inf bias above the diagonal; half cast in and out (gear 0)" \
          '[ "$(grep -o "TNGC_ACLNN(aclnn[A-Za-z]*, [0-9]*, [0-9]*, \"nn_sdpa.py:27:25: sdpa %5\"" "$tmp/$m/out/nn_sdpa.c" |
                sed "s/,.*//" | head -n 4 | tr "\n" " ")" = "TNGC_ACLNN(aclnnMatmul TNGC_ACLNN(aclnnInplaceMuls TNGC_ACLNN(aclnnSoftmax TNGC_ACLNN(aclnnMatmul " ] &&
           grep "nn_sdpa.py:28:25: sdpa %6" "$tmp/$m/out/nn_sdpa.c" | grep -q "TNGC_ACLNN(aclnnTriu, .*, 1, " &&
           grep "nn_sdpa.py:30:25: sdpa %8" "$tmp/$m/out/nn_sdpa.c" | grep -q "TNGC_ACLNN(aclnnInplaceMaskedFillScalar" &&
           grep "nn_sdpa.py:27:25: sdpa %39" "$tmp/$m/out/nn_sdpa.c" | grep -q "TNGC_ACLNN(aclnnCast, .*ACL_FLOAT16"' ;;
    conform_npu_weight_quant)   # npu_weight_quant_batchmatmul: aclnnWeightQuantBatchMatmulV2
        t "$m: builds as tngc build does (-Wall -Werror; -O0)" \
          '[ $rc -eq 0 ] && ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { head -5 "$tmp/o"; false; }'
        t "$m: -Wextra -Wpedantic" 'compiles "$tmp/$m/out"'
        t "$m: each call is aclnnWeightQuantBatchMatmulV2, no output quantisation, the group size as given (gear 0)" \
          '[ "$(grep -c "TNGC_ACLNN(aclnnWeightQuantBatchMatmulV2, " "$tmp/$m/out/npu_weight_quant.c")" = 18 ] &&
           grep "npu_weight_quant.py:38:13: weight_quant_matmul" "$tmp/$m/out/npu_weight_quant.c" |
             grep -q "NULL, NULL, NULL, NULL, 0, G->t\[[0-9]*\]);" &&
           grep "npu_weight_quant.py:42:13: weight_quant_matmul" "$tmp/$m/out/npu_weight_quant.c" |
             grep -q "NULL, NULL, G->t\[[0-9]*\], 32, G->t\[[0-9]*\]);"' ;;
    conform_npu_weight_quant_bias)   # bias dtypes aclnnWeightQuantBatchMatmulV2 does not take
        t "$m: each call with an untaken bias dtype is refused at its line (TNG203)" \
          '[ $rc -eq 1 ] && grep -q "npu_weight_quant_bias.py:19:13: error: no aclnn operator for .weight_quant_matmul. (npu_weight_quant_batchmatmul with a bias of another dtype" "$tmp/o" &&
           grep -q "npu_weight_quant_bias.py:20:13: error: no aclnn operator for .weight_quant_matmul." "$tmp/o" &&
           [ -z "$(ls "$tmp/$m/out" 2>/dev/null)" ]' ;;
    conform_state_shared)   # the decode step's caches are state shared with the prefill's bundle
        t "$m: builds as tngc build does (-Wall -Werror; -O0)" \
          '[ $rc -eq 0 ] && ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { head -5 "$tmp/o"; false; }'
        t "$m: -Wextra -Wpedantic" 'compiles "$tmp/$m/out"'
        t "$m: the decode bundle declares _share_state and _own_state; its four caches are shared rows" \
          'grep -q "^int state_shared_Step_forward_share_state(state_shared_Step_forward_t \*self, const void \*owner);" "$tmp/$m/out/state_shared_Step_forward.h" &&
           grep -q "^int state_shared_Step_forward_own_state(state_shared_Step_forward_t \*self);" "$tmp/$m/out/state_shared_Step_forward.h" &&
           [ "$(grep -c "\"Model.forward\", \"layers\.[01]\.cache_[kv]\"" "$tmp/$m/out/state_shared_Step_forward.c")" = 4 ]' ;;
    *)
        t "$m: builds as tngc build does (-Wall -Werror; -O0)" \
          '[ $rc -eq 0 ] && ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { head -5 "$tmp/o"; false; }'
        t "$m: -Wextra -Wpedantic" 'compiles "$tmp/$m/out"' ;;
    esac
done

# the op sweep's models (tests/sweep/gen.py: a call for every row of
# ir/ops.def), so that every op's ACL call is compiled without a model of
# its own: a call tngc refuses (TNG203) or that has no aclnn operator is
# left out, named, as tests/sweep/run.sh does for the CPU
mkdir -p "$tmp/sweep"
. "$root/tests/sweep/drop.sh"
sweep_out=$tmp/o
if ${PYTHON:-/usr/bin/python3} "$root/tests/sweep/gen.py" "$root/ir/ops.def" "$tmp/sweep" >"$tmp/o" 2>&1; then
    for py in "$tmp"/sweep/sweep_*.py; do
        m=$(basename "$py" .py)
        mkdir -p "$tmp/$m/static_kernel_build" && cp "$py" "$tmp/$m/"
        sweep_drop "$tmp/$m/$m.py" '\[TNG203\]\|no aclnn operator' "$m: left out:" \
            sh -c 'cd "$1" && ASCEND_TOOLKIT_HOME=$2 "$3" build --target acl --no-cache --opt -O0 -o out "$4"' - \
            "$tmp/$m" "$cann" "$tngc" "$m.py"
        t "$m: every row's ACL call builds (-Wall -Werror; -O0)" \
          'ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { head -5 "$tmp/o"; false; }'
        t "$m: -Wextra -Wpedantic" 'compiles "$tmp/$m/out"'
    done
else
    t "tests/sweep/gen.py writes the sweep's models" 'head -5 "$tmp/o"; false'
fi

# rsub.py: aclnnRsubs, the one operator of the table no other model reaches
mkdir -p "$tmp/rsub" && cp "$here/rsub.py" "$tmp/rsub/"
(cd "$tmp/rsub" && ASCEND_TOOLKIT_HOME=$cann "$tngc" build --target acl --no-cache -o out rsub.py) >"$tmp/o" 2>&1
t "a scalar minus a tensor builds (aclnnRsubs)" '[ $? -eq 0 ] && grep -q "TNGC_ACLNN(aclnnRsubs" "$tmp/rsub/out/rsub.c"'

# CANN's aclnn headers are C++: so are the stand-ins (acl/ is C)
ccfail=0 cxxfail=0
for h in "$cann"/include/aclnn/*.h "$cann"/include/aclnnop/*.h; do
    rel=${h#"$cann/include/"}
    printf '#include "%s"\n' "$rel" >"$tmp/inc.c"
    $cc -std=c11 -fsyntax-only -I"$cann/include" "$tmp/inc.c" 2>/dev/null && { echo "  C compiles $rel"; ccfail=1; }
    cp "$tmp/inc.c" "$tmp/inc.cpp"
    $cxx -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/inc.cpp" 2>"$tmp/cc" || { head -3 "$tmp/cc"; cxxfail=1; }
done
t "the aclnn stand-ins do not compile as C, as CANN's do not" '[ $ccfail -eq 0 ]'
t "the aclnn stand-ins compile as C++" '[ $cxxfail -eq 0 ]'
printf '#include "acl/acl.h"\n' >"$tmp/inc.c"
t "acl/acl.h is C" '$cc $strict "$tmp/inc.c"'
t "no generated source includes an aclnn header" \
  '! grep -l "^#include \"aclnn" "$tmp"/*/out/*.c "$root/templates/bundle_acl.c"'

# the bundles' own aclnn declarations are the headers': one C++ unit with both
srcs=$(ls "$tmp"/*/out/*.c | grep -v '_launcher\.c$')
decls_unit "$tmp/agree.cpp" "$root/templates/bundle_acl.c" $srcs
t "the bundles' aclnn declarations agree with the stand-ins (C++, -Werror)" \
  '$cxx -std=c++11 -Wall -Werror -fsyntax-only -I"$cann/include" "$tmp/agree.cpp" 2>"$tmp/cc" || { head "$tmp/cc"; false; }'
t "every stand-in operator is declared by some bundle (the check covers them all)" \
  '[ "$(decls_names $srcs)" = "$(sed -n "s/^aclnnStatus \(aclnn[A-Za-z0-9]*\)(void \*workspace.*/\1/p" "$cann"/include/aclnnop/*.h | sort -u)" ]'
sed 's/^aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor \*self, const aclTensor \*other,$/aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, aclTensor *other,/' \
    "$tmp/agree.cpp" >"$tmp/differ.cpp"
t "a declaration that differs (one const dropped) fails that unit" \
  '! cmp -s "$tmp/agree.cpp" "$tmp/differ.cpp" && ! $cxx -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/differ.cpp" 2>/dev/null'

# a gear's launch and descriptor code comes in functions of a bounded size
# (64 units, 128 descriptor statements: gcc's time on one function grows
# faster than its length; alias_views.py's gears have 1469 calls each)
longest=$(awk 'FNR == 1 { inf = 0 } /^\{$/ { inf = 1; n = 0; next }
               /^\}/ && inf { if (n > max) { max = n; w = FILENAME ":" FNR }; inf = 0 } inf { n++ }
               END { print max + 0, w }' "$tmp"/*/out/*.c)
t "the longest function of any generated source is under 600 lines ($longest)" '[ "${longest%% *}" -lt 600 ]'
t "alias_views.py's gears launch and build by pieces" \
  'grep -q "^static int g0_launch_22(" "$tmp"/conform_alias_views/out/alias_views_OpResults_forward.c &&
   grep -q "^static int g0_build_11(" "$tmp"/conform_alias_views/out/alias_views_OpResults_forward.c &&
   grep -q "^    if (g0_launch_22(self, G) != 0)" "$tmp"/conform_alias_views/out/alias_views_OpResults_forward.c'

# ---- 3. golden sources, and the plan's streams, events and arenas in them ----
for ex in multi_stream super_kernel; do
    rm -rf "$tmp/gen"
    (cd "$root/examples/$ex" && "$tngc" gen --target acl --no-line -o "$tmp/gen" model.py) >"$tmp/o" 2>&1
    rc=$?
    ls "$tmp/gen"/*.c | grep -v '_launcher.c$' | sort | xargs cat >"$tmp/$ex.c"
    [ "${UPDATE:-}" = 1 ] && mkdir -p "$golden" && cp "$tmp/$ex.c" "$golden/$ex.c"
    t "golden $ex" '[ $rc -eq 0 ] && diff -u "$golden/$ex.c" "$tmp/$ex.c" >"$tmp/d" || { head -40 "$tmp/d"; false; }'
done

# plan.awk prints, from `tngc plan` text: S <stream> <tag>, E <event> <from>
# <after op> <to> <before op>, G <gear> <arena bytes>.
cat >"$tmp/plan.awk" <<'EOF'
/^stream [0-9]+ default/ { print "S", $2, "default" }
/^stream [0-9]+ tag / { tag = $4; gsub(/"/, "", tag); print "S", $2, tag }
/^  e[0-9]+: stream / { e = $1; sub(/^e/, "", e); sub(/:$/, "", e); print "E", e, $3, $5, $8, $10 }
/^gear [0-9]+:/ { g = $2; sub(/:$/, "", g) }
/^  memory: arena / { print "G", g, $3 }
EOF
# gen.awk prints the same from the generated source: S from tngc__streams[],
# E from the TNGC_RECORD/TNGC_WAIT lines and the ops next to them (the op a
# record follows on its stream, the op a wait precedes on its stream), G
# from the gears[] rows (arena bytes; -1 for a dynamic gear).
cat >"$tmp/gen.awk" <<'EOF'
function opname(line,   w) { w = line; sub(/^[^"]*"[^"]*: /, "", w); sub(/".*/, "", w); sub(/^[a-z_]+ /, "", w); return w }
/^static const TngcAclStream tngc__streams\[\] = \{$/ { ins = 1; s = 0; next }
ins && /^\};/ { ins = 0 }
ins { tag = $0; sub(/^ *\{"/, "", tag); sub(/".*/, "", tag); print "S", s++, tag }
/^    TNGC_ACLNN\(/ { split($0, a, /, */); st = a[2]; last[st] = opname($0)
                 for (k in pend) if (pend[k] == st) { print "W", k, st, opname($0); delete pend[k] } }
/^    TNGC_RECORD\(/ { split($0, a, /[(, ]+/); print "R", a[3], a[4], last[a[4]] }
/^    TNGC_WAIT\(/ { split($0, a, /[(, ]+/); pend[a[3]] = a[4] }
/^static const TngrtGear gears\[\] = \{$/ { ing = 1; g = 0; next }
ing && /^\};/ { ing = 0 }
ing { split($0, a, /, */); print "G", g++, a[2] }
EOF
check_plan() {   # example script -> its plan against its generated source
    d=$(dirname "$1")
    rm -rf "$tmp/chk"
    (cd "$d" && "$tngc" plan "$(basename "$1")") 2>/dev/null | awk -f "$tmp/plan.awk" >"$tmp/plan.txt"
    (cd "$d" && "$tngc" gen --target acl --no-line -o "$tmp/chk" "$(basename "$1")") >/dev/null 2>&1
    awk -f "$tmp/gen.awk" "$tmp/chk"/*.c | grep -v _launcher >"$tmp/gen.txt"
}
check_plan "$root/examples/multi_stream/model.py"
t "multi_stream: one aclrtStream per stream tag, in order" \
  '[ "$(grep "^S" "$tmp/plan.txt")" = "$(grep "^S" "$tmp/gen.txt")" ] && [ "$(grep -c "^S" "$tmp/gen.txt")" = 3 ]'
t "multi_stream: each event recorded on its stream right after its op" \
  '[ "$(grep "^E" "$tmp/plan.txt" | awk "{print \"R\", \$2, \$3, \$4}")" = "$(grep "^R" "$tmp/gen.txt")" ]'
t "multi_stream: each event waited on its stream right before its op" \
  '[ "$(grep "^E" "$tmp/plan.txt" | awk "{print \"W\", \$2, \$5, \$6}")" = "$(grep "^W" "$tmp/gen.txt")" ]'
t "multi_stream: as many records and waits as planned events" \
  '[ "$(grep -c "^    TNGC_RECORD(" "$tmp/chk/model.c")" = 2 ] && [ "$(grep -c "^    TNGC_WAIT(" "$tmp/chk/model.c")" = 2 ]'
t "multi_stream: one arena per gear, of the planned size" '[ "$(grep "^G" "$tmp/plan.txt")" = "$(grep "^G" "$tmp/gen.txt")" ]'
check_plan "$root/examples/dim_gears/model.py"
t "dim_gears: one arena per gear, of the planned sizes" \
  '[ "$(grep "^G" "$tmp/plan.txt")" = "$(grep "^G" "$tmp/gen.txt")" ] && [ "$(grep -c "^G" "$tmp/gen.txt")" -gt 1 ] &&
   [ "$(grep -c "g[0-9]*_build, g[0-9]*_launch}" "$tmp/chk/model.c")" = "$(grep -c "^G" "$tmp/gen.txt")" ]'
t "super_kernel: the segment's scope and options, as written" \
  'grep -q "TNGC_SUPER_KERNEL_BEGIN(\"sp1\", \"\", 0);" "$golden/super_kernel.c" && grep -q "TNGC_SUPER_KERNEL_END(\"sp1\", 0);" "$golden/super_kernel.c"'

# ---- 4. refusals ----
cp "$root/examples/multi_stream/model.py" "$tmp/ms.py"
(cd "$tmp" && env -u ASCEND_TOOLKIT_HOME "$tngc" build --target acl -o nocann ms.py) >"$tmp/o" 2>"$tmp/e"
t "no CANN: status 2, one line naming ASCEND_TOOLKIT_HOME, nothing written" \
  '[ $? -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ] && grep -q "ASCEND_TOOLKIT_HOME" "$tmp/e" && [ ! -e "$tmp/nocann" ]'
(cd "$tmp" && ASCEND_TOOLKIT_HOME=$tmp/none "$tngc" build --target acl -o nocann ms.py) >"$tmp/o" 2>"$tmp/e"
t "ASCEND_TOOLKIT_HOME not a toolkit: status 2, one line" '[ $? -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && [ ! -e "$tmp/nocann" ]'
(cd "$tmp" && ASCEND_TOOLKIT_HOME=$tmp/none "$tngc" build --target acl --acl-home "$cann" --no-cache -o acl ms.py) \
    >/dev/null 2>&1
t "--acl-home wins over ASCEND_TOOLKIT_HOME" '[ $? -eq 0 ] && [ -f "$tmp/acl/libms.a" ]'
(cd "$tmp" && env -u ASCEND_TOOLKIT_HOME "$tngc" gen --target acl -o gen ms.py) >/dev/null 2>&1
t "gen --target acl needs no CANN (it only writes sources)" '[ $? -eq 0 ] && [ -f "$tmp/gen/ms.c" ] && [ -f "$tmp/gen/ms.h" ]'
t "the ACL header: the CPU API, its own handle" \
  'grep -q "^typedef struct ms_acl ms_t;" "$tmp/gen/ms.h" && grep -q "^int ms_run(ms_t \*self, const TngrtTensor \*inputs" "$tmp/gen/ms.h"'
cp "$here/unmapped.py" "$tmp/unmapped.py"
(cd "$tmp" && "$tngc" gen --target acl -o unm unmapped.py) >"$tmp/o" 2>&1
t "unmapped op: status 1, the op named at its place, nothing written" \
  '[ $? -eq 1 ] && grep -q "^unmapped.py:15:16: error: no aclnn operator for .div. (a scalar divided by a tensor" "$tmp/o" && [ ! -e "$tmp/unm" ]'
(cd "$tmp" && "$tngc" gen --target cpu -o unm unmapped.py) >/dev/null 2>&1
t "unmapped op: the CPU target builds it" '[ $? -eq 0 ]'
cp "$here/weight_quant.py" "$tmp/weight_quant.py"
(cd "$tmp" && "$tngc" gen --target acl -o wq weight_quant.py) >"$tmp/o" 2>&1
t "weight-only int8 forms aclnnWeightQuantBatchMatmulV2 does not take: status 1, each named, nothing written" \
  '[ $? -eq 1 ] && grep -q "^weight_quant.py:15:13: error: .*an antiquant_offset of another shape than antiquant_scale" "$tmp/o" &&
   [ "$(grep -c "^weight_quant.py:1[67]:13: error: .*not a multiple of 32 below k.*\[TNG203\]" "$tmp/o")" = 2 ] && [ ! -e "$tmp/wq" ]'
(cd "$tmp" && "$tngc" gen --target cpu -o wq weight_quant.py) >/dev/null 2>&1
t "weight-only int8 forms the ACL target refuses: the CPU target builds them" '[ $? -eq 0 ]'
# sdpa_dyn.py: scaled_dot_product_attention with a dim known at run time only
cp "$here/sdpa_dyn.py" "$tmp/sdpa_dyn.py"
(cd "$tmp" && "$tngc" gen --target acl -o sdpa_dyn sdpa_dyn.py) >"$tmp/o" 2>&1
t "sdpa in a gear with run-time dims: status 1, named at its place, nothing written" \
  '[ $? -eq 1 ] && grep -q "^sdpa_dyn.py:12:16: error: no aclnn operator for .sdpa. (scaled_dot_product_attention in a gear with dims known at run time only" "$tmp/o" && [ ! -e "$tmp/sdpa_dyn" ]'
(cd "$tmp" && "$tngc" gen --target acl --user-kernel add -o uk ms.py) >"$tmp/o" 2>&1
t "--user-kernel with --target acl: status 2" '[ $? -eq 2 ] && grep -q "CPU kernels" "$tmp/o"'
(cd "$tmp" && "$tngc" gen --target npu -o x ms.py) >"$tmp/o" 2>&1
t "unknown target: status 2, the targets listed" '[ $? -eq 2 ] && grep -q "(cpu, acl)" "$tmp/o"'

# ---- 5. against the mock runtime ----
fake=$tmp/fakecann
sh "$here/mock/build.sh" "$fake" >"$tmp/e" 2>&1
t "the mock runtime builds" '[ $? -eq 0 ] || { head "$tmp/e"; false; }'

mk() { /usr/bin/python3 "$here/data.py" "$@" || python3 "$here/data.py" "$@"; }
run_mock() {   # dir launcher args... -> $tmp/log, $tmp/o, $tmp/e; status in rc
    rm -f "$tmp/log"
    (cd "$1" && shift && TNGC_ACL_MOCK_LOG=$tmp/log "$@") >"$tmp/o" 2>"$tmp/e"
    rc=$?
}

# multi_stream: three streams, two events, four inputs and outputs
stage "$root/examples/multi_stream" ms
(cd "$tmp/ms" && ASCEND_TOOLKIT_HOME=$fake "$tngc" build --target acl --no-cache -o out model.py) >"$tmp/o" 2>&1
t "mock: the launcher links against libascendcl" '[ $? -eq 0 ] && [ -x "$tmp/ms/out/model_launcher" ] && grep -q "built out/model_launcher" "$tmp/o"'
for i in 1 2 3 4; do mk npy "$tmp/ms/in$i.npy" '<f2' 1000 1000; done
mkdir -p "$tmp/ms/res"
run_mock "$tmp/ms" ./out/model_launcher --input in1=in1.npy --input in2=in2.npy --input in3=in3.npy --input in4=in4.npy \
    --out-dir res --warmup 1 --iters 2
t "mock multi_stream: runs, writes four outputs" '[ $rc -eq 0 ] && [ "$(ls "$tmp/ms/res" | wc -l | tr -d " ")" = 4 ] || { cat "$tmp/e"; false; }'
t "mock multi_stream: one stream per tag, priority 0" '[ "$(grep -c "^stream [0-2] priority 0$" "$tmp/log")" = 3 ]'
t "mock multi_stream: each op on its stream (3 runs)" \
  '[ "$(grep -c "^op aclnnAdd s0$" "$tmp/log")" = 3 ] && [ "$(grep -c "^op aclnnMm s1$" "$tmp/log")" = 3 ] &&
   [ "$(grep -c "^op aclnnMm s0$" "$tmp/log")" = 3 ] && [ "$(grep -c "^op aclnnAdd s2$" "$tmp/log")" = 3 ]'
t "mock multi_stream: every wait after its record (plan events e0, e1)" \
  'awk "/^record e[01] /{r[\$2]++} /^wait e[01] /{if (r[\$2] <= w[\$2]++) bad = 1} END {exit bad}" "$tmp/log" &&
   [ "$(grep -c "^record e0 s0$" "$tmp/log")" = 3 ] && [ "$(grep -c "^wait e0 s1$" "$tmp/log")" = 3 ] &&
   [ "$(grep -c "^record e1 s1$" "$tmp/log")" = 3 ] && [ "$(grep -c "^wait e1 s2$" "$tmp/log")" = 3 ]'
t "mock multi_stream: copies only at the boundary: 4 in, 4 out per run" \
  '[ "$(grep -c "^h2d 2000000$" "$tmp/log")" = 12 ] && [ "$(grep -c "^d2h 2000000$" "$tmp/log")" = 12 ] && ! grep -q "^copy" "$tmp/log"'
t "mock multi_stream: no capture outside reduce-overhead" '! grep -q "capture\|replay" "$tmp/log"'
t "mock multi_stream: every stream, event, context, block and descriptor released" 'grep -q "^live 0 0 0 0 0$" "$tmp/log"'
run_mock "$tmp/ms" env TNGC_ACL_MOCK_FAIL=aclnnMm ./out/model_launcher --input in1=in1.npy --input in2=in2.npy \
    --input in3=in3.npy --input in4=in4.npy --out-dir res
t "mock: a failing operator: status 1, one line naming the call, the op and its place" \
  '[ $rc -eq 1 ] && [ "$(lines "$tmp/e")" = 1 ] &&
   grep -q "model.py:30:15: mm %6: aclnnMm failed: error 507001: mock: injected failure" "$tmp/e" && grep -q "^live 0 0 0 0 0$" "$tmp/log"'
run_mock "$tmp/ms" env TNGC_ACL_MOCK_FAIL=aclrtCreateStreamWithConfig ./out/model_launcher --input in1=in1.npy \
    --input in2=in2.npy --input in3=in3.npy --input in4=in4.npy
t "mock: a failing set-up call: status 1, the call and the entry named, nothing left" \
  '[ $rc -eq 1 ] && grep -q "model.py: Model.forward: aclrtCreateStreamWithConfig failed: error 507001" "$tmp/e" &&
   grep -q "^live 0 0 0 0 0$" "$tmp/log"'

# static_kernel: reduce-overhead, captured once and replayed
stage "$root/examples/static_kernel" sk
(cd "$tmp/sk" && ASCEND_TOOLKIT_HOME=$fake "$tngc" build --target acl --no-cache -o out model.py) >"$tmp/o" 2>&1
mk npy "$tmp/sk/x.npy" '<f4' 1 2048
mk npy "$tmp/sk/w.npy" '<f4' 2048 256
mk npy "$tmp/sk/b.npy" '<f4' 256
run_mock "$tmp/sk" ./out/model_launcher --input x=x.npy --input weight=w.npy --input bias=b.npy --warmup 1 --iters 3
t "mock reduce-overhead: runs" '[ $rc -eq 0 ] || { cat "$tmp/e"; false; }'
t "mock reduce-overhead: one eager run, one capture, then replays" \
  '[ "$(grep -c "^capture begin s0$" "$tmp/log")" = 1 ] && [ "$(grep -c "^capture end$" "$tmp/log")" = 1 ] &&
   [ "$(grep -c "^replay s0$" "$tmp/log")" = 3 ] && [ "$(grep -c "^op aclnnMatmul s0$" "$tmp/log")" = 1 ] &&
   [ "$(grep -c "^op aclnnMatmul s0 capture$" "$tmp/log")" = 1 ] && ! grep -q "^misuse" "$tmp/log"'
t "mock reduce-overhead: everything released" 'grep -q "^live 0 0 0 0 0$" "$tmp/log"'
t "static kernels: each op names its kernel" 'grep -q "static kernel MatMulV2_float_ND_1_2048_0" "$tmp/sk/out/model.c"'

# weights: copied to the device once, at load
mkdir -p "$tmp/w" && cp "$here/weights.py" "$tmp/w/"
(cd "$tmp/w" && ASCEND_TOOLKIT_HOME=$fake "$tngc" build --target acl --no-cache -o out weights.py) >"$tmp/o" 2>&1
mk npy "$tmp/w/x.npy" '<f4' 2 8
mk st "$tmp/w/w.safetensors" fc.weight=4,8 fc.bias=4
run_mock "$tmp/w" ./out/weights_launcher --weights w.safetensors --input x=x.npy --warmup 0 --iters 2
t "mock weights: loaded once (2 copies), then 1 input and 1 output per run" \
  '[ $rc -eq 0 ] && [ "$(grep -c "^h2d" "$tmp/log")" = 4 ] && [ "$(grep -c "^d2h" "$tmp/log")" = 2 ] &&
   grep -q "^op aclnnAddmm s0$" "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log" || { cat "$tmp/e"; false; }'
run_mock "$tmp/w" ./out/weights_launcher --input x=x.npy
t "mock weights: a model with weights needs --weights (status 2)" '[ $rc -eq 2 ]'
mk st "$tmp/w/extra.safetensors" fc.weight=4,8 head.bias=2 fc.bias=4
run_mock "$tmp/w" ./out/weights_launcher --weights extra.safetensors --input x=x.npy --warmup 0 --iters 1
t "mock weights: a tensor the model does not use: one warning line, status 0" \
  '[ $rc -eq 0 ] && [ "$(lines "$tmp/e")" = 1 ] &&
   grep -q "warning: extra.safetensors: 1 tensor the model does not use, ignored: .head.bias.$" "$tmp/e"'
run_mock "$tmp/w" ./out/weights_launcher --weights extra.safetensors --input x=x.npy --strict
t "mock weights: --strict refuses it (status 2, one line, nothing released late)" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && grep -q "(--strict): .head.bias.$" "$tmp/e" &&
   grep -q "^live 0 0 0 0 0$" "$tmp/log"'

# --list-weights and --check-weights, as the CPU launcher's (libtngcrt's):
# nothing runs, no device is opened
run_mock "$tmp/w" ./out/weights_launcher --list-weights
t "mock weights: --list-weights names each weight, its dtype and shape; no device call" \
  '[ $rc -eq 0 ] && grep -q "^  fc.weight f32\[4,8\]$" "$tmp/o" && grep -q "^  fc.bias f32\[4\]$" "$tmp/o" && ! [ -s "$tmp/log" ]'
run_mock "$tmp/w" ./out/weights_launcher --check-weights w.safetensors
t "mock weights: --check-weights of a file that loads: status 0" '[ $rc -eq 0 ] && grep -q "would load" "$tmp/o"'
mk st "$tmp/w/short.safetensors" fc.weight=4,7
run_mock "$tmp/w" ./out/weights_launcher --check-weights short.safetensors
t "mock weights: --check-weights of a file that does not: status 1, the missing and the misshapen named" \
  '[ $rc -eq 1 ] && grep -q "fc.bias" "$tmp/o" && grep -q "would not load" "$tmp/o"'
run_mock "$tmp/w" ./out/weights_launcher --list-weights --input x=x.npy
t "mock weights: --list-weights with an input: usage error" '[ $rc -eq 2 ] && grep -q "runs nothing" "$tmp/e"'

# run-time dims (dynamic=True, no gears): shapes checked before any op
mkdir -p "$tmp/dy"
cat >"$tmp/dy/model.py" <<'EOF'
import torch
import torchair


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x, x, x, x, x, x, x, x]) + 1


config = torchair.CompilerConfig()
backend = torchair.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=True, fullgraph=True)
model(torch.ones(2, 8))
EOF
(cd "$tmp/dy" && ASCEND_TOOLKIT_HOME=$fake "$tngc" build --target acl --no-cache -o out model.py) >"$tmp/o" 2>&1
mk npy "$tmp/dy/x.npy" '<f4' 3 5
mk npy "$tmp/dy/big.npy" '<f4' 35184372088832 0
run_mock "$tmp/dy" ./out/model_launcher --input x=x.npy --warmup 0 --iters 2
t "mock run-time dims: runs" '[ $rc -eq 0 ] && grep -q "^op aclnnCat s0$" "$tmp/log" || { cat "$tmp/e"; false; }'
run_mock "$tmp/dy" ./out/model_launcher --input x=big.npy --warmup 0 --iters 1
t "mock run-time dims: x [2^45,0] makes a [2^48,0] tensor past 2^48 bytes: status 2, one line, no op" \
  '[ $rc -eq 2 ] && [ "$(lines "$tmp/e")" = 1 ] && grep -q "larger than 2^48 bytes" "$tmp/e" &&
   ! grep -q "^op " "$tmp/log" && grep -q "^live 0 0 0 0 0$" "$tmp/log" || { cat "$tmp/e"; false; }'

echo "acl: $pass passed, $fail failed"
[ $fail -eq 0 ]
