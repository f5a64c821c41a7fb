/*
 * sig.c - PyTorch-style signatures of library calls (the language is
 * sig.h's): the parser, and the binder of a call's arguments, whose
 * refusals are Python's TypeErrors (too many positional arguments, an
 * unexpected keyword, a parameter given twice, a missing one).
 */

#include "sig.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================================================================== */
/* Parsing                                                               */
/* ===================================================================== */

typedef struct SigScan {
    const char *s;      /* the cursor */
    const char *text;   /* the whole signature, for messages */
    StrBuf *why;
} SigScan;

static int sig__fail(SigScan *sc, const char *what)
{
    sb_printf(sc->why, "malformed signature at column %d (%s): %s", (int)(sc->s - sc->text) + 1,
             what, sc->text);
    return 0;
}

static void sig__ws(SigScan *sc)
{
    while (*sc->s == ' ')
        sc->s++;
}

/* An identifier (dots allowed when dotted: a function's name); its length,
 * 0 when there is none. */
static size_t sig__ident(SigScan *sc, int dotted)
{
    const char *b = sc->s;
    if (!isalpha((unsigned char)*b) && *b != '_')
        return 0;
    while (isalnum((unsigned char)*sc->s) || *sc->s == '_' || (dotted && *sc->s == '.'))
        sc->s++;
    return (size_t)(sc->s - b);
}

static int sig__type_known(const char *t, size_t n)
{
    static const char *const types[] = {"Tensor", "Scalar", "int", "float", "bool", "str", "ScalarType",
                                        "Device", "Layout", "MemoryFormat", "Generator", "Any"};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strlen(types[i]) == n && memcmp(types[i], t, n) == 0)
            return 1;
    return 0;
}

/* A number: -?digits[.digits][e[+-]digits], or inf. */
static int sig__number(SigScan *sc)
{
    const char *b = sc->s;
    if (*sc->s == '-')
        sc->s++;
    if (strncmp(sc->s, "inf", 3) == 0) {
        sc->s += 3;
        return 1;
    }
    if (!isdigit((unsigned char)*sc->s)) {
        sc->s = b;
        return 0;
    }
    while (isdigit((unsigned char)*sc->s))
        sc->s++;
    if (*sc->s == '.')
        for (sc->s++; isdigit((unsigned char)*sc->s);)
            sc->s++;
    if (*sc->s == 'e') {
        sc->s++;
        if (*sc->s == '-' || *sc->s == '+')
            sc->s++;
        if (!isdigit((unsigned char)*sc->s))
            return 0;
        while (isdigit((unsigned char)*sc->s))
            sc->s++;
    }
    return 1;
}

/* A default: None, True, False, a number, 'string', [int, ...]. */
static int sig__default(SigScan *sc)
{
    size_t n;
    if (*sc->s == '\'') {
        for (sc->s++; *sc->s && *sc->s != '\''; sc->s++) {
        }
        if (*sc->s != '\'')
            return sig__fail(sc, "unterminated string");
        sc->s++;
        return 1;
    }
    if (*sc->s == '[') {
        sc->s++;
        sig__ws(sc);
        while (*sc->s != ']') {
            if (!sig__number(sc))
                return sig__fail(sc, "a list default holds numbers");
            sig__ws(sc);
            if (*sc->s == ',') {
                sc->s++;
                sig__ws(sc);
            } else if (*sc->s != ']') {
                return sig__fail(sc, "',' or ']' expected");
            }
        }
        sc->s++;
        return 1;
    }
    if (sig__number(sc))
        return 1;
    const char *b = sc->s;
    if ((n = sig__ident(sc, 0)) && ((n == 4 && memcmp(b, "None", 4) == 0) || (n == 4 && memcmp(b, "True", 4) == 0)
                                    || (n == 5 && memcmp(b, "False", 5) == 0)))
        return 1;
    sc->s = b;
    return sig__fail(sc, "a default is None, True, False, a number, a 'string' or a list");
}

