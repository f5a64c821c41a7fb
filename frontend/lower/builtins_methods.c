/*
 * builtins_methods.c - the methods of Python's str, list, dict and set, as
 * the lowering evaluates them on known values (builtins.h:
 * builtins_str_method, builtins_container_method); the builtin functions
 * are builtins.c's.
 */
#include "builtins.h"
#include "pyformat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================================================================== */
/* Methods of str                                                        */
/* ===================================================================== */

/* A known str argument, or NULL. */
static const Obj *str_arg(const CallArgs *a, size_t pos, const char *name)
{
    Obj *x = args_get(a, pos, name);
    return x && x->kind == O_STR ? x : NULL;
}

/* fmt.format(*args, **kwargs): {} {0} {name}, !r !s, :spec; NULL for
 * what tngc does not do ({0.attr}, {0[k]}, nested {} in a spec). */
static Obj *str_format(Interp *I, const Obj *fmt, const CallArgs *a)
{
    if (a->has_star)
        return NULL;
    StrBuf out = {0};
    size_t auto_ix = 0;
    const char *s = fmt->s, *end = fmt->s + fmt->len;
    int ok = 1;
    while (s < end && ok) {
        if ((*s == '{' || *s == '}') && s + 1 < end && s[1] == *s) {
            if (!interp_str_put(I, &out, s, 1, a->node, "str.format"))
                break;
            s += 2;
            continue;
        }
        if (*s == '}') {
            ok = 0;   /* ValueError: single '}' */
            break;
        }
        if (*s != '{') {
            const char *lit = s;
            while (s < end && *s != '{' && *s != '}')
                s++;
            if (!interp_str_put(I, &out, lit, (size_t)(s - lit), a->node, "str.format"))
                break;
            continue;
        }
        const char *close = memchr(s, '}', (size_t)(end - s));
        if (!close || memchr(s + 1, '{', (size_t)(close - s - 1))) {
            ok = 0;
            break;
        }
        /* field: name [!conv] [:spec] */
        const char *f = s + 1, *colon = memchr(f, ':', (size_t)(close - f));
        const char *fend = colon ? colon : close, *bang = memchr(f, '!', (size_t)(fend - f));
        const char *nend = bang ? bang : fend;
        int conv = bang ? (bang + 2 == fend ? bang[1] : '?') : 0;
        char *name = interp_strndup(I, f, (size_t)(nend - f));
        const char *spec = colon ? interp_strndup(I, colon + 1, (size_t)(close - colon - 1)) : "";
        Obj *v = NULL;
        if (!*name) {
            v = auto_ix < a->npos ? a->pos[auto_ix] : NULL;
            auto_ix++;
        } else if (*name >= '0' && *name <= '9') {
            char *e;
            unsigned long k = strtoul(name, &e, 10);
            v = !*e && k < a->npos ? a->pos[k] : NULL;
        } else if (!strpbrk(name, ".[")) {
            v = args_kw(a, name);
        }
        const char *t = v && (conv == 0 || conv == 'r' || conv == 's') ? pyformat_value(I, v, conv, spec) : NULL;
        if (!t)
            ok = 0;
        else if (!interp_str_put(I, &out, t, strlen(t), a->node, "str.format"))
            break;
        s = close + 1;
    }
    if (I->aborted) {   /* past the string limit: the run stops */
        sb_free(&out);
        return obj_unknown(I, NULL);
    }
    Obj *r = ok ? obj_str(I, interp_strndup(I, out.s ? out.s : "", out.len)) : NULL;
    sb_free(&out);
    return r;
}

/* sep.join(iterable) of known strs */
static Obj *str_join(Interp *I, const Obj *sep, CallArgs *a)
{
    Obj *l = obj_iter(I, args_get(a, 0, "iterable"), a->node, ITER_EXPAND);
    if (!l)
        return NULL;
    /* the length first: the text is made only when it fits */
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->items[i]->kind != O_STR)
            return NULL;
        total += l->items[i]->len + (i ? sep->len : 0);
        if (total > INTERP_MAX_STR)
            break;
    }
    if (!interp_str_fits(I, a->node, total, "str.join"))
        return obj_unknown(I, NULL);
    char *out = interp_alloc(I, total + 1);
    size_t at = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (i) {
            memcpy(out + at, sep->s, sep->len);
            at += sep->len;
        }
        memcpy(out + at, l->items[i]->s, l->items[i]->len);
        at += l->items[i]->len;
    }
    return obj_str(I, out);
}

