/*
 * pyformat.c - str(), repr() and format() of known values, as Python 3
 * writes them.
 *
 * repr of a float is the shortest decimal that reads back as the same
 * double (the first of %.1e .. %.17e that round-trips), written
 * positionally for exponents -4..15 and as 1e+16 otherwise, with ".0" on
 * integral values: Python's float_repr_style 'short'. A format spec is
 * parsed as the mini-language [[fill]align][sign][#][0][width][.prec][type]
 * for types s, d, x, X, o, b, f, F, e, E, g, G, % and none; the rest
 * (grouping, n, c, z) gives NULL, so the value stays unknown rather than
 * becoming a wrong string.
 */
#include "pyformat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Widths past this are refused (the text would be charged anyway; no
 * scope name needs it). */
#define PYFORMAT_MAX_WIDTH 4096

/* The shortest repr of a finite or special double. */
static void pyformat__float_repr(double x, char *out, size_t cap)
{
    if (isnan(x)) {
        snprintf(out, cap, "nan");
        return;
    }
    if (isinf(x)) {
        snprintf(out, cap, x < 0 ? "-inf" : "inf");
        return;
    }
    char e[40];
    int p = 1;
    for (; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    /* e = [-]d[.ddd]e[+-]XX: the digits and the exponent */
    char digits[24];
    size_t nd = 0;
    const char *s = e;
    int neg = *s == '-';
    if (neg)
        s++;
    for (; *s && *s != 'e'; s++)
        if (*s != '.' && nd < sizeof digits - 1)
            digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    int exp = atoi(s + 1);
    char *o = out;
    size_t left = cap;
#define PUT(...) do { int w_ = snprintf(o, left, __VA_ARGS__); if (w_ < 0 || (size_t)w_ >= left) return; o += w_; left -= (size_t)w_; } while (0)
    if (neg)
        PUT("-");
    if (exp < -4 || exp >= 16) {
        PUT("%c", digits[0]);
        if (nd > 1)
            PUT(".%s", digits + 1);
        PUT("e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        PUT("0.");
        for (int k = -1; k > exp; k--)
            PUT("0");
        PUT("%s", digits);
    } else {
        for (int k = 0; k <= exp; k++)
            PUT("%c", (size_t)k < nd ? digits[k] : '0');
        PUT(".");
        PUT("%s", (size_t)exp + 1 < nd ? digits + exp + 1 : "0");
    }
#undef PUT
}

/* repr() of a str: single quotes unless it holds ' and no ", escapes. */
static void pyformat__str_repr(const char *s, size_t n, StrBuf *out)
{
    char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    sb_putc(out, q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\')
            sb_printf(out, "\\%c", c);
        else if (c == '\n')
            sb_puts(out, "\\n");
        else if (c == '\r')
            sb_puts(out, "\\r");
        else if (c == '\t')
            sb_puts(out, "\\t");
        else if (c < 0x20 || c == 0x7f)
            sb_printf(out, "\\x%02x", c);
        else
            sb_putc(out, (char)c);
    }
    sb_putc(out, q);
}

static int pyformat__plain(const Obj *v, int conv, StrBuf *out);

/* repr of a tuple, list or dict of known values (their items' reprs), as
 * str() writes it too; 0 when an item is not known. depth bounds nesting. */
static int pyformat__container(const Obj *v, StrBuf *out, int depth)
{
    if (depth > 32)
        return 0;
    int dict = v->kind == O_DICT;
    if (dict && v->s)
        return 0;   /* an OrderedDict: its repr differs across Python versions */
    if (v->kind == O_SET && v->n == 0) {
        sb_puts(out, "set()");
        return 1;
    }
    sb_putc(out, v->kind == O_LIST ? '[' : dict || v->kind == O_SET ? '{' : '(');
    for (size_t i = 0; i < v->n; i++) {
        const Obj *x = v->items[i];
        if (out->len > INTERP_MAX_STR)
            return 0;   /* shared sublists can make a repr of any size: refused past 1 MiB */
        if (i)
            sb_puts(out, dict && i % 2 ? ": " : ", ");
        int ok = x->kind == O_TUPLE || x->kind == O_LIST || x->kind == O_DICT || x->kind == O_SET
                     ? pyformat__container(x, out, depth + 1)
                                                                              : pyformat__plain(x, 'r', out);
        if (!ok)
            return 0;
    }
    if (v->kind == O_TUPLE && v->n == 1)
        sb_putc(out, ',');
    sb_putc(out, v->kind == O_LIST ? ']' : dict || v->kind == O_SET ? '}' : ')');
    return 1;
}

/* str(v) (repr when conv is 'r') into out; 0 when v is not a known scalar
 * or container of them. */
static int pyformat__plain(const Obj *v, int conv, StrBuf *out)
{
    char buf[64];
    switch (v->kind) {
    case O_TUPLE: case O_LIST: case O_DICT: case O_SET: return pyformat__container(v, out, 0);
    case O_DTYPE:   /* str(torch.float16) is 'torch.float16' (repr too) */
        if (v->dtype == DT_UNKNOWN)
            return 0;
        sb_printf(out, "torch.%s", dtype_name(v->dtype));
        return 1;
    case O_NONE: sb_puts(out, "None"); return 1;
    case O_BOOL: sb_puts(out, v->i ? "True" : "False"); return 1;
    case O_INT: sb_printf(out, "%lld", (long long)v->i); return 1;
    case O_FLOAT:
        pyformat__float_repr(v->f, buf, sizeof buf);
        sb_puts(out, buf);
        return 1;
    case O_STR:
        if (conv == 'r')
            pyformat__str_repr(v->s, v->len, out);
        else
            sb_putn(out, v->s, v->len);
        return 1;
    default: return 0;
    }
}

typedef struct Spec {
    char fill, align, sign, type;
    int alt, zero, width, prec;   /* prec -1: none */
} Spec;

/* Parses a format spec; 0 for one this file does not implement. */
static int pyformat__spec(const char *s, Spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->fill = ' ';
    sp->prec = -1;
    if (s[0] && s[1] && strchr("<>^=", s[1])) {
        sp->fill = s[0], sp->align = s[1];
        s += 2;
    } else if (s[0] && strchr("<>^=", s[0])) {
        sp->align = *s++;
    }
    if (*s && strchr("+- ", *s))
        sp->sign = *s++;
    if (*s == '#')
        sp->alt = 1, s++;
    if (*s == '0') {
        sp->zero = 1, s++;
        if (!sp->align)
            sp->fill = '0', sp->align = '=';
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        sp->width = sp->width * 10 + (*s - '0');
        if (sp->width > PYFORMAT_MAX_WIDTH)
            return 0;
    }
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        for (sp->prec = 0; *s >= '0' && *s <= '9'; s++) {
            sp->prec = sp->prec * 10 + (*s - '0');
            if (sp->prec > 100)
                return 0;
        }
    }
    if (*s && strchr("sdxXobfFeEgG%", *s))
        sp->type = *s++;
    return *s == 0;
}

/* body (digits, without sign) padded to the spec's width. */
static void pyformat__pad(const Spec *sp, const char *sign, const char *body, int numeric, StrBuf *out)
{
    size_t n = strlen(sign) + strlen(body);
    size_t pad = (size_t)sp->width > n ? (size_t)sp->width - n : 0;
    char align = sp->align ? sp->align : numeric ? '>' : '<';
    size_t before = align == '>' ? pad : align == '^' ? pad / 2 : 0;
    size_t after = align == '<' ? pad : align == '^' ? pad - pad / 2 : 0;
    if (align == '=') {
        sb_puts(out, sign);
        for (size_t i = 0; i < pad; i++)
            sb_putc(out, sp->fill);
        sb_puts(out, body);
        return;
    }
    for (size_t i = 0; i < before; i++)
        sb_putc(out, sp->fill);
    sb_puts(out, sign);
    sb_puts(out, body);
    for (size_t i = 0; i < after; i++)
        sb_putc(out, sp->fill);
}

/* An int in base 2, 8, 10 or 16 (magnitude only). */
static void pyformat__int_body(uint64_t m, int base, int upper, char *buf, size_t cap)
{
    char tmp[72];
    size_t n = 0;
    const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        tmp[n++] = dig[m % (unsigned)base];
        m /= (unsigned)base;
    } while (m && n < sizeof tmp);
    size_t k = 0;
    while (n && k + 1 < cap)
        buf[k++] = tmp[--n];
    buf[k] = 0;
}

