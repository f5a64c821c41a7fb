/*
 * support.c - allocation, arena, string builder and path checks (outputs: out.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void tngc_bug(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tngc: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        TNGC_BUG("out of memory (%zu bytes)", n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        TNGC_BUG("out of memory (%zu x %zu bytes)", n, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        TNGC_BUG("out of memory (%zu bytes)", n);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

/* ---- arena ---- */

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

void *arena_alloc(Arena *self, size_t n)
{
    const size_t align = _Alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    ArenaBlock *b = self->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 64 * 1024 ? n : 64 * 1024;
        b = xmalloc(sizeof *b + cap);
        b->cap = cap;
        b->used = 0;
        b->next = self->head;
        self->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(Arena *self, const char *s, size_t n)
{
    char *d = arena_alloc(self, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *arena_vprintf(Arena *self, const char *fmt, va_list ap)
{
    StrBuf sb = {0};
    sb_vprintf(&sb, fmt, ap);
    char *d = arena_strndup(self, sb.s ? sb.s : "", sb.len);
    sb_free(&sb);
    return d;
}

char *arena_printf(Arena *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *d = arena_vprintf(self, fmt, ap);
    va_end(ap);
    return d;
}

void arena_free(Arena *self)
{
    while (self->head) {
        ArenaBlock *next = self->head->next;
        free(self->head);
        self->head = next;
    }
}

/* ---- string builder ---- */

static void sb__reserve(StrBuf *self, size_t extra)
{
    if (self->len + extra + 1 <= self->cap)
        return;
    size_t cap = self->cap ? self->cap : 64;
    while (cap < self->len + extra + 1)
        cap *= 2;
    self->s = xrealloc(self->s, cap);
    self->cap = cap;
}

void sb_putn(StrBuf *self, const char *s, size_t n)
{
    sb__reserve(self, n);
    memcpy(self->s + self->len, s, n);
    self->len += n;
    self->s[self->len] = 0;
}

void sb_puts(StrBuf *self, const char *s) { sb_putn(self, s, strlen(s)); }
void sb_putc(StrBuf *self, char c) { sb_putn(self, &c, 1); }

void sb_vprintf(StrBuf *self, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        TNGC_BUG("bad format %s", fmt);
    sb__reserve(self, (size_t)n);
    vsnprintf(self->s + self->len, (size_t)n + 1, fmt, ap);
    self->len += (size_t)n;
}

void sb_printf(StrBuf *self, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(self, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 if invalid. */
size_t utf8_valid_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    else if ((c & 0xE0) == 0xC0)
        len = 2, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        len = 3, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        len = 4, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void sb_json_str(StrBuf *self, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    sb_putc(self, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            sb_putc(self, '\\');
            sb_putc(self, (char)c);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            switch (c) {
            case '\n': sb_puts(self, "\\n"); break;
            case '\t': sb_puts(self, "\\t"); break;
            case '\r': sb_puts(self, "\\r"); break;
            default: sb_printf(self, "\\u%04x", c); break;
            }
            i++;
        } else {
            size_t len = utf8_valid_len(p + i, n - i);
            if (len == 0) {
                sb_puts(self, "\\ufffd");
                i++;
            } else {
                sb_putn(self, s + i, len);
                i += len;
            }
        }
    }
    sb_putc(self, '"');
}

void sb_put_printable(StrBuf *self, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = p[i] < 0x80 ? 1 : utf8_valid_len(p + i, n - i);
        if (p[i] < 0x20 || p[i] == 0x7f || len == 0) {
            sb_printf(self, "\\x%02x", p[i]);
            i++;
            continue;
        }
        uint32_t cp = len == 2 ? (uint32_t)(p[i] & 0x1f) << 6 | (p[i + 1] & 0x3f)
                    : len == 3 ? (uint32_t)(p[i] & 0x0f) << 12 | (uint32_t)(p[i + 1] & 0x3f) << 6 | (p[i + 2] & 0x3f)
                               : 0;
        if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069))
            sb_printf(self, "\\u%04x", (unsigned)cp);
        else
            sb_putn(self, s + i, len);
        i += len;
    }
}

void sb_free(StrBuf *self)
{
    free(self->s);
    self->s = NULL;
    self->len = self->cap = 0;
}

/* ---- paths ---- */

int path_escapes(const char *s, size_t n)
{
    if (memchr(s, 0, n))
        return 1;
    for (size_t p = 0; p + 2 <= n; p++)
        if ((p == 0 || s[p - 1] == '/') && s[p] == '.' && s[p + 1] == '.' && (p + 2 == n || s[p + 2] == '/'))
            return 1;
    return 0;
}

/* ---- string map ---- */

static uint64_t strmap__hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void strmap__grow(StrMap *self)
{
    StrMap bigger = {0};
    bigger.cap = self->cap ? self->cap * 2 : 16;
    bigger.keys = xcalloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = xcalloc(bigger.cap, sizeof *bigger.vals);
    for (size_t i = 0; i < self->cap; i++)
        if (self->keys[i])
            strmap_put(&bigger, self->keys[i], self->vals[i]);
    free(self->keys);
    free(self->vals);
    *self = bigger;
}

void strmap_put(StrMap *self, const char *key, void *val)
{
    if (2 * (self->n + 1) > self->cap)
        strmap__grow(self);
    size_t mask = self->cap - 1;
    for (size_t i = strmap__hash(key) & mask;; i = (i + 1) & mask) {
        if (!self->keys[i]) {
            self->keys[i] = key;
            self->vals[i] = val;
            self->n++;
            return;
        }
        if (strcmp(self->keys[i], key) == 0) {
            self->vals[i] = val;
            return;
        }
    }
}

void *strmap_get(const StrMap *self, const char *key)
{
    if (!self->cap)
        return NULL;
    size_t mask = self->cap - 1;
    for (size_t i = strmap__hash(key) & mask; self->keys[i]; i = (i + 1) & mask)
        if (strcmp(self->keys[i], key) == 0)
            return self->vals[i];
    return NULL;
}

void strmap_free(StrMap *self)
{
    free(self->keys);
    free(self->vals);
    memset(self, 0, sizeof *self);
}

/* Edit distance of a and b, counting a swap of neighbours as one edit;
 * 99 for names too long to be typos of each other. */
size_t str_distance(const char *a, const char *b)
{
    enum { MAX = 128 };
    size_t n = strlen(a), m = strlen(b);
    if (n > MAX || m > MAX)
        return 99;
    size_t rows[3][MAX + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev, prev = cur, cur = t;
    }
    return prev[m];
}