/* Whether the list r of a split may take one more piece: 0 after stopping
 * the run (TNG212 at node) when it holds INTERP_MAX_ITEMS already. */
static int str__room(Interp *I, const Obj *r, int32_t node)
{
    if (r->n < INTERP_MAX_ITEMS)
        return 1;
    interp_limit(I, node, "a container of more than 100,000 items (a split)");
    return 0;
}

/* s.split(sep=None, maxsplit=-1): on whitespace runs, or on sep */
static Obj *str_split(Interp *I, const Obj *self, CallArgs *a)
{
    Obj *sepo = args_get(a, 0, "sep"), *mo = args_get(a, 1, "maxsplit");
    if ((sepo && sepo->kind != O_STR && sepo->kind != O_NONE) || (mo && mo->kind != O_INT))
        return NULL;
    const Obj *sep = sepo && sepo->kind == O_STR ? sepo : NULL;
    if (sep && sep->len == 0)
        return NULL;   /* ValueError: empty separator */
    int64_t max = mo ? mo->i : -1;
    Obj *r = obj_seq_of(I, O_LIST, NULL, 0);
    const char *s = self->s, *end = self->s + self->len;
    if (!sep) {
        while (s < end) {
            while (s < end && strchr(" \t\n\r\f\v", *s))
                s++;
            if (s == end)
                break;
            const char *w = s;
            if (max >= 0 && (int64_t)r->n == max) {
                const char *e = end;
                while (e > w && strchr(" \t\n\r\f\v", e[-1]))
                    e--;
                obj_push(I, r, obj_str(I, interp_strndup(I, w, (size_t)(e - w))));
                break;
            }
            while (s < end && !strchr(" \t\n\r\f\v", *s))
                s++;
            if (!str__room(I, r, a->node))
                return obj_unknown(I, NULL);
            obj_push(I, r, obj_str(I, interp_strndup(I, w, (size_t)(s - w))));
        }
        return r;
    }
    for (;;) {
        const char *hit = NULL;
        if (max < 0 || (int64_t)r->n < max)
            for (const char *p = s; p + sep->len <= end; p++) {
                interp_work(I, 1 + sep->len / 64);   /* a long text and separator: the time limit */
                if (!memcmp(p, sep->s, sep->len)) {
                    hit = p;
                    break;
                }
            }
        if (!str__room(I, r, a->node))
            return obj_unknown(I, NULL);
        if (!hit) {
            obj_push(I, r, obj_str(I, interp_strndup(I, s, (size_t)(end - s))));
            return r;
        }
        obj_push(I, r, obj_str(I, interp_strndup(I, s, (size_t)(hit - s))));
        s = hit + sep->len;
    }
}

/* s.replace(old, new[, count]) */
static Obj *str_replace(Interp *I, const Obj *self, CallArgs *a)
{
    const Obj *old = str_arg(a, 0, "old"), *new = str_arg(a, 1, "new");
    Obj *co = args_get(a, 2, "count");
    if (!old || !new || (co && co->kind != O_INT) || old->len == 0)
        return NULL;   /* an empty old inserts between characters: not done */
    int64_t count = co ? co->i : -1;
    /* the length first: the text is made only when it fits */
    size_t hits = 0;
    const char *s = self->s, *end = self->s + self->len;
    for (int64_t left = count; s < end && left != 0;) {
        interp_work(I, 1 + old->len / 64);
        if (s + old->len <= end && !memcmp(s, old->s, old->len))
            hits++, s += old->len, left--;
        else
            s++;
    }
    if (I->aborted)
        return obj_unknown(I, NULL);
    size_t total = self->len - hits * old->len;
    if (new->len && hits > (INTERP_MAX_STR - (total < INTERP_MAX_STR ? total : INTERP_MAX_STR)) / new->len)
        total = (size_t)INTERP_MAX_STR + 1;
    else
        total += hits * new->len;
    if (!interp_str_fits(I, a->node, total, "str.replace"))
        return obj_unknown(I, NULL);
    char *out = interp_alloc(I, total + 1);
    size_t at = 0;
    s = self->s;
    while (s < end) {
        if (hits && s + old->len <= end && !memcmp(s, old->s, old->len)) {
            memcpy(out + at, new->s, new->len);
            at += new->len;
            s += old->len;
            hits--;
        } else {
            out[at++] = *s++;
        }
    }
    return obj_str(I, out);
}

