# Sourced by tests/acl/run.sh and tests/acl/real_cann.sh: tngc's own aclnn
# declarations, and a C++ translation unit that holds them against a set of
# aclnn headers (CANN's, or the stand-ins in tests/acl/cann). CANN's aclnn
# headers are C++ and declare the functions extern "C"; in C++, an extern
# "C" function declared twice with other parameter or return types is an
# error, so the unit compiles only if tngc's declarations are CANN's.

# The aclnn types and constructors a bundle declares (templates/bundle_acl.c).
decls_meta() {   # bundle_acl.c or a generated <name>.c
    sed -n '/^\/\* ---- aclnn: CANN/,/^\/\* ---- end of aclnn declarations/p' "$1"
}

# The aclnn operators generated sources declare (codegen/aclnn.def).
decls_ops() {   # <name>.c...
    for f; do sed -n '/^\/\* ---- aclnn operators:/,/^\/\* ---- end of aclnn operators/p' "$f"; done
}

# The aclnnop/ headers the declarations of decls_ops cite, once each.
decls_headers() {   # <name>.c...
    decls_ops "$@" | sed -n 's|^/\* \(aclnnop/[a-z0-9_]*\.h\) \*/$|\1|p' | sort -u
}

# The names of the aclnn operators generated sources declare, once each.
decls_names() {   # <name>.c...
    decls_ops "$@" | sed -n 's/^aclnnStatus \(aclnn[A-Za-z0-9]*\)(void \*workspace.*/\1/p' | sort -u
}

# Writes to out a C++ unit: acl/acl.h, aclnn/acl_meta.h and the aclnnop/
# headers the sources cite, then the template's and the sources' own
# declarations in extern "C".
decls_unit() {   # out bundle_acl.c <name>.c...
    du_out=$1 du_tpl=$2
    shift 2
    {
        echo '#include "acl/acl.h"'
        echo '#include "aclnn/acl_meta.h"'
        decls_headers "$@" | sed 's/.*/#include "&"/'
        echo '#include <stdint.h>'
        echo 'extern "C" {'
        decls_meta "$du_tpl"
        decls_ops "$@"
        echo '}'
    } >"$du_out"
}
