# wrappers.awk - from CANN's operator declarations (tests/acl/cann/include/
# aclnnop/*.h), the C definitions of every operator's two phases for aclsim:
# the first phase passes its arguments, each with its kind (tensor, tensor
# list, scalar, int array, number, string) and whether the operator writes
# it (a tensor CANN declares non-const, or names an output or a selfRef),
# to sim_ws; the launch calls sim_run.
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function emit(decl,    name, open, body, n, p, k, par, id, ty, kind, w, out) {
    match(decl, /aclnn[A-Za-z0-9]+GetWorkspaceSize\(/)
    name = substr(decl, RSTART, RLENGTH - 17)
    open = index(decl, "(")
    body = substr(decl, open + 1)
    sub(/\);[ \t]*$/, "", body)
    n = split(body, p, ",")
    out = ""
    for (k = 1; k <= n - 2; k++) {
        par = trim(p[k])
        id = par; sub(/^.*[ *]/, "", id)
        ty = substr(par, 1, length(par) - length(id))
        w = 0
        if (ty ~ /aclTensorList/) kind = "SA_TL"
        else if (ty ~ /aclTensor/) kind = "SA_T"
        else if (ty ~ /aclScalar/) kind = "SA_S"
        else if (ty ~ /aclIntArray/) kind = "SA_IA"
        else if (ty ~ /aclBoolArray/) kind = "SA_BA"
        else if (ty ~ /double|float/) kind = "SA_D"
        else if (ty ~ /bool/) kind = "SA_B"
        else if (ty ~ /char/) kind = "SA_STR"
        else kind = "SA_I"
        if ((kind == "SA_T" || kind == "SA_TL") && (ty !~ /^const/ || id ~ /[Oo]ut|Ref/)) w = 1
        if (kind == "SA_D") out = out sprintf("        {%s, 0, NULL, 0, (double)(%s)},\n", kind, id)
        else if (kind == "SA_I" || kind == "SA_B") out = out sprintf("        {%s, 0, NULL, (int64_t)(%s), (double)(%s)},\n", kind, id, id)
        else out = out sprintf("        {%s, %d, (const void *)(%s), 0, 0},\n", kind, w, id)
    }
    sub(/\);[ \t]*$/, ")", decl)
    print decl
    print "{"
    print "    const SimArg a[] = {"
    printf "%s", out
    print "    };"
    printf "    return sim_ws(\"%s\", %d, a, workspaceSize, executor);\n", name, n - 2
    print "}"
    print ""
}
/^aclnnStatus aclnn[A-Za-z0-9]+GetWorkspaceSize\(/ { acc = $0; inws = 1 }
inws && acc != $0 { acc = acc " " trim($0) }
inws && /\);[ \t]*$/ { emit(acc); inws = 0; next }
/^aclnnStatus aclnn[A-Za-z0-9]+\(void \*workspace/ {
    match($0, / aclnn[A-Za-z0-9]+\(/); n = substr($0, RSTART + 1, RLENGTH - 2)
    sub(/\);$/, ")")
    print $0
    printf "{\n    return sim_run(\"%s\", workspace, workspaceSize, executor, stream);\n}\n\n", n
}