/* s.strip([chars]) | lstrip | rstrip */
static Obj *str_strip(Interp *I, const char *m, const Obj *self, CallArgs *a)
{
    Obj *co = args_get(a, 0, "chars");
    if (co && co->kind != O_STR && co->kind != O_NONE)
        return NULL;
    const char *chars = co && co->kind == O_STR ? co->s : " \t\n\r\f\v";
    size_t nchars = co && co->kind == O_STR ? co->len : 6;
    const char *s = self->s, *e = self->s + self->len;
    if (m[0] != 'r')
        while (s < e && memchr(chars, *s, nchars))
            s++;
    if (m[0] != 'l')
        while (e > s && memchr(chars, e[-1], nchars))
            e--;
    return obj_str(I, interp_strndup(I, s, (size_t)(e - s)));
}

/* 1 when every byte of s is ASCII (code points are bytes). */
static int str__ascii(const Obj *s)
{
    for (size_t i = 0; i < s->len; i++)
        if ((unsigned char)s->s[i] >= 0x80)
            return 0;
    return 1;
}

/* The index of the first (last when rev) sub in s, or -1. */
static long str__find(Interp *I, const Obj *s, const Obj *sub, int rev)
{
    if (sub->len > s->len)
        return -1;
    size_t last = s->len - sub->len;
    for (size_t k = 0; k <= last; k++) {
        size_t i = rev ? last - k : k;
        interp_work(I, 1 + sub->len / 64);
        if (!memcmp(s->s + i, sub->s, sub->len))
            return (long)i;
    }
    return -1;
}

/* The str methods on ASCII text: is*, count, find, rfind, index, zfill,
 * ljust, rjust, center, partition, rpartition, rsplit, removeprefix,
 * removesuffix, capitalize; NULL for what tngc does not do. */
