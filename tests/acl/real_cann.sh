#!/bin/sh
# The ACL target against CANN's real headers: a public dump of an installed
# CANN 8.1.RC1 toolkit (github.com/leideng/CANN-8.1.RC1), read from a local
# git snapshot and never copied into this repository.
#
#   sh tests/acl/real_cann.sh TNGC
#
# CANN_DUMP names the snapshot (a bare or ordinary git directory, or a
# checked-out tree; default /work/.mirror/leideng+CANN-8.1.RC1/repo). Its
# include/acl, include/aclnn and aclnnop/ (under opp/.../op_api/include in
# the dump) are extracted into a temporary $ASCEND_TOOLKIT_HOME/include, and
#   1. every example script (each Makefile's TNGC_BUNDLES), every
#      conformance model (but npu_rotary.py, whose aclnnRotaryPositionEmbedding
#      is CANN 8.2's, npu_moe_gating.py, whose aclnnMoeGatingTopK is CANN
#      8.3's, and npu_weight_quant_bias.py, which the ACL target refuses:
#      tests/acl/run.sh checks that) and
#      tests/acl/rsub.py builds with `tngc build
#      --target acl --acl-home --cc gcc` against them (tngc's own flags:
#      -std=c11 -O2 -Wall -Werror ...: gcc's flow warnings, such as
#      -Wmaybe-uninitialized, need the optimiser; the examples at -O2, the
#      conformance models and rsub.py at --opt -O1, where those warnings
#      run too: -O2 took 3.3x -O1's time on the LLaMA example's ACL source,
#      and the conformance models are most of this suite's time); there is
#      no libascendcl to link, so each build ends with lib<name>.a;
#   2. every generated source, launchers included, compiles with the same
#      flags and -fsyntax-only with clang (whose warnings are the front
#      end's), and the launchers, which step 1 does not compile, with gcc;
#   3. one C++ unit includes CANN's acl/acl.h, aclnn/acl_meta.h and the
#      aclnnop/ header of every operator the bundles call, then the
#      bundles' own declarations (templates/bundle_acl.c's and each
#      bundle's) in extern "C": it compiles (clang++, g++) only if every
#      declaration has CANN's types, const and order, and CANN declares it
#      extern "C" too; the same unit with one const dropped must not;
#   4. examples/tp_llama built for 2 ranks (HCCL) against the dump's
#      include/hccl too, its sources compiled as in 2, and its HCCL
#      declarations (and tests/acl/cann/include/hccl's) held against CANN's
#      in one C++ unit, with the enumerator values; tests/tp_mpi/groups.py's
#      sources for 4 ranks (process groups: HcclCreateSubCommConfig)
#      compiled as in 2, and the HcclCommConfig they and the stand-in
#      declare held against CANN's (each field's offset and size, the
#      constants of HcclCommConfigInit).
# With no snapshot (CI) it prints "real-cann: skipped (no dump)", exit 0.
set -u
tngc=${1:?usage: real_cann.sh TNGC}
case $tngc in /*) ;; */*) tngc=$(pwd)/$tngc ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dump=${CANN_DUMP:-/work/.mirror/leideng+CANN-8.1.RC1/repo}
. "$here/decls.sh"

# The dump's files, one path a line (git snapshot or plain tree).
if [ -d "$dump" ] && git --git-dir="$dump" rev-parse -q --verify HEAD >/dev/null 2>&1; then
    list() { git --git-dir="$dump" ls-tree -r --name-only HEAD; }
    extract() { git --git-dir="$dump" archive --format=tar HEAD -- "$@" 2>"$tmp/git.err" | tar -x -C "$tmp/x"; }
elif [ -d "$dump" ]; then
    list() { (cd "$dump" && find . -type f -o -type l | sed 's|^\./||'); }
    extract() { (cd "$dump" && tar -cf - "$@") | tar -x -C "$tmp/x"; }
else
    echo "real-cann: skipped (no dump)"
    exit 0
fi
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
list >"$tmp/files" 2>/dev/null
meta=$(grep '/include/aclnn/acl_meta\.h$' "$tmp/files" | head -1)
add=$(grep '/include/aclnnop/aclnn_add\.h$' "$tmp/files" | head -1)
if [ -z "$meta" ] || [ -z "$add" ]; then
    echo "real-cann: skipped (no dump: $dump has no include/aclnn/acl_meta.h or aclnnop/aclnn_add.h)"
    exit 0
