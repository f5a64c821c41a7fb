#!/bin/sh
# Builds the mock runtime (acl_mock.c, and one function pair per operator
# of tests/acl/cann/include/aclnnop) into a stand-in CANN toolkit at DIR:
# DIR/include (the test declarations) and DIR/lib64/libascendcl.so, with
# empty libnnopbase.so and libopapi.so, so that `tngc build --target acl
# --acl-home DIR` links launchers against it.
#
# The mock is C, and CANN's aclnn/acl_meta.h (like the stand-in) is C++:
# the operator functions are compiled with the aclnn declarations of
# templates/bundle_acl.c in its place, so they are checked against them.
#
# usage: tests/acl/mock/build.sh DIR        (CC: the compiler, default clang)
set -u
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cann=$root/tests/acl/cann
cc=${CC:-clang}
mkdir -p "$dir/lib64" "$dir/mockinc/aclnn" || exit 1
[ -e "$dir/include" ] || ln -s "$cann/include" "$dir/include"
{ printf '#include "acl/acl.h"\n#include <stdbool.h>\n#include <stdint.h>\n'
  sed -n '/^\/\* ---- aclnn: CANN/,/^\/\* ---- end of aclnn declarations/p' "$root/templates/bundle_acl.c"; } \
    >"$dir/mockinc/aclnn/acl_meta.h"
{ echo '#include "aclnn/acl_meta.h"'
  echo 'aclnnStatus mock_ws(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor);'
  echo 'aclnnStatus mock_run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);'
  awk '/GetWorkspaceSize\(/ { match($0, /aclnn[A-Za-z0-9]+GetWorkspaceSize/); name = substr($0, RSTART, RLENGTH - 16); print; next }
       /aclOpExecutor \*\*executor\);/ { sub(/\);$/, ") { return mock_ws(\"" name "\", workspaceSize, executor); }"); print; next }
       /^aclnnStatus aclnn[A-Za-z0-9]+\(void \*workspace/ { match($0, / aclnn[A-Za-z0-9]+\(/); n = substr($0, RSTART + 1, RLENGTH - 2)
           sub(/\);$/, ") { return mock_run(\"" n "\", workspace, workspaceSize, executor, stream); }"); print }' \
      "$cann"/include/aclnnop/*.h; } >"$dir/mockinc/acl_mock_ops.c"
$cc -std=c11 -Wall -Werror -fPIC -shared -I"$dir/mockinc" -I"$cann/include" -o "$dir/lib64/libascendcl.so" \
    "$here/acl_mock.c" "$dir/mockinc/acl_mock_ops.c" || exit 1
echo 'void tngc_mock_empty(void);' >"$dir/mockinc/empty.c"
$cc -fPIC -shared -o "$dir/lib64/libnnopbase.so" "$dir/mockinc/empty.c" &&
    cp "$dir/lib64/libnnopbase.so" "$dir/lib64/libopapi.so"