static Obj *str_more(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    if (!str__ascii(self))
        return NULL;
    if (!strncmp(m, "is", 2) && a->npos == 0) {
        int ok = self->len > 0, lower = 0, upper = 0;
        for (size_t i = 0; i < self->len; i++) {
            char c = self->s[i];
            int d = c >= '0' && c <= '9', al = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            lower |= c >= 'a' && c <= 'z';
            upper |= c >= 'A' && c <= 'Z';
            if (streq(m, "isdigit") || streq(m, "isdecimal") || streq(m, "isnumeric"))
                ok &= d;
            else if (streq(m, "isalpha"))
                ok &= al;
            else if (streq(m, "isalnum"))
                ok &= al || d;
            else if (streq(m, "isspace"))
                ok &= strchr(" \t\n\r\f\v", c) != NULL && c;
            else if (!streq(m, "islower") && !streq(m, "isupper"))
                return NULL;
        }
        if (streq(m, "islower"))
            return obj_bool(I, lower && !upper);
        if (streq(m, "isupper"))
            return obj_bool(I, upper && !lower);
        return obj_bool(I, ok);
    }
    const Obj *x = str_arg(a, 0, NULL);
    if ((streq(m, "count") || streq(m, "find") || streq(m, "rfind") || streq(m, "index")) && x && a->npos == 1) {
        if (streq(m, "count")) {
            if (!x->len)
                return obj_int(I, (int64_t)self->len + 1);
            int64_t n = 0;
            for (size_t i = 0; i + x->len <= self->len;) {
                interp_work(I, 1 + x->len / 64);
                if (!memcmp(self->s + i, x->s, x->len))
                    n++, i += x->len;
                else
                    i++;
            }
            return obj_int(I, n);
        }
        long k = str__find(I, self, x, m[0] == 'r');
        return k < 0 && m[0] == 'i' ? NULL : obj_int(I, k);   /* index: ValueError */
    }
    if ((streq(m, "zfill") || streq(m, "ljust") || streq(m, "rjust") || streq(m, "center")) && a->npos >= 1) {
        int64_t w;
        Obj *fo = args_get(a, 1, "fillchar");
        if (!obj_int_value(a->pos[0], &w) || w > 4096 || (fo && (fo->kind != O_STR || fo->len != 1)))
            return NULL;
        size_t n = self->len, pad = w > (int64_t)n ? (size_t)w - n : 0;
        char fill = fo ? fo->s[0] : m[0] == 'z' ? '0' : ' ';
        size_t left = m[0] == 'l' ? 0 : m[0] == 'c' ? (pad / 2 + (pad & (size_t)w & 1)) : pad;
        char *out = interp_alloc(I, n + pad + 1);
        size_t k = 0;
        int sign = m[0] == 'z' && n && (self->s[0] == '-' || self->s[0] == '+');
        if (sign)
            out[k++] = self->s[0];
        for (size_t i = 0; i < left; i++)
            out[k++] = fill;
        memcpy(out + k, self->s + sign, n - (size_t)sign);
        k += n - (size_t)sign;
        for (size_t i = left; i < pad; i++)
            out[k++] = fill;
        out[k] = 0;
        return obj_str(I, out);
    }
    if ((streq(m, "partition") || streq(m, "rpartition")) && x && x->len && a->npos == 1) {
        long k = str__find(I, self, x, m[0] == 'r');
        Obj *parts[3];
        if (k < 0) {
            Obj *e = obj_str(I, "");
            parts[0] = m[0] == 'r' ? e : self, parts[1] = e, parts[2] = m[0] == 'r' ? self : e;
        } else {
            parts[0] = obj_str(I, interp_strndup(I, self->s, (size_t)k));
            parts[1] = (Obj *)x;
            parts[2] = obj_str(I, interp_strndup(I, self->s + k + x->len, self->len - (size_t)k - x->len));
        }
        return obj_tuple(I, parts, 3);
    }
    if (streq(m, "rsplit")) {   /* rsplit(sep, maxsplit): from the right */
        Obj *mo = args_get(a, 1, "maxsplit");
        x = str_arg(a, 0, "sep");
        int64_t max = -1;
        if (!x || !x->len || (mo && !obj_int_value(mo, &max)))
            return NULL;
        Obj *r = obj_seq_of(I, O_LIST, NULL, 0);
        size_t end = self->len;
        while (max < 0 || (int64_t)r->n < max) {
            Obj head = *self;
            head.len = end;
            long k = str__find(I, &head, x, 1);
            if (k < 0)
                break;
            if (!str__room(I, r, a->node))
                return obj_unknown(I, NULL);
            obj_push(I, r, obj_str(I, interp_strndup(I, self->s + k + x->len, end - (size_t)k - x->len)));
            end = (size_t)k;
        }
        obj_push(I, r, obj_str(I, interp_strndup(I, self->s, end)));
        for (size_t i = 0; i < r->n / 2; i++) {
            Obj *t = r->items[i];
            r->items[i] = r->items[r->n - 1 - i];
            r->items[r->n - 1 - i] = t;
        }
        return r;
    }
    if ((streq(m, "removeprefix") || streq(m, "removesuffix")) && x && a->npos == 1) {
        int pre = m[6] == 'p';
        if (x->len <= self->len && !memcmp(self->s + (pre ? 0 : self->len - x->len), x->s, x->len))
            return obj_str(I, interp_strndup(I, self->s + (pre ? x->len : 0), self->len - x->len));
        return self;
    }
    if (streq(m, "capitalize") && a->npos == 0) {
        char *t = interp_strndup(I, self->s, self->len);
        for (size_t i = 0; i < self->len; i++)
            if (i == 0 ? (t[i] >= 'a' && t[i] <= 'z') : (t[i] >= 'A' && t[i] <= 'Z'))
                t[i] = (char)(t[i] ^ 0x20);
        return obj_str(I, t);
    }
    return NULL;
}

