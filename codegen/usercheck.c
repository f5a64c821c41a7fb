/*
 * usercheck.c - checks the user's kernel file with libclang before it is
 * compiled into a bundle: every kernel the bundle calls must be defined
 * there with exactly the signature of the generated stub, so a mistake is
 * reported against the user's file, not as a link error or a crash.
 * Each problem is a TNG215 diagnostic located in that file (the driver
 * prints them against its text, as it prints the script's).
 */
#include "build.h"

#include <clang-c/Index.h>
#include <string.h>

typedef struct UserCheck {
    const NameList *fns;
    int *found;          /* per fn: 0 missing, 1 defined right, 2 wrong type */
    char **types;        /* per fn: the wrong type's spelling */
    unsigned *lines, *cols;  /* per fn: where it is */
} UserCheck;

static enum CXChildVisitResult usercheck__visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    UserCheck *uc = data;
    if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c))
        return CXChildVisit_Continue;
    CXString name = clang_getCursorSpelling(c);
    const char *n = clang_getCString(name);
    for (size_t i = 0; i < uc->fns->n; i++) {
        if (strcmp(n, uc->fns->v[i]) != 0)
            continue;
        CXString ty = clang_getTypeSpelling(clang_getCursorType(c));
        const char *t = clang_getCString(ty);
        unsigned line = 0, col = 0;
        clang_getSpellingLocation(clang_getCursorLocation(c), NULL, &line, &col, NULL);
        uc->lines[i] = line;
        uc->cols[i] = col;
        if (!strcmp(t, emit_user_kernel_type)) {
            uc->found[i] = 1;
        } else {
            uc->found[i] = 2;
            free(uc->types[i]);
            uc->types[i] = xstrdup(t);
        }
        clang_disposeString(ty);
    }
    clang_disposeString(name);
    return CXChildVisit_Continue;
}

/* A TNG215 error at line:col of the user's file (1:1 when it has no place). */
static void usercheck__report(DiagList *diags, unsigned line, unsigned col, const char *fmt, const char *a,
                              const char *b, const char *c)
{
    diag_at(diags, line ? line : 1, col ? col : 1, RULE_TNG215, fmt, a, b, c);
}

/* Appends the file's errors (syntax, missing headers) to diags; returns how many. */
static int usercheck__diags(CXTranslationUnit tu, DiagList *diags)
{
    int errors = 0;
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            unsigned line = 0, col = 0;
            clang_getSpellingLocation(clang_getDiagnosticLocation(d), NULL, &line, &col, NULL);
            CXString s = clang_getDiagnosticSpelling(d);
            usercheck__report(diags, line, col, "%s", clang_getCString(s), NULL, NULL);
            clang_disposeString(s);
            errors++;
        }
        clang_disposeDiagnostic(d);
    }
    return errors;
}

int usercheck_kernels(const char *path, const char *inc, const NameList *fns, DiagList *diags, Sink *sink)
{
    StrBuf incflag = {0};
    sb_printf(&incflag, "-I%s", inc);
    const char *args[] = {"-std=c11", "-D_POSIX_C_SOURCE=200809L", incflag.s};
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(idx, path, args, 3, NULL, 0, CXTranslationUnit_None, &tu);
    int rc = 0;
    if (ec != CXError_Success || !tu) {
        sink_file_error(sink, path, "libclang cannot parse it (error %d)", (int)ec);
        rc = -1;
    } else if (usercheck__diags(tu, diags) > 0) {
        rc = -1;
    } else {
        UserCheck uc = {fns, xcalloc(fns->n + 1, sizeof(int)), xcalloc(fns->n + 1, sizeof(char *)),
                        xcalloc(fns->n + 1, sizeof(unsigned)), xcalloc(fns->n + 1, sizeof(unsigned))};
        clang_visitChildren(clang_getTranslationUnitCursor(tu), usercheck__visit, &uc);
        for (size_t i = 0; i < fns->n; i++) {
            if (uc.found[i] == 0)
                usercheck__report(diags, 1, 1, "no definition of %s (the generated stub has its signature)",
                                  fns->v[i], NULL, NULL);
            else if (uc.found[i] == 2)
                usercheck__report(diags, uc.lines[i], uc.cols[i], "%s has type '%s', expected '%s'", fns->v[i],
                                  uc.types[i], emit_user_kernel_type);
            rc |= uc.found[i] != 1 ? -1 : 0;
            free(uc.types[i]);
        }
        free(uc.found);
        free(uc.types);
        free(uc.lines);
        free(uc.cols);
    }
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    sb_free(&incflag);
    return rc;
}