/* One parameter after the type's start; appended to pool. */
static int sig__param(SigScan *sc, SigParam *p, int kwonly)
{
    memset(p, 0, sizeof *p);
    p->type = sc->s;
    size_t n = sig__ident(sc, 0);
    if (!n || !sig__type_known(p->type, n))
        return sig__fail(sc, "unknown type");
    if (*sc->s == '[') {
        for (sc->s++; isdigit((unsigned char)*sc->s);)
            sc->s++;
        if (*sc->s != ']')
            return sig__fail(sc, "']' expected");
        sc->s++;
    }
    if (*sc->s == '?') {
        p->optional = 1;
        sc->s++;
    }
    if (strncmp(sc->s, "...", 3) == 0) {
        p->vararg = 1;
        sc->s += 3;
    }
    p->tlen = (uint8_t)(sc->s - p->type);
    if (*sc->s != ' ')
        return sig__fail(sc, "a parameter is TYPE NAME");
    sig__ws(sc);
    p->name = sc->s;
    if (!(n = sig__ident(sc, 0)) || n > 255)
        return sig__fail(sc, "a parameter's name expected");
    p->nlen = (uint8_t)n;
    p->kwonly = (uint8_t)kwonly;
    sig__ws(sc);
    if (*sc->s == '=') {
        sc->s++;
        sig__ws(sc);
        p->def = sc->s;
        if (!sig__default(sc))
            return 0;
        if (sc->s - p->def > 255)
            return sig__fail(sc, "default too long");
        p->dlen = (uint8_t)(sc->s - p->def);
        sig__ws(sc);
    }
    if (p->vararg && p->def)
        return sig__fail(sc, "varargs have no default");
    return 1;
}

/* One overload NAME(PARAMS) -> RESULT, into *s. */
static int sig__overload(SigScan *sc, Sig *s, SigParam *pool, size_t cap, size_t *used)
{
    sig__ws(sc);
    s->name = sc->s;
    size_t n = sig__ident(sc, 1);
    if (!n || n > 255)
        return sig__fail(sc, "a function name expected");
    s->nlen = (uint8_t)n;
    s->np = 0;
    s->kwextra = 0;
    s->p = pool + *used;
    if (*sc->s != '(')
        return sig__fail(sc, "'(' expected");
    sc->s++;
    sig__ws(sc);
    int kwonly = 0, star = 0, seen_default = 0;
    while (*sc->s != ')') {
        if (s->kwextra)
            return sig__fail(sc, "'**' is the last parameter");
        if (strncmp(sc->s, "**", 2) == 0) {
            s->kwextra = 1;
            sc->s += 2;
            sig__ws(sc);
        } else if (*sc->s == '*' && !star) {   /* (after varargs too, as Python writes it) */
            kwonly = star = 1;
            sc->s++;
            sig__ws(sc);
            if (*sc->s != ',')
                return sig__fail(sc, "'*' is followed by a parameter");
        } else {
            if (*used >= cap || s->np >= SIG_MAXP)
                return sig__fail(sc, "too many parameters");
            SigParam *p = pool + *used;
            if (!sig__param(sc, p, kwonly))
                return 0;
            for (int i = 0; i < s->np; i++)
                if (s->p[i].nlen == p->nlen && memcmp(s->p[i].name, p->name, p->nlen) == 0)
                    return sig__fail(sc, "a parameter named twice");
            if (!kwonly && !p->vararg) {
                if (seen_default && !p->def)
                    return sig__fail(sc, "a required positional parameter after one with a default");
                seen_default |= p->def != NULL;
            }
            if (p->vararg)
                kwonly = 1;
            (*used)++;
            s->np++;
        }
        if (*sc->s == ',') {
            sc->s++;
            sig__ws(sc);
            if (*sc->s == ')')
                return sig__fail(sc, "a parameter expected after ','");
        } else if (*sc->s != ')') {
            return sig__fail(sc, "',' or ')' expected");
        }
    }
    sc->s++;
    sig__ws(sc);
    if (strncmp(sc->s, "->", 2) != 0)
        return sig__fail(sc, "'-> RESULT' expected");
    sc->s += 2;
    sig__ws(sc);
    const char *r = sc->s;
    while (*sc->s && *sc->s != '|')
        sc->s++;
    if (sc->s == r)
        return sig__fail(sc, "a result expected after '->'");
    return 1;
}

int sig_parse(const char *text, Sig *sig, int nsig, SigParam *pool, size_t cap, size_t *used, StrBuf *why)
{
    SigScan sc = {text, text, why};
    int n = 0;
    for (;;) {
        if (n >= nsig)
            return sig__fail(&sc, "too many overloads");
        if (!sig__overload(&sc, &sig[n], pool, cap, used))
            return 0;
        n++;
        if (!*sc.s)
            return n;
        sc.s++;   /* '|' */
    }
}

int sig_index(const Sig *s, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < s->np; i++)
        if (s->p[i].nlen == n && memcmp(s->p[i].name, name, n) == 0)
            return i;
    return -1;
}

/* ===================================================================== */
/* Binding                                                               */
/* ===================================================================== */