Obj *builtins_str_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    interp_work(I, self->len / 64);   /* each method reads the text at least once */
    if (!strcmp(m, "format"))
        return str_format(I, self, a);
    if (!strcmp(m, "join"))
        return str_join(I, self, a);
    if (!strcmp(m, "split"))
        return str_split(I, self, a);
    if (!strcmp(m, "replace"))
        return str_replace(I, self, a);
    if (!strcmp(m, "strip") || !strcmp(m, "lstrip") || !strcmp(m, "rstrip"))
        return str_strip(I, m, self, a);
    if (!strcmp(m, "startswith") || !strcmp(m, "endswith")) {
        const Obj *x = str_arg(a, 0, NULL);
        if (!x || a->npos != 1)
            return NULL;   /* a tuple of prefixes, start/end: not done */
        int sw = m[0] == 's';
        return obj_bool(I, x->len <= self->len &&
                                !memcmp(self->s + (sw ? 0 : self->len - x->len), x->s, x->len));
    }
    if (!strcmp(m, "lower") || !strcmp(m, "upper")) {
        char *t = interp_strndup(I, self->s, self->len);
        for (size_t i = 0; i < self->len; i++)
            if (m[0] == 'l' ? (t[i] >= 'A' && t[i] <= 'Z') : (t[i] >= 'a' && t[i] <= 'z'))
                t[i] = (char)(t[i] ^ 0x20);   /* ASCII only, as names are */
        return obj_str(I, t);
    }
    return str_more(I, m, self, a);
}

/* ===================================================================== */
/* Methods of lists and dicts                                            */
/* ===================================================================== */

/* list.remove(x): 1 removed, 0 when tngc cannot tell which item is x. */
static int list_remove(Interp *I, Obj *self, Obj *x)
{
    for (size_t i = 0; i < self->n; i++) {
        int e = obj_eq(I, self->items[i], x);
        if (e < 0)
            return 0;
        if (e == 1) {
            memmove(&self->items[i], &self->items[i + 1], (self->n - 1 - i) * sizeof(Obj *));
            self->n--;
            return 1;
        }
    }
    return 0;   /* ValueError in Python */
}

static Obj *call_list_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (strcmp(m, "append") == 0 && x) {
        if (self->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a list of more than 100,000 items");
            return obj_none(I);
        }
        obj_push(I, self, x);
        return obj_none(I);
    }
    if (strcmp(m, "extend") == 0 && x) {
        Obj *it = builtins_iter(I, x, a->node);
        if (!it) {
            obj_forget(I, self, x, a->node, "the argument of list.extend");
            return obj_none(I);
        }
        if (self->n + it->n > INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a list of more than 100,000 items");
            return obj_none(I);
        }
        for (size_t i = 0; i < it->n; i++)
            obj_push(I, self, it->items[i]);
        return obj_none(I);
    }
    if (strcmp(m, "pop") == 0) {
        size_t at = self->n - 1;
        if (self->n == 0 || (x && !obj_seq_index(self, x, &at))) {
            obj_forget(I, self, x, a->node, "the index of list.pop");
            return obj_unknown(I, NULL);
        }
        Obj *v = self->items[at];
        memmove(&self->items[at], &self->items[at + 1], (self->n - 1 - at) * sizeof(Obj *));
        self->n--;
        return v;
    }
    if (strcmp(m, "insert") == 0 && x && args_get(a, 1, NULL)) {
        int64_t at;
        if (!obj_int_value(x, &at)) {
            obj_forget(I, self, x, a->node, "the index of list.insert");
            return obj_none(I);
        }
        if (self->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a list of more than 100,000 items");
            return obj_none(I);
        }
        obj_push(I, self, args_get(a, 1, NULL));
        int64_t last = (int64_t)self->n - 1;   /* the old length */
        if (at < 0)
            at = at < -last ? 0 : at + last;
        if (at > last)
            at = last;
        Obj *v = self->items[last];
        memmove(&self->items[at + 1], &self->items[at], (size_t)(last - at) * sizeof(Obj *));
        self->items[at] = v;
        return obj_none(I);
    }
    if (strcmp(m, "remove") == 0 && x) {
        if (!list_remove(I, self, x))
            obj_forget(I, self, x, a->node, "the argument of list.remove");
        return obj_none(I);
    }
    if (strcmp(m, "clear") == 0 && !x) {
        self->n = 0;
        return obj_none(I);
    }
    if (strcmp(m, "reverse") == 0 && !x) {
        for (size_t i = 0; i < self->n / 2; i++) {
            Obj *t = self->items[i];
            self->items[i] = self->items[self->n - 1 - i];
            self->items[self->n - 1 - i] = t;
        }
        return obj_none(I);
    }
    return NULL;
}