fi
inc=${meta%/aclnn/acl_meta.h}
ops=${add%/aclnn_add.h}
mkdir -p "$tmp/x" "$tmp/cann/include"
extract "$inc/acl" "$inc/aclnn" "$ops"
want=$(grep -c -e "^$inc/acl/" -e "^$inc/aclnn/" -e "^$ops/" "$tmp/files")
got=$(cd "$tmp/x" && find . -type f | wc -l | tr -d ' ')
if [ "$got" != "$want" ]; then
    echo "real-cann: extracted $got of the $want header files from $dump"
    cat "$tmp/git.err" 2>/dev/null
    exit 1
fi
mv "$tmp/x/$inc/acl" "$tmp/x/$inc/aclnn" "$tmp/cann/include/"
mv "$tmp/x/$ops" "$tmp/cann/include/aclnnop"
cann=$tmp/cann
echo "real-cann: $dump: $(find "$cann/include" -name '*.h' | wc -l | tr -d ' ') headers ($inc/{acl,aclnn}, $ops)"

pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi; }
# tngc build's flags for the ACL target (codegen/build.c, build__cc_base)
flags="-std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I$root/runtime -I$cann/include -Wall -Werror"

# ---- 1. every model builds against CANN's headers, with gcc -O2 ----
models=$(for mk in "$root"/examples/*/Makefile; do
            for s in $(sed -n 's/^TNGC_BUNDLES *:= *//p' "$mk"); do echo "$(dirname "$mk")/$s"; done
          done
          ls "$root"/tests/conform/models/*.py "$here/rsub.py" |
          grep -v -e '/conform/models/npu_rotary\.py$' -e '/conform/models/npu_moe_gating\.py$' \
                  -e '/conform/models/npu_weight_quant_bias\.py$')
n=0
for py in $models; do
    d=$(dirname "$py")
    m=$(basename "$d")_$(basename "$py" .py)
    rm -rf "$tmp/$m"
    cp -r "$d" "$tmp/$m" && mkdir -p "$tmp/$m/static_kernel_build"
    opt=-O1
    case $py in "$root"/examples/*) opt=-O2 ;; esac
    for cc in gcc; do
        (cd "$tmp/$m" && "$tngc" build --target acl --acl-home "$cann" --cc $cc --opt $opt --no-cache -o out.$cc "$(basename "$py")") \
            >"$tmp/o" 2>&1
        t "$m: tngc build --cc $cc --opt $opt" \
          '[ $? -eq 0 ] && ls "$tmp/$m/out.$cc"/lib*.a >/dev/null 2>&1 || { grep -v "^ " "$tmp/o" | head -8; false; }'
    done
    # ---- 2. every generated source, launchers too, with the same flags ----
    (cd "$tmp/$m" && "$tngc" gen --target acl -o src "$(basename "$py")") >"$tmp/o" 2>&1 || { cat "$tmp/o"; exit 1; }
    for c in "$tmp/$m"/src/*.c; do
        ccs=clang
        case $c in *_launcher.c) ccs="clang gcc" ;; esac
        for cc in $ccs; do
            t "$(basename "$c") of $m: $cc -fsyntax-only" \
              '$cc $flags -I"$tmp/$m/src" -fsyntax-only "$c" 2>"$tmp/cc" || { head -8 "$tmp/cc"; false; }'
        done
        n=$((n + 1))
    done
    mkdir -p "$tmp/srcs/$m" && cp "$tmp/$m"/src/*.c "$tmp/srcs/$m/"
    rm -rf "$tmp/$m"
done
# the op sweep's models (a call for every row of ir/ops.def; tests/acl/run.sh
# leaves out by line the calls with no aclnn operator): their sources,
# generated and compiled with clang against CANN's headers, join the
# declarations of section 3, so every operator of codegen/aclnn.def is held
# to CANN's header whatever the models above call
mkdir -p "$tmp/sweep"
. "$root/tests/sweep/drop.sh"
sweep_out=$tmp/o
if ${PYTHON:-/usr/bin/python3} "$root/tests/sweep/gen.py" "$root/ir/ops.def" "$tmp/sweep" >"$tmp/o" 2>&1; then
    for py in "$tmp"/sweep/sweep_*.py; do
        m=$(basename "$py" .py)
        mkdir -p "$tmp/$m/static_kernel_build"
        # (rotary_mul and moe_gating_top_k call CANN 8.2's and 8.3's operators)
        sed 's/^\( *\)outs.append(.*# \(rotary_mul\|moe_gating_top_k\) .*/\1pass/' "$py" >"$tmp/$m/$m.py"
        sweep_drop "$tmp/$m/$m.py" '\[TNG203\]\|no aclnn operator' "$m: left out:" \
            sh -c 'cd "$1" && "$2" gen --target acl -o src "$3"' - "$tmp/$m" "$tngc" "$m.py"
        ok=1
        for c in "$tmp/$m"/src/*.c; do
            clang $flags -I"$tmp/$m/src" -fsyntax-only "$c" 2>"$tmp/cc" || { head -8 "$tmp/cc"; ok=0; }
        done
        t "$m (the op sweep): generated and compiled against CANN's headers" '[ $ok = 1 ] && ls "$tmp/$m"/src/*.c >/dev/null 2>&1'
        mkdir -p "$tmp/srcs/$m" && cp "$tmp/$m"/src/*.c "$tmp/srcs/$m/"
        rm -rf "$tmp/$m"
    done
else
    t "tests/sweep/gen.py writes the sweep's models" 'head -5 "$tmp/o"; false'
fi
t "no generated source includes an aclnn header" '! grep -l "^#include \"aclnn" "$tmp"/srcs/*/*.c'

# ---- 3. the bundles' own declarations are CANN's ----
srcs=$(ls "$tmp"/srcs/*/*.c | grep -v '_launcher\.c$')
decls_unit "$tmp/agree.cpp" "$root/templates/bundle_acl.c" $srcs
for cxx in clang++ g++; do
    t "$cxx: CANN's aclnn headers and tngc's declarations in one C++ unit" \
      '$cxx -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/agree.cpp" 2>"$tmp/cc" || { head -12 "$tmp/cc"; false; }'
done
sed 's/^aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor \*self, const aclTensor \*other,$/aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, aclTensor *other,/' \
    "$tmp/agree.cpp" >"$tmp/differ.cpp"
t "the same unit with one const dropped fails" \
  '! cmp -s "$tmp/agree.cpp" "$tmp/differ.cpp" && ! clang++ -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/differ.cpp" 2>/dev/null'
# (aclnnRotaryPositionEmbedding is CANN 8.2's and aclnnMoeGatingTopK 8.3's:
# npu_rotary.py and npu_moe_gating.py are left out)
table=$(grep -o '^ACLNN([A-Z0-9_]*, "aclnn[A-Za-z0-9]*"' "$root/codegen/aclnn.def" | sed 's/.*"\(aclnn[A-Za-z0-9]*\)"/\1/' |
        grep -v -x -e aclnnRotaryPositionEmbedding -e aclnnMoeGatingTopK | sort -u)
echo "$table" >"$tmp/table"
decls_names $srcs >"$tmp/called"
t "the bundles call every operator of codegen/aclnn.def" 'diff "$tmp/table" "$tmp/called"'

# ---- 4. tensor parallel: HCCL ----
# CANN's include/hccl (C++: nullptr, const array bounds) beside the rest;
# examples/tp_llama built for 2 ranks (--world-size 2) against it, its
# sources compiled as in 2; one C++ unit holds the bundles' HCCL
# declarations (emit_hccl_declarations) and tests/acl/cann/include/hccl's
# against CANN's, and the enumerator values the bundles declare for C
# against CANN's hccl_types.h.
if grep -q "^$inc/hccl/hccl\.h$" "$tmp/files"; then
    rm -rf "$tmp/x" && mkdir -p "$tmp/x" && extract "$inc/hccl" && mv "$tmp/x/$inc/hccl" "$cann/include/"
    m=tp_llama
    rm -rf "$tmp/$m" && cp -r "$root/examples/tp_llama" "$tmp/$m" && rm -rf "$tmp/$m/tngc-out" "$tmp/$m/sample"
    (cd "$tmp/$m" && "$tngc" build --target acl --acl-home "$cann" --cc gcc --no-cache --world-size 2 -o out run.py) \
        >"$tmp/o" 2>&1
    t "$m: tngc build --world-size 2 --cc gcc" \
      '[ $? -eq 0 ] && ls "$tmp/$m/out"/lib*.a >/dev/null 2>&1 || { grep -v "^ " "$tmp/o" | head -8; false; }'
    (cd "$tmp/$m" && "$tngc" gen --target acl --world-size 2 -o src run.py) >"$tmp/o" 2>&1 || { cat "$tmp/o"; exit 1; }
    for c in "$tmp/$m"/src/*.c; do
        ccs=clang
        case $c in *_launcher.c) ccs="clang gcc" ;; esac
        for cc in $ccs; do
            t "$(basename "$c") of $m: $cc -fsyntax-only" \
              '$cc $flags -I"$tmp/$m/src" -fsyntax-only "$c" 2>"$tmp/cc" || { head -8 "$tmp/cc"; false; }'
        done
    done
    hdecls() { sed -n '/^\/\* ---- HCCL: CANN/,/^\/\* ---- end of HCCL declarations/p' "$1"; }
    { echo '#include "hccl/hccl.h"'
      echo "#include \"$root/tests/acl/cann/include/hccl/hccl.h\""
      echo 'extern "C" {'
      hdecls "$tmp/$m/src/run_rank0.c"
      hdecls "$tmp/$m/src/run.c"
      echo '}'
      echo '#undef HCCL_TYPES_H_'
      echo 'namespace tngc_c {'
      hdecls "$tmp/$m/src/run.c" | sed -n '/^#ifndef HCCL_TYPES_H_/,/^#endif/p'
      echo '}'
      hdecls "$tmp/$m/src/run.c" | grep -o 'HCCL_[A-Z0-9_]* = [0-9]*' | grep -v RESERVED |
          sed 's/^\(HCCL_[A-Z0-9_]*\) = .*/static_assert((int)tngc_c::\1 == (int)::\1, "\1");/'
    } >"$tmp/hccl.cpp"
    for cxx in clang++ g++; do
        t "$cxx: CANN's hccl/hccl.h and tngc's HCCL declarations in one C++ unit" \
          '$cxx -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/hccl.cpp" 2>"$tmp/cc" || { head -12 "$tmp/cc"; false; }'
    done
    sed 's/^HcclResult HcclAllGather(void \*sendBuf,/HcclResult HcclAllGather(const void *sendBuf,/' "$tmp/hccl.cpp" \
        >"$tmp/hccl_differ.cpp"
    t "the HCCL unit with one const added fails" \
      '! cmp -s "$tmp/hccl.cpp" "$tmp/hccl_differ.cpp" && ! clang++ -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/hccl_differ.cpp" 2>/dev/null'
    rm -rf "$tmp/$m"
    # the communicator configuration of process groups (HcclCreateSubCommConfig):
    # groups.py's sources for 4 ranks compiled as in 2; the configuration
    # structure the bundles declare for C, and tests/acl/cann/include/hccl's,
    # field for field at CANN's offsets, and the constants of
    # HcclCommConfigInit they fill it with, CANN's values
    m=groups
    rm -rf "$tmp/$m" && mkdir -p "$tmp/$m" && cp "$root/tests/tp_mpi/groups.py" "$tmp/$m/"
    (cd "$tmp/$m" && "$tngc" gen --target acl --world-size 4 -o src groups.py) >"$tmp/o" 2>&1 || { cat "$tmp/o"; exit 1; }
    t "$m.c makes its groups' communicators" 'grep -q "HcclCreateSubCommConfig(&groups__comm" "$tmp/$m/src/groups.c"'
    for c in "$tmp/$m"/src/*.c; do
        ccs=clang
        case $c in *_launcher.c|*/groups.c) ccs="clang gcc" ;; esac
        for cc in $ccs; do
            t "$(basename "$c") of $m: $cc -fsyntax-only" \
              '$cc $flags -I"$tmp/$m/src" -fsyntax-only "$c" 2>"$tmp/cc" || { head -8 "$tmp/cc"; false; }'
        done
    done
    fields() { sed -n '/^typedef struct HcclCommConfigDef {/,/^} HcclCommConfig;/p' "$1" |
               sed -n 's/^ *[a-z_0-9]* \([A-Za-z]*\)[[;].*/\1/p'; }
    stub=$root/tests/acl/cann/include/hccl/hccl_types.h
    { echo '#include <stdint.h>'
      echo '#include <stddef.h>'
      echo 'namespace tngc_t {'
      echo "#include \"$stub\""
      echo '}'
      echo 'namespace tngc_v {'
      grep -o '^#define HCCL_COMM_[A-Z_]*' "$stub" | sed 's/^#define \(.*\)/const unsigned long long \1_ = \1;/'
      echo '}'
      grep -o '^#define HCCL_COMM_[A-Z_]*' "$stub" | sed 's/^#define/#undef/'
      echo '#undef HCCL_TYPES_H_'
      echo '#include "hccl/hccl.h"'
      echo 'extern "C" {'
      hdecls "$tmp/$m/src/groups.c"
      echo '}'
      echo '#undef HCCL_TYPES_H_'
      echo 'namespace tngc_c {'
      hdecls "$tmp/$m/src/groups.c" | sed -n '/^#ifndef HCCL_TYPES_H_/,/^#endif/p'
      echo '}'
      for ns in tngc_c tngc_t; do
          echo "static_assert(sizeof($ns::HcclCommConfig) == sizeof(::HcclCommConfig), \"$ns: sizeof\");"
          fields "$tmp/$m/src/groups.c" | sed "s/.*/static_assert(offsetof($ns::HcclCommConfig, &) == offsetof(::HcclCommConfig, &) \&\& sizeof($ns::HcclCommConfig::&) == sizeof(::HcclCommConfig::&), \"$ns: &\");/"
      done
      hdecls "$tmp/$m/src/groups.c" | sed -n 's/^#define TNGC_\(HCCL_[A-Z_]*\) .*/static_assert(TNGC_\1 == ::\1, "\1");/p'
      grep -o '^#define HCCL_COMM_[A-Z_]*' "$stub" | sed 's/^#define \(.*\)/static_assert(tngc_v::\1_ == ::\1, "stand-in \1");/'
    } >"$tmp/hccl_cfg.cpp"
    t "HcclCommConfig: tngc's fields and constants are CANN's ($(fields "$tmp/$m/src/groups.c" | wc -l | tr -d ' ') fields)" \
      '[ "$(fields "$tmp/$m/src/groups.c" | wc -l)" -eq 8 ] && [ "$(fields "$stub" | wc -l)" -eq 8 ]'
    for cxx in clang++ g++; do
        t "$cxx: CANN's HcclCommConfig, HcclCreateSubCommConfig and tngc's in one C++ unit" \
          '$cxx -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/hccl_cfg.cpp" 2>"$tmp/cc" || { head -12 "$tmp/cc"; false; }'
    done
    sed 's/char hcclUdi\[128\];/char hcclUdi[120];/' "$tmp/hccl_cfg.cpp" >"$tmp/hccl_cfg_differ.cpp"
    t "the configuration unit with one field shortened fails" \
      '! cmp -s "$tmp/hccl_cfg.cpp" "$tmp/hccl_cfg_differ.cpp" && ! clang++ -std=c++11 -fsyntax-only -I"$cann/include" "$tmp/hccl_cfg_differ.cpp" 2>/dev/null'
    rm -rf "$tmp/$m"
else
    t "the dump has include/hccl/hccl.h" 'false'
fi

echo "real-cann: $(echo "$models" | wc -l | tr -d ' ') models built with clang and gcc, $n sources compiled with each;" \
     "$(decls_names $srcs | wc -l | tr -d ' ') aclnn operators ($(decls_headers $srcs | wc -l | tr -d ' ') aclnnop headers)" \
     "and $(decls_meta "$root/templates/bundle_acl.c" | grep -c '^acl[A-Za-z]* \*\{0,1\}acl[A-Z][A-Za-z]*(') meta functions declared as CANN does"
echo "real-cann: $pass passed, $fail failed"
[ $fail -eq 0 ]