/* format(v, spec) of a number or str into out; 0 when tngc does not do it. */
static int pyformat__spec_value(const Obj *v, const Spec *sp, StrBuf *out)
{
    char body[512];   /* a %.100f of the largest double is 411 bytes */
    const char *sign = "";
    if (v->kind == O_STR) {
        if (sp->type && sp->type != 's')
            return 0;
        size_t n = sp->prec >= 0 && (size_t)sp->prec < v->len ? (size_t)sp->prec : v->len;
        char *s = xmalloc(n + 1);
        memcpy(s, v->s, n);
        s[n] = 0;
        pyformat__pad(sp, "", s, 0, out);
        free(s);
        return 1;
    }
    int is_int = v->kind == O_INT || v->kind == O_BOOL;
    if (!is_int && v->kind != O_FLOAT)
        return 0;
    char t = sp->type;   /* a bool with a spec formats as its int: format(True, '>6') is '     1' */
    if (is_int && (!t || strchr("dxXob", t))) {
        if (sp->prec >= 0)
            return 0;   /* ValueError in Python */
        uint64_t m = v->i < 0 ? (uint64_t)0 - (uint64_t)v->i : (uint64_t)v->i;
        int base = t == 'x' || t == 'X' ? 16 : t == 'o' ? 8 : t == 'b' ? 2 : 10;
        char digits[72];
        pyformat__int_body(m, base, t == 'X', digits, sizeof digits);
        snprintf(body, sizeof body, "%s%s", sp->alt && base != 10 ? (base == 16 ? (t == 'X' ? "0X" : "0x") : base == 8 ? "0o" : "0b") : "", digits);
        sign = v->i < 0 ? "-" : sp->sign == '+' ? "+" : sp->sign == ' ' ? " " : "";
        pyformat__pad(sp, sign, body, 1, out);
        return 1;
    }
    if (t && !strchr("fFeEgG%", t))
        return 0;   /* 's' or an int type on a float: ValueError */
    double x = is_int ? (double)v->i : v->f;
    int neg = signbit(x) && !isnan(x);
    double a = fabs(x);
    if (!t && sp->prec < 0) {
        pyformat__float_repr(a, body, sizeof body);
        if (is_int)   /* format(3, '') is '3' */
            snprintf(body, sizeof body, "%llu", (unsigned long long)(v->i < 0 ? (uint64_t)0 - (uint64_t)v->i : (uint64_t)v->i));
    } else if (!isfinite(a)) {
        snprintf(body, sizeof body, "%s", isnan(a) ? (t && strchr("FEG", t) ? "NAN" : "nan") : (t && strchr("FEG", t) ? "INF" : "inf"));
        if (t == '%')
            strncat(body, "%", sizeof body - strlen(body) - 1);
    } else {
        int p = sp->prec < 0 ? 6 : sp->prec;
        if (t == '%')
            snprintf(body, sizeof body, "%.*f%%", p, a * 100.0);
        else if (!t)   /* precision, no type: like 'g' but at least one digit after a point */
            snprintf(body, sizeof body, "%.*g", p ? p : 1, a);
        else
            snprintf(body, sizeof body, t == 'F' ? "%.*F" : t == 'f' ? "%.*f" : t == 'e' ? "%.*e" : t == 'E' ? "%.*E" : t == 'g' ? "%.*g" : "%.*G", t == 'g' || t == 'G' ? (p ? p : 1) : p, a);
        if (sp->alt && !strchr(body, '.') && (t == 'f' || t == 'F'))
            strncat(body, ".", sizeof body - strlen(body) - 1);
    }
    sign = neg ? "-" : sp->sign == '+' ? "+" : sp->sign == ' ' ? " " : "";
    pyformat__pad(sp, sign, body, 1, out);
    return 1;
}