/* Whether o may be passed to p (sig_bind's check_types). */
static int sig__fits(const SigParam *p, const Obj *o)
{
    if (!o || o->kind == O_UNKNOWN)
        return 1;
    if (o->kind == O_NONE)
        return p->optional || (p->def && p->dlen == 4 && memcmp(p->def, "None", 4) == 0);
    size_t b = 0;
    while (b < p->tlen && isalpha((unsigned char)p->type[b]))
        b++;
    if (p->vararg || (b < p->tlen && p->type[b] == '['))   /* a list: its items are read later */
        return o->kind != O_TENSOR || (b == 6 && memcmp(p->type, "Tensor", 6) == 0);
#define SIG_IS(t) (b == strlen(t) && memcmp(p->type, t, b) == 0)
    if (SIG_IS("Tensor"))
        return o->kind == O_TENSOR;
    if (SIG_IS("int") || SIG_IS("bool"))
        return o->kind == O_INT || o->kind == O_BOOL || o->kind == O_DIM;
    if (SIG_IS("float"))
        return o->kind == O_INT || o->kind == O_BOOL || o->kind == O_DIM || o->kind == O_FLOAT;
    if (SIG_IS("str"))
        return o->kind == O_STR;
    if (SIG_IS("ScalarType"))
        return o->kind == O_DTYPE;
#undef SIG_IS
    return 1;
}

int sig_bind(Interp *I, const Sig *s, const CallArgs *a, int check_types, const char *what, Obj **out,
             StrBuf *why)
{
    int npos = 0;   /* the parameters that take positional arguments */
    for (int i = 0; i < s->np; i++) {
        out[i] = NULL;
        if (!s->p[i].kwonly || s->p[i].vararg)
            npos = i + 1;
    }
    size_t k = 0;
    for (int j = 0; k < a->npos; j++) {
        if (j >= npos) {
            if (j < s->np)
                sb_printf(why, "%s() takes %d positional argument%s but %zu were given ('%.*s' is "
                         "keyword-only)", what, npos, npos == 1 ? "" : "s", a->npos, s->p[j].nlen, s->p[j].name);
            else
                sb_printf(why, "%s() takes %d positional argument%s but %zu were given", what, npos,
                         npos == 1 ? "" : "s", a->npos);
            return 0;
        }
        if (s->p[j].vararg) {
            out[j] = a->npos - k == 1 ? a->pos[k] : obj_tuple(I, a->pos + k, a->npos - k);
            k = a->npos;
        } else {
            out[j] = a->pos[k++];
        }
    }
    for (size_t i = 0; i < a->nkw; i++) {
        int j = sig_index(s, a->kwnames[i]);
        if (j < 0 && s->kwextra)
            continue;
        if (j < 0) {
            sb_printf(why, "%s() got an unexpected keyword argument '%s'", what, a->kwnames[i]);
            return 0;
        }
        if (out[j]) {
            sb_printf(why, "%s() got multiple values for argument '%s'", what, a->kwnames[i]);
            return 0;
        }
        out[j] = a->kw[i];
    }
    for (int j = 0; j < s->np; j++) {
        if (!out[j] && !s->p[j].def && !(s->p[j].vararg && s->p[j].optional)) {
            sb_printf(why, "%s() missing required argument '%.*s'", what, s->p[j].nlen, s->p[j].name);
            return 0;
        }
        if (check_types && out[j] && !sig__fits(&s->p[j], out[j])) {
            sb_printf(why, "%s(): argument '%.*s' must be %.*s", what, s->p[j].nlen, s->p[j].name,
                     s->p[j].tlen, s->p[j].type);
            return 0;
        }
    }
    return 1;
}

Obj *sig_default(Interp *I, const Sig *s, int i)
{
    const SigParam *p = &s->p[i];
    const char *d = p->def;
    if (!d || (p->dlen == 4 && memcmp(d, "None", 4) == 0))
        return NULL;
    if (p->dlen == 4 && memcmp(d, "True", 4) == 0)
        return obj_bool(I, 1);
    if (p->dlen == 5 && memcmp(d, "False", 5) == 0)
        return obj_bool(I, 0);
    if (*d == '\'')
        return obj_str(I, interp_printf(I, "%.*s", p->dlen - 2, d + 1));
    if (*d == '[') {
        Obj *items[SIG_MAXP];
        size_t n = 0;
        for (const char *q = d + 1; *q != ']' && n < SIG_MAXP;) {
            char *e;
            items[n++] = obj_int(I, strtoll(q, &e, 10));
            for (q = e; *q == ',' || *q == ' '; q++) {
            }
        }
        return obj_tuple(I, items, n);
    }
    int is_float = 0;
    for (int k = 0; k < p->dlen; k++)
        is_float |= d[k] == '.' || d[k] == 'e' || d[k] == 'i';
    if (!is_float)
        return obj_int(I, strtoll(d, NULL, 10));
    if (strncmp(d, "-inf", 4) == 0)
        return obj_float(I, -HUGE_VAL);
    if (strncmp(d, "inf", 3) == 0)
        return obj_float(I, HUGE_VAL);
    return obj_float(I, strtod(d, NULL));
}
