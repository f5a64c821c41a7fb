#!/bin/sh
# Builds aclsim (aclsim.c, aclsim_ops.c, and the two phases of every
# operator of tests/acl/cann/include/aclnnop, wrappers.awk; HCCL's
# collectives across processes, hccl.c) into a stand-in
# CANN toolkit at DIR: DIR/include (tests/acl/cann's declarations) and
# DIR/lib64/libascendcl.so, with empty libnnopbase.so and libopapi.so, so
# that `tngc build --target acl --acl-home DIR` links launchers that
# compute. As tests/acl/mock/build.sh does, the C sources are compiled with
# the aclnn declarations of templates/bundle_acl.c as aclnn/acl_meta.h
# (CANN's is C++).
#
# usage: tests/aclsim/build.sh DIR        (CC: the compiler, default clang)
set -u
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cann=$root/tests/acl/cann
cc=${CC:-clang}
mkdir -p "$dir/lib64" "$dir/siminc/aclnn" || exit 1
[ -e "$dir/include" ] || ln -s "$cann/include" "$dir/include"
{ printf '#include "acl/acl.h"\n#include <stdbool.h>\n#include <stdint.h>\n'
  sed -n '/^\/\* ---- aclnn: CANN/,/^\/\* ---- end of aclnn declarations/p' "$root/templates/bundle_acl.c"; } \
    >"$dir/siminc/aclnn/acl_meta.h"
{ echo '#include "aclsim.h"'
  echo '#include <stddef.h>'
  echo 'aclnnStatus sim_ws(const char *name, int n, const SimArg *a, uint64_t *workspaceSize, aclOpExecutor **executor);'
  echo 'aclnnStatus sim_run(const char *name, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);'
  cat "$cann"/include/aclnnop/*.h | awk -f "$here/wrappers.awk"; } >"$dir/siminc/aclsim_ops_gen.c"
$cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -O2 -fPIC -shared -pthread -I"$here" -I"$dir/siminc" \
    -I"$cann/include" -o "$dir/lib64/libascendcl.so" \
    "$here/aclsim.c" "$here/aclsim_ops.c" "$here/aclsim_npu.c" "$here/hccl.c" "$dir/siminc/aclsim_ops_gen.c" -lm || exit 1
echo 'void tngc_aclsim_empty(void);' >"$dir/siminc/empty.c"
$cc -fPIC -shared -o "$dir/lib64/libnnopbase.so" "$dir/siminc/empty.c" &&
    cp "$dir/lib64/libnnopbase.so" "$dir/lib64/libopapi.so" &&
    cp "$dir/lib64/libnnopbase.so" "$dir/lib64/libhccl.so"   # HCCL's calls are libascendcl.so's here