const char *pyformat_value(Interp *I, const Obj *v, int conv, const char *spec)
{
    if (!v)
        return NULL;
    StrBuf out = {0};
    int ok;
    if (conv == 'r' || conv == 's' || !spec || !*spec) {
        ok = pyformat__plain(v, conv, &out);
        if (ok && spec && *spec) {   /* f"{x!r:>10}": the spec formats repr's text */
            Obj s = {.kind = O_STR, .s = out.s ? out.s : "", .len = out.len};
            Spec sp;
            StrBuf padded = {0};
            ok = pyformat__spec(spec, &sp) && pyformat__spec_value(&s, &sp, &padded);
            sb_free(&out);
            out = padded;
        }
    } else {
        Spec sp;
        ok = pyformat__spec(spec, &sp) && pyformat__spec_value(v, &sp, &out);
    }
    /* a repr past 1 MiB (refused while it was written) stops the run */
    if (out.len > INTERP_MAX_STR)
        ok = interp_str_fits(I, I->at, out.len, conv == 'r' ? "repr()" : "str()");
    const char *r = ok ? interp_strndup(I, out.s ? out.s : "", out.len) : NULL;
    sb_free(&out);
    return r;
}

/* One conversion of printf-style formatting: v by the flags, width,
 * precision and type of "%<flags><width>.<prec><type>" into out; 0 when
 * Python refuses (TypeError) or tngc does not do it. */