/* dict.update(mapping, **kw) with a dict or keywords; 0 otherwise. */
static int dict_update(Interp *I, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if ((x && x->kind != O_DICT) || a->npos > 1 || a->has_star)
        return 0;
    if (x && self->n + x->n > 2 * INTERP_MAX_ITEMS) {
        interp_limit(I, a->node, "a dict of more than 100,000 items");
        return 1;
    }
    for (size_t i = 0; x && i + 1 < x->n; i += 2)
        if (obj_dict_find(I, self, x->items[i]) == -2)
            return 0;
    for (size_t i = 0; x && i + 1 < x->n; i += 2)
        obj_dict_set(I, self, x->items[i], x->items[i + 1]);
    for (size_t i = 0; i < a->nkw; i++)
        obj_dict_set(I, self, obj_str(I, a->kwnames[i]), a->kw[i]);
    return 1;
}

static Obj *call_dict_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (strcmp(m, "get") == 0 && x) {
        long i = obj_dict_find(I, self, x);
        if (i >= 0)
            return interp_trace_in(I, self->items[i], a->node);
        Obj *d = args_get(a, 1, "default");
        return i == -1 ? (d ? d : obj_none(I)) : obj_unknown(I, NULL);
    }
    if (strcmp(m, "keys") == 0 || strcmp(m, "values") == 0 || strcmp(m, "items") == 0) {
        Obj *out = obj_seq(I, O_LIST);
        for (size_t i = 0; i + 1 < self->n; i += 2) {
            if (m[0] == 'k')
                obj_push(I, out, self->items[i]);
            else if (m[0] == 'v')
                obj_push(I, out, self->items[i + 1]);
            else {
                Obj *pair[2] = {self->items[i], self->items[i + 1]};
                obj_push(I, out, obj_tuple(I, pair, 2));
            }
        }
        return out;
    }
    if (strcmp(m, "update") == 0) {
        if (!dict_update(I, self, a))
            obj_forget(I, self, x, a->node, "the argument of dict.update");
        return obj_none(I);
    }
    if ((strcmp(m, "setdefault") == 0 || strcmp(m, "pop") == 0) && x) {
        long i = obj_dict_find(I, self, x);
        Obj *d = args_get(a, 1, NULL);
        if (i == -2) {   /* tngc cannot tell whether the key is there */
            obj_forget(I, self, x, a->node, interp_printf(I, "the key of dict.%s", m));
            return obj_unknown(I, NULL);
        }
        if (m[0] == 'p') {
            if (i < 0)
                return d ? d : obj_unknown(I, NULL);   /* KeyError without a default */
            Obj *v = self->items[i];
            memmove(&self->items[i - 1], &self->items[i + 1], (self->n - 1 - (size_t)i) * sizeof(Obj *));
            self->n -= 2;
            return v;
        }
        if (i >= 0)
            return self->items[i];
        obj_dict_set(I, self, x, d ? d : obj_none(I));
        return d ? d : obj_none(I);
    }
    if (strcmp(m, "clear") == 0 && !x) {
        self->n = 0;
        return obj_none(I);
    }
    return NULL;
}

/* The methods of list and dict that change the container: one tngc does
 * not model (or cannot apply) leaves it unknown (obj_forget). */
int builtins_container_mutator(const char *m)
{
    static const char *const names[] = {
        "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
        "setdefault", "popitem", "__setitem__", "__delitem__", "__iadd__", "add", "discard", "move_to_end"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(m, names[i]) == 0)
            return 1;
    return 0;
}

