/*
 * depfile.c - paths in make's depfiles: which ones make cannot read in a
 * rule, and how the others are escaped (tngc's -MD, -MF, -MT).
 */
#include "support.h"

#include <string.h>

/*
 * Why make cannot name path in a depfile rule, or NULL when it can. Found
 * by feeding every byte through GNU make 4.3 (tests/security/t_depfile.sh):
 * control bytes end the line or the word (a newline, or a CR that make
 * reads as one, starts a new rule or variable assignment: injection), and
 * these have no escape: ';' starts a recipe, '=' an assignment, '$' is
 * expanded again under .SECONDEXPANSION, '%' makes a pattern rule, '|' an
 * order-only list, '*' '?' '[' are globs; a leading '~' is a home
 * directory; a trailing blank, backslash, '&' (grouped targets) or ')'
 * (an archive member) changes the word.
 */
const char *make_unsafe(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c < 0x20 || c == 0x7f)
            return c == '\n' ? "a newline" : c == '\r' ? "a carriage return" : c == '\t' ? "a tab" : "a control character";
        if (strchr(";=$%|*?[", c))
            return c == ';' ? "';'" : c == '=' ? "'='" : c == '$' ? "'$'" : c == '%' ? "'%'" : c == '|' ? "'|'"
                 : "a wildcard ('*', '?' or '[')";
    }
    if (n == 0)
        return "an empty path";
    if (path[0] == '~')
        return "a leading '~'";
    if (strchr(" \\&)", path[n - 1]))
        return "a trailing ' ', '\\', '&' or ')'";
    return NULL;
}

/* Appends path as make reads it in a rule (make_unsafe(path) is NULL): a
 * blank, '#' or ':' escaped with a backslash, and the backslashes right
 * before one doubled, as GNU make unescapes them. */
void make_path(StrBuf *d, const char *path)
{
    if (make_unsafe(path))
        TNGC_BUG("make_path: '%s' was not checked", path);
    for (const char *c = path; *c; c++) {
        if (*c == '\\') {
            size_t run = strspn(c, "\\");
            int special = c[run] == ' ' || c[run] == '#' || c[run] == ':';
            for (size_t k = 0; k < run * (special ? 2 : 1); k++)
                sb_putc(d, '\\');
            c += run - 1;
            continue;
        }
        if (*c == ' ' || *c == '#' || *c == ':')
            sb_putc(d, '\\');
        sb_putc(d, *c);
    }
}