static int pyformat__percent_one(Interp *I, const Obj *v, const char *flags, int width, int prec, char type,
                                 StrBuf *out)
{
    int minus = strchr(flags, '-') != NULL, plus = strchr(flags, '+') != NULL;
    int space = strchr(flags, ' ') != NULL, zero = strchr(flags, '0') != NULL && !minus;
    int alt = strchr(flags, '#') != NULL;
    char spec[64];
    char w[16] = "", p[16] = "";
    if (width > 0)
        snprintf(w, sizeof w, "%d", width);
    if (prec >= 0)
        snprintf(p, sizeof p, ".%d", prec);
    if (type == 's' || type == 'r' || type == 'a') {
        /* str()/repr() of the value, right-aligned unless '-' */
        const char *text = pyformat_value(I, v, type == 's' ? 's' : 'r', "");
        int non_ascii = 0;
        for (const char *c = text; text && *c; c++)
            non_ascii |= (unsigned char)*c >= 0x80;
        if (!text || (type == 'a' && non_ascii))
            return 0;   /* ascii() of a non-ASCII text escapes it: not done */
        Obj s = {.kind = O_STR, .s = text, .len = strlen(text)};
        snprintf(spec, sizeof spec, "%c%s%s", minus ? '<' : '>', w, p);
        const char *r = pyformat_value(I, &s, 0, spec);
        if (!r)
            return 0;
        sb_puts(out, r);
        return 1;
    }
    Obj num = *v;
    if (v->kind == O_BOOL)
        num.kind = O_INT;
    if (num.kind != O_INT && num.kind != O_FLOAT)
        return 0;   /* TypeError: a number is required */
    if (strchr("diu", type)) {
        if (num.kind == O_FLOAT) {   /* "%d" % 3.7 is '3': int() of it */
            if (!(num.f > -9.2e18 && num.f < 9.2e18))
                return 0;
            num.kind = O_INT, num.i = (int64_t)num.f;
        }
        if (prec >= 0)
            return 0;   /* "%.3d": minimum digits, not done */
        type = 'd';
    } else if (strchr("xXo", type)) {
        if (num.kind != O_INT || prec >= 0)
            return 0;   /* TypeError for a float; minimum digits not done */
    } else if (strchr("eEfFgG", type)) {
        if (num.kind == O_INT)
            num.kind = O_FLOAT, num.f = (double)num.i;
        if (alt && type != 'f' && type != 'F')
            return 0;
        if (prec < 0)
            snprintf(p, sizeof p, ".6");
    } else {
        return 0;   /* %c and unknown types */
    }
    snprintf(spec, sizeof spec, "%s%s%s%s%s%s%c", minus ? "<" : "", plus ? "+" : space ? " " : "",
             alt ? "#" : "", zero ? "0" : "", w, p, type);
    const char *r = pyformat_value(I, &num, 0, spec);
    if (!r)
        return 0;
    sb_puts(out, r);
    return 1;
}

