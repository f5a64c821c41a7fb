/*
 * templates.c - the fixed parts of generated files (templates/, embedded in
 * the binary by scripts/embed.sh) and their expansion.
 *
 * Expansion (templates/README.md): every "tngc_template" becomes the bundle
 * name and every "TNGC_TEMPLATE" its upper-case form; a marker line, one
 * that holds nothing but the comment "/" "*@tngc:KEY@*" "/", is replaced as a
 * whole by the text the splice callback gives for KEY.
 */
#include "codegen.h"

#include <string.h>

struct TngcTemplate {
    const char *name;
    const char *text;
};
extern const struct TngcTemplate tngc_templates[];

const char *template_text(const char *name)
{
    for (const struct TngcTemplate *t = tngc_templates; t->name; t++)
        if (!strcmp(t->name, name))
            return t->text;
    return NULL;
}

/* Appends line [s, e) with the names replaced. */
static void template__line(const char *s, const char *e, const char *bundle, const char *upper, StrBuf *out)
{
    static const char lo[] = "tngc_template", up[] = "TNGC_TEMPLATE";
    size_t n = sizeof lo - 1;
    while (s < e) {
        if ((size_t)(e - s) >= n && !memcmp(s, lo, n)) {
            sb_puts(out, bundle);
            s += n;
        } else if ((size_t)(e - s) >= n && !memcmp(s, up, n)) {
            sb_puts(out, upper);
            s += n;
        } else {
            sb_putc(out, *s++);
        }
    }
}

/* 1 when line [s, e) is a marker line (the comment of @tngc:KEY@ alone; blanks
 * around it allowed), with KEY copied to key. */
static int template__marker(const char *s, const char *e, char *key, size_t keylen)
{
    static const char open[] = "/*@tngc:", close[] = "@*/";
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    size_t no = sizeof open - 1, nc = sizeof close - 1;
    if ((size_t)(e - s) <= no + nc || memcmp(s, open, no) || memcmp(e - nc, close, nc))
        return 0;
    size_t kn = (size_t)(e - nc - (s + no));
    if (kn >= keylen)
        return 0;
    memcpy(key, s + no, kn);
    key[kn] = 0;
    return 1;
}

void template_expand(const char *tpl, const char *bundle,
                     const char *(*splice)(void *ctx, const char *key), void *ctx, StrBuf *out)
{
    if (!tpl) {
        TNGC_BUG("missing template");
    }
    char *upper = xstrdup(bundle);
    for (char *c = upper; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    for (const char *s = tpl; *s;) {
        const char *e = strchr(s, '\n');
        e = e ? e + 1 : s + strlen(s);
        char key[64];
        if (splice && template__marker(s, e, key, sizeof key)) {
            sb_puts(out, splice(ctx, key));
            sb_putc(out, '\n');
            s = e;
            continue;
        }
        template__line(s, e, bundle, upper, out);
        s = e;
    }
    free(upper);
}