/* The methods of set: add, update, discard, remove, clear, copy, union,
 * intersection, difference, issubset, issuperset (of known values). */
static Obj *call_set_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *x = args_get(a, 0, NULL);
    if (strcmp(m, "add") == 0 && x && a->npos == 1) {
        if (self->n >= INTERP_MAX_ITEMS) {
            interp_limit(I, a->node, "a set of more than 100,000 items");
            return obj_none(I);
        }
        obj_set_add(I, self, x);
        return obj_none(I);
    }
    if ((strcmp(m, "discard") == 0 || strcmp(m, "remove") == 0) && x && a->npos == 1) {
        for (size_t i = 0; i < self->n; i++) {
            int e = obj_eq(I, self->items[i], x);
            if (e < 0)
                return NULL;
            if (e == 1) {
                memmove(&self->items[i], &self->items[i + 1], (self->n - 1 - i) * sizeof(Obj *));
                self->n--;
                return obj_none(I);
            }
        }
        if (m[0] == 'r')
            return interp_break(I, a->node, RULE_TNG205, "set.remove() of a value not in the set raises KeyError");
        return obj_none(I);
    }
    if (strcmp(m, "clear") == 0 && a->npos == 0) {
        self->n = 0;
        return obj_none(I);
    }
    if (strcmp(m, "copy") == 0 && a->npos == 0) {
        Obj *c = obj_seq_of(I, O_LIST, self->items, self->n);
        c->kind = O_SET;
        return c;
    }
    int update = strcmp(m, "update") == 0, un = strcmp(m, "union") == 0;
    int inter = strcmp(m, "intersection") == 0, diff = strcmp(m, "difference") == 0;
    int sub = strcmp(m, "issubset") == 0, super = strcmp(m, "issuperset") == 0;
    if (!(update || un || inter || diff || sub || super) || a->nkw || (a->npos != 1 && !update && !un))
        return NULL;
    /* the other iterables' items */
    Obj *other = obj_seq(I, O_SET);
    for (size_t k = 0; k < a->npos; k++) {
        Obj *l = obj_iter(I, a->pos[k], a->node, ITER_EXPAND);
        if (!l)
            return NULL;
        for (size_t i = 0; i < l->n; i++)
            obj_set_add(I, other, l->items[i]);
    }
    if (update || un) {
        Obj *out = self;
        if (un) {
            out = obj_seq_of(I, O_LIST, self->items, self->n);
            out->kind = O_SET;
        }
        for (size_t i = 0; i < other->n; i++)
            obj_set_add(I, out, other->items[i]);
        return update ? obj_none(I) : out;
    }
    Obj *in = sub ? other : self, *of = sub ? self : other;   /* every item of 'of' in 'in'? */
    Obj *out = obj_seq(I, O_SET);
    int all = 1;
    for (size_t i = 0; i < (inter || diff ? self->n : of->n); i++) {
        Obj *v = inter || diff ? self->items[i] : of->items[i];
        Obj *where = inter || diff ? other : in;
        int found = 0, unknown = 0;
        for (size_t j = 0; j < where->n && !found; j++) {
            int e = obj_eq(I, v, where->items[j]);
            found = e == 1;
            unknown |= e < 0;
        }
        if (!found && unknown)
            return NULL;
        if (inter ? found : diff ? !found : 0)
            obj_push(I, out, v);
        all &= found;
    }
    return inter || diff ? out : obj_bool(I, all);
}

Obj *builtins_container_method(Interp *I, const char *m, Obj *self, CallArgs *a)
{
    Obj *r = self->kind == O_LIST ? call_list_method(I, m, self, a)
           : self->kind == O_SET ? call_set_method(I, m, self, a) : call_dict_method(I, m, self, a);
    if (!r && builtins_container_mutator(m)) {
        obj_forget(I, self, NULL, a->node, interp_printf(I, "%s.%s as called here is not among what tngc "
                   "evaluates", self->kind == O_LIST ? "list" : self->kind == O_SET ? "set" : "dict", m));
        return I->tracing ? obj_unknown_reported(I) : obj_unknown(I, NULL);
    }
    return r;
}