const char *pyformat_percent(Interp *I, const Obj *fmt, const Obj *args)
{
    const Obj *const *items = &args;
    size_t n = 1, next = 0;
    if (args->kind == O_TUPLE)
        items = (const Obj *const *)args->items, n = args->n;
    const Obj *map = args->kind == O_DICT ? args : NULL;
    StrBuf out = {0};
    const char *s = fmt->s, *end = fmt->s + fmt->len;
    int ok = 1;
    while (s < end && ok) {
        if (out.len > INTERP_MAX_STR) {
            ok = interp_str_fits(I, I->at, out.len, "'%' formatting");   /* many wide fields */
            break;
        }
        if (*s != '%') {
            const char *lit = s;
            while (s < end && *s != '%')
                s++;
            ok = interp_str_put(I, &out, lit, (size_t)(s - lit), I->at, "'%' formatting");
            continue;
        }
        s++;
        const Obj *v = NULL;
        if (s < end && *s == '(') {   /* %(key)s of a dict */
            const char *close = memchr(s, ')', (size_t)(end - s));
            if (!map || !close) {
                ok = 0;
                break;
            }
            for (size_t i = 0; i + 1 < map->n; i += 2) {
                const Obj *k = map->items[i];
                if (k->kind == O_STR && k->len == (size_t)(close - s - 1) && !memcmp(k->s, s + 1, k->len))
                    v = map->items[i + 1];
            }
            if (!v) {
                ok = 0;   /* KeyError (or a key tngc does not see) */
                break;
            }
            s = close + 1;
        }
        char flags[8];
        size_t nf = 0;
        while (s < end && strchr("-+ #0", *s) && *s) {
            if (nf < sizeof flags - 1)
                flags[nf++] = *s;
            s++;
        }
        flags[nf] = 0;
        int width = 0, prec = -1;
        for (; s < end && *s >= '0' && *s <= '9'; s++)
            if ((width = width * 10 + (*s - '0')) > PYFORMAT_MAX_WIDTH)
                ok = 0;
        if (s < end && *s == '.') {
            s++;
            for (prec = 0; s < end && *s >= '0' && *s <= '9'; s++)
                if ((prec = prec * 10 + (*s - '0')) > 100)
                    ok = 0;
        }
        if (!ok || s >= end || *s == '*') {
            ok = 0;   /* '*' widths, a '%' at the end (ValueError) */
            break;
        }
        char type = *s++;
        if (type == '%' && !v && !nf && !width && prec < 0) {
            sb_putc(&out, '%');
            continue;
        }
        if (!v) {
            if (map || next >= n) {
                ok = 0;   /* not enough arguments */
                break;
            }
            v = items[next++];
        }
        ok = pyformat__percent_one(I, v, flags, width, prec, type, &out);
        if (ok && out.len > INTERP_MAX_STR)
            ok = interp_str_fits(I, I->at, out.len, "'%' formatting");
    }
    /* TypeError: not all arguments converted (a dict is one argument) */
    if (ok && !map && next != n)
        ok = 0;
    const char *r = ok ? interp_strndup(I, out.s ? out.s : "", out.len) : NULL;
    sb_free(&out);
    return r;
}
