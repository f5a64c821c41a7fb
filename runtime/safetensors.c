/*
 * safetensors.c - reading safetensors files: an 8-byte little-endian header
 * length N, N bytes of JSON describing each tensor, then the data buffer.
 *
 * A regular file is mapped read-only (mmap, MADV_SEQUENTIAL and
 * MADV_WILLNEED: the kernel reads ahead while the header is checked;
 * from 2 MiB, where transparent huge pages are on, at a 2 MiB-aligned
 * address and advised MADV_HUGEPAGE, so that the kernel may map the page
 * cache's 2 MiB folios whole: st__map) and read whole only where it
 * cannot be mapped; bytes a caller holds are read
 * in place (tngrt_safetensors_open_memory). tngrt_safetensors_find hands
 * out non-owning views into those bytes. The JSON is parsed by a small strict
 * parser of the fixed grammar below (depth is at most 3 by construction):
 *   header   : '{' entry { ',' entry } '}'
 *   entry    : "__metadata__" ':' '{' [ string ':' string { ',' ... } ] '}'
 *            | string ':' '{' "dtype" ':' string ',' "shape" ':' '[' ints ']'
 *                             ',' "data_offsets" ':' '[' int ',' int ']' '}'
 * (tensor keys in any order). Duplicate keys, floats, negative numbers,
 * unknown dtypes, offsets outside the buffer, sizes that do not match the
 * shape, and overlapping tensors are all refused. Duplicates and overlaps
 * are found by sorting (a merge sort: n log n comparisons whatever the
 * input), and the names sorted once are the index tngrt_safetensors_find
 * searches, so the work stays within O(log n) per byte of the header. As the format requires,
 * the tensors cover the data buffer exactly: bytes after the last tensor's
 * data, or between two tensors, are refused too (a file that hides
 * something else after its weights, or a truncated index).
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE   /* madvise and its MADV_* advice */
#endif
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where a TngrtSafetensors' bytes come from. */
enum { ST_MALLOC, ST_MAPPED, ST_BORROWED };

/* The longest JSON header accepted, in bytes. */
#define ST_MAX_HEADER (100u * 1024 * 1024)

/* A key to sort: a name, or a tensor's first byte, and the index of its
 * tensor in file order. */
typedef struct StKey {
    const char *name;
    uint64_t begin;
    int index;
} StKey;

/* One tensor of the index. */
typedef struct StEntry {
    char *name;                        /* decoded UTF-8 name */
    TngrtDType dtype;                  /* element type */
    int ndim;                          /* dimensions */
    int64_t shape[TNGRT_MAX_DIMS];     /* extents */
    uint64_t begin, end;               /* byte range in the data buffer */
    const unsigned char *data;         /* entries added by tngrt__st_add_view: the bytes */
    void *own;                         /* a private copy data points into, freed at close */
} StEntry;

struct TngrtSafetensors {
    char *path;              /* for messages */
    unsigned char *bytes;    /* the whole file */
    size_t len;              /* its size */
    int how;                 /* ST_MALLOC, ST_MAPPED or ST_BORROWED: who frees bytes */
    size_t data_start;       /* 8 + N */
    StEntry *entries;        /* tensors in file order */
    int count;               /* number of entries */
    int cap;                 /* allocated entries */
    StKey *byname;           /* the entries sorted by name (strcmp), count of them */
    TngrtSafetensors **parts;   /* the shards an index opened (their bytes hold the views) */
    int nparts;
    int have_meta;           /* the header's "__metadata__" was read (while parsing) */
};

/* A cursor over the JSON text. */
typedef struct StParse {
    const char *s;
    size_t len, pos;
    const char *path;
    TngrtError *err;
} StParse;

static void st__ws(StParse *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'
                               || p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

/* Consumes c (after blanks) or fails. */
static int st__expect(StParse *p, char c)
{
    st__ws(p);
    if (p->pos >= p->len || p->s[p->pos] != c) {
        tngrt__fail(p->err, p->path, "bad JSON header: expected '%c' at offset %zu",
                 c, p->pos);
        return -1;
    }
    p->pos++;
    return 0;
}

/* Returns 1 and consumes c when it is next (after blanks). */
static int st__accept(StParse *p, char c)
{
    st__ws(p);
    if (p->pos < p->len && p->s[p->pos] == c) {
        p->pos++;
        return 1;
    }
    return 0;
}

static int st__hex4(StParse *p, unsigned *out)
{
    unsigned v = 0;
    if (p->len - p->pos < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* Appends code point cp as UTF-8 to out (which has room). */
static size_t st__utf8(char *out, unsigned cp)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12); out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18); out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f)); out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* string: '"' { char | '\' escape } '"' -> malloc'd UTF-8 in *out */
static int st__string(StParse *p, char **out)
{
    size_t start, n = 0;
    char *buf;
    st__ws(p);
    if (p->pos >= p->len || p->s[p->pos] != '"') {
        tngrt__fail(p->err, p->path, "bad JSON header: expected a string at offset %zu",
                 p->pos);
        return -1;
    }
    start = ++p->pos;
    /* decoded text is never longer than the escaped text */
    while (p->pos < p->len && p->s[p->pos] != '"')
        p->pos += p->s[p->pos] == '\\' ? 2 : 1;
    if (p->pos >= p->len) {
        tngrt__fail(p->err, p->path, "bad JSON header: unterminated string");
        return -1;
    }
    buf = malloc(p->pos - start + 1);
    if (!buf) {
        tngrt__fail(p->err, p->path, "out of memory");
        return -1;
    }
    p->pos = start;
    while (p->s[p->pos] != '"') {
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c < 0x20)
            goto bad;
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        c = (unsigned char)p->s[p->pos++];
        switch (c) {
        case '"': case '\\': case '/': buf[n++] = (char)c; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (st__hex4(p, &cp) != 0)
                goto bad;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                goto bad;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                    goto bad;
                p->pos += 2;
                if (st__hex4(p, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
                    goto bad;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0)
                goto bad;   /* names are C strings */
            n += st__utf8(buf + n, cp);
            break;
        }
        default:
            goto bad;
        }
    }
    p->pos++;
    buf[n] = '\0';
    *out = buf;
    return 0;
bad:
    free(buf);
    tngrt__fail(p->err, p->path, "bad JSON header: invalid string near offset %zu", p->pos);
    return -1;
}

/* int: '0' | [1-9][0-9]* (no sign, fraction or exponent) */
static int st__uint(StParse *p, uint64_t *out)
{
    uint64_t v = 0;
    size_t start;
    st__ws(p);
    start = p->pos;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        unsigned d = (unsigned)(p->s[p->pos++] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            tngrt__fail(p->err, p->path, "integer too large at offset %zu", start);
            return -1;
        }
        v = v * 10 + d;
    }
    if (p->pos == start || (p->s[start] == '0' && p->pos - start > 1)) {
        tngrt__fail(p->err, p->path, "bad JSON header: expected a non-negative integer "
                 "at offset %zu", start);
        return -1;
    }
    if (p->pos < p->len && (p->s[p->pos] == '.' || p->s[p->pos] == 'e'
                            || p->s[p->pos] == 'E')) {
        tngrt__fail(p->err, p->path, "floats are not allowed in shapes and offsets "
                 "(offset %zu)", start);
        return -1;
    }
    *out = v;
    return 0;
}

/* Maps a safetensors dtype name to a dtype, or fails naming it. */
static int st__dtype(StParse *p, const char *name, const char *tensor, TngrtDType *out)
{
    static const struct { const char *name; TngrtDType dtype; } table[] = {
        {"F32", TNGRT_F32}, {"F16", TNGRT_F16}, {"BF16", TNGRT_BF16},
        {"I8", TNGRT_I8}, {"I32", TNGRT_I32}, {"I64", TNGRT_I64}, {"BOOL", TNGRT_BOOL},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) {
            *out = table[i].dtype;
            return 0;
        }
    tngrt__fail(p->err, p->path, "tensor '%s': unsupported dtype '%s'", tensor, name);
    return -1;
}

/* ---- sorting ---- */

static int st__name_before(const StKey *a, const StKey *b)
{
    return strcmp(a->name, b->name) <= 0;
}

static int st__begin_before(const StKey *a, const StKey *b)
{
    return a->begin <= b->begin;
}

/* Sorts keys[0..n) stably with before (a merge sort, bottom up, through
 * the scratch array tmp of n keys). */
static void st__sort(StKey *keys, StKey *tmp, size_t n,
                     int (*before)(const StKey *a, const StKey *b))
{
    StKey *from = keys, *to = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = mid + width < n ? mid + width : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = before(&from[i], &from[j]) ? from[i++] : from[j++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        StKey *t = from;
        from = to;
        to = t;
    }
    if (from != keys)
        memcpy(keys, from, n * sizeof *keys);
}

/* Sorts keys[0..n) by name and returns the first name that appears twice
 * (in strcmp order), or NULL; -1 in *oom when memory runs out. */
static const char *st__sort_names(StKey *keys, size_t n, int *oom)
{
    StKey *tmp = n > 1 ? malloc(n * sizeof *tmp) : NULL;
    *oom = 0;
    if (n > 1 && !tmp) {
        *oom = 1;
        return NULL;
    }
    st__sort(keys, tmp, n, st__name_before);
    free(tmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(keys[i - 1].name, keys[i].name) == 0)
            return keys[i].name;
    return NULL;
}

/* Appends name to the growable array *keys (*n used of *cap); returns 0,
 * or -1 when memory runs out. */
static int st__push(StKey **keys, size_t *n, size_t *cap, const char *name, int index)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        StKey *grown = ncap <= SIZE_MAX / sizeof *grown ? realloc(*keys, ncap * sizeof *grown)
                                                        : NULL;
        if (!grown)
            return -1;
        *keys = grown;
        *cap = ncap;
    }
    (*keys)[(*n)++] = (StKey){name, 0, index};
    return 0;
}

/* metadata: '{' [ string ':' string { ',' string ':' string } ] '}'
 * (the keys are kept until the end, sorted, and checked for duplicates) */
static int st__metadata(StParse *p)
{
    StKey *keys = NULL;
    size_t nkeys = 0, cap = 0;
    int rc = -1, oom;
    const char *dup;
    if (st__expect(p, '{') != 0)
        return -1;
    if (st__accept(p, '}'))
        return 0;
    for (;;) {
        char *key = NULL, *val = NULL;
        if (st__string(p, &key) != 0)
            goto done;
        if (st__push(&keys, &nkeys, &cap, key, 0) != 0) {
            free(key);
            tngrt__fail(p->err, p->path, "out of memory");
            goto done;
        }
        if (st__expect(p, ':') != 0 || st__string(p, &val) != 0)
            goto done;
        free(val);
        if (st__accept(p, '}'))
            break;
        if (st__expect(p, ',') != 0)
            goto done;
    }
    dup = st__sort_names(keys, nkeys, &oom);
    if (oom)
        tngrt__fail(p->err, p->path, "out of memory");
    else if (dup)
        tngrt__fail(p->err, p->path, "duplicate metadata key '%s'", dup);
    else
        rc = 0;
done:
    for (size_t i = 0; i < nkeys; i++)
        free((char *)(uintptr_t)keys[i].name);   /* st__string's malloc'd copies */
    free(keys);
    return rc;
}

/* tensor: '{' "dtype" ':' string ',' "shape" ':' '[' ints ']' ','
 *             "data_offsets" ':' '[' int ',' int ']' '}' (any order) */
static int st__tensor(StParse *p, StEntry *e)
{
    int have_dtype = 0, have_shape = 0, have_offsets = 0;
    if (st__expect(p, '{') != 0)
        return -1;
    for (;;) {
        char *key = NULL;
        if (st__string(p, &key) != 0)
            return -1;
        if (st__expect(p, ':') != 0) {
            free(key);
            return -1;
        }
        if (strcmp(key, "dtype") == 0 && !have_dtype) {
            char *name = NULL;
            int rc = st__string(p, &name);
            if (rc == 0)
                rc = st__dtype(p, name, e->name, &e->dtype);
            free(name);
            have_dtype = 1;
            if (rc != 0) { free(key); return -1; }
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            have_shape = 1;
            if (st__expect(p, '[') != 0) { free(key); return -1; }
            if (!st__accept(p, ']')) {
                for (;;) {
                    uint64_t v = 0;
                    if (e->ndim == TNGRT_MAX_DIMS) {
                        tngrt__fail(p->err, p->path, "tensor '%s': more than %d dimensions",
                                 e->name, TNGRT_MAX_DIMS);
                        free(key);
                        return -1;
                    }
                    if (st__uint(p, &v) != 0 || v > INT64_MAX) {
                        if (v > INT64_MAX)
                            tngrt__fail(p->err, p->path, "tensor '%s': dimension too large",
                                     e->name);
                        free(key);
                        return -1;
                    }
                    e->shape[e->ndim++] = (int64_t)v;
                    if (st__accept(p, ']'))
                        break;
                    if (st__expect(p, ',') != 0) { free(key); return -1; }
                }
            }
        } else if (strcmp(key, "data_offsets") == 0 && !have_offsets) {
            have_offsets = 1;
            if (st__expect(p, '[') != 0 || st__uint(p, &e->begin) != 0
                || st__expect(p, ',') != 0 || st__uint(p, &e->end) != 0
                || st__expect(p, ']') != 0) {
                free(key);
                return -1;
            }
        } else {
            tngrt__fail(p->err, p->path, "tensor '%s': unexpected or duplicate key '%s'",
                     e->name, key);
            free(key);
            return -1;
        }
        free(key);
        if (st__accept(p, '}'))
            break;
        if (st__expect(p, ',') != 0)
            return -1;
    }
    if (!have_dtype || !have_shape || !have_offsets) {
        tngrt__fail(p->err, p->path, "tensor '%s': missing '%s'", e->name,
                 !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
        return -1;
    }
    return 0;
}

/* Adds a fresh entry named name (taking it) to self (duplicates are
 * found once the header is parsed, by st__index). */
static StEntry *st__add(TngrtSafetensors *self, char *name, TngrtError *err)
{
    if (self->count == self->cap) {
        int cap = self->cap ? (self->cap > INT_MAX / 2 ? INT_MAX : self->cap * 2) : 8;
        if (self->count == INT_MAX) {
            tngrt__fail(err, self->path, "too many tensors");
            free(name);
            return NULL;
        }
        StEntry *grown = realloc(self->entries, (size_t)cap * sizeof *grown);
        if (!grown) {
            tngrt__fail(err, self->path, "out of memory");
            free(name);
            return NULL;
        }
        self->entries = grown;
        self->cap = cap;
    }
    memset(&self->entries[self->count], 0, sizeof self->entries[0]);
    self->entries[self->count].name = name;
    return &self->entries[self->count++];
}

/* Parses '{' [ key ':' member { ',' key ':' member } ] '}' and the end of
 * the text: member(p, key, ctx) parses each value, taking the key (it
 * frees it). */
static int st__object(StParse *p, int (*member)(StParse *p, char *key, void *ctx), void *ctx)
{
    if (st__expect(p, '{') != 0)
        return -1;
    if (!st__accept(p, '}')) {
        for (;;) {
            char *key = NULL;
            if (st__string(p, &key) != 0)
                return -1;
            if (st__expect(p, ':') != 0) {
                free(key);
                return -1;
            }
            if (member(p, key, ctx) != 0)
                return -1;
            if (st__accept(p, '}'))
                break;
            if (st__expect(p, ',') != 0)
                return -1;
        }
    }
    st__ws(p);
    if (p->pos != p->len) {
        tngrt__fail(p->err, p->path, "bad JSON header: junk after the object at offset %zu",
                 p->pos);
        return -1;
    }
    return 0;
}

/* A member of the header: "__metadata__" (once) or a tensor. */
static int st__header_member(StParse *p, char *key, void *ctx)
{
    TngrtSafetensors *self = ctx;
    StEntry *e;
    if (strcmp(key, "__metadata__") == 0) {
        free(key);
        if (self->have_meta) {
            tngrt__fail(p->err, p->path, "duplicate key '__metadata__'");
            return -1;
        }
        self->have_meta = 1;
        return st__metadata(p);
    }
    e = st__add(self, key, p->err);
    return e && st__tensor(p, e) == 0 ? 0 : -1;
}

/* Parses the header JSON of self into its entries. */
static int st__header(TngrtSafetensors *self, StParse *p)
{
    self->have_meta = 0;
    return st__object(p, st__header_member, self);
}

/* Builds self->byname, the entries sorted by name, refusing a name that
 * appears twice. */
static int st__index(TngrtSafetensors *self, TngrtError *err)
{
    const char *dup;
    int oom;
    self->byname = malloc(((size_t)self->count + 1) * sizeof *self->byname);
    if (!self->byname) {
        tngrt__fail(err, self->path, "out of memory");
        return -1;
    }
    for (int i = 0; i < self->count; i++)
        self->byname[i] = (StKey){self->entries[i].name, 0, i};
    dup = st__sort_names(self->byname, (size_t)self->count, &oom);
    if (oom || dup) {
        if (oom)
            tngrt__fail(err, self->path, "out of memory");
        else
            tngrt__fail(err, self->path, "duplicate tensor name '%s'", dup);
        return -1;
    }
    return 0;
}

/* Refuses two non-empty tensors whose byte ranges overlap: sorted by
 * their first byte, an overlap shows between neighbours. */
static int st__check_overlap(const TngrtSafetensors *self, TngrtError *err)
{
    StKey *keys = malloc(((size_t)self->count + 1) * sizeof *keys), *tmp;
    size_t n = 0;
    int rc = 0;
    tmp = keys ? malloc(((size_t)self->count + 1) * sizeof *tmp) : NULL;
    if (!tmp) {
        free(keys);
        tngrt__fail(err, self->path, "out of memory");
        return -1;
    }
    for (int i = 0; i < self->count; i++)
        if (self->entries[i].begin < self->entries[i].end)
            keys[n++] = (StKey){NULL, self->entries[i].begin, i};
    st__sort(keys, tmp, n, st__begin_before);
    for (size_t k = 1; k < n && rc == 0; k++) {
        int i = keys[k - 1].index, j = keys[k].index;
        if (self->entries[j].begin < self->entries[i].end) {
            const StEntry *a = &self->entries[i < j ? i : j], *b = &self->entries[i < j ? j : i];
            tngrt__fail(err, self->path, "tensors '%s' and '%s' overlap in the data "
                        "buffer (overlapping tensors are refused)", a->name, b->name);
            rc = -1;
        }
    }
    free(keys);
    free(tmp);
    return rc;
}

/* Checks that the (in-range, disjoint) tensors cover the data buffer
 * exactly: no byte after the last one's data, none between two. */
static int st__check_covered(const TngrtSafetensors *self, TngrtError *err)
{
    uint64_t buflen = self->len - self->data_start, last = 0, used = 0;
    for (int i = 0; i < self->count; i++) {
        const StEntry *e = &self->entries[i];
        used += e->end - e->begin;   /* disjoint ranges inside buflen: no overflow */
        if (e->end > last)
            last = e->end;
    }
    if (last < buflen) {
        tngrt__fail(err, self->path, "%llu trailing bytes after the last tensor's data (the "
                    "data buffer has %llu bytes, the tensors end at %llu)",
                    (unsigned long long)(buflen - last), (unsigned long long)buflen,
                    (unsigned long long)last);
        return -1;
    }
    if (used < buflen) {
        tngrt__fail(err, self->path, "%llu bytes of the data buffer belong to no tensor "
                    "(holes between tensors are refused)",
                    (unsigned long long)(buflen - used));
        return -1;
    }
    return 0;
}

/* Checks every entry's range and size, that no two ranges overlap, and
 * that together they cover the data buffer. */
static int st__check_ranges(TngrtSafetensors *self, TngrtError *err)
{
    uint64_t buflen = self->len - self->data_start;
    for (int i = 0; i < self->count; i++) {
        StEntry *e = &self->entries[i];
        size_t nbytes;
        char what[300];
        if (e->begin > e->end || e->end > buflen) {
            tngrt__fail(err, self->path, "tensor '%s': data_offsets [%llu, %llu] outside "
                     "the %llu-byte data buffer", e->name, (unsigned long long)e->begin,
                     (unsigned long long)e->end, (unsigned long long)buflen);
            return -1;
        }
        snprintf(what, sizeof what, "%s: tensor '%s'", self->path, e->name);
        if (tngrt_shape_nbytes(e->dtype, e->ndim, e->shape, &nbytes, what, err) != 0)
            return -1;
        if (e->end - e->begin != nbytes) {
            tngrt__fail(err, self->path, "tensor '%s': data_offsets span %llu bytes, "
                     "the shape and dtype need %zu", e->name,
                     (unsigned long long)(e->end - e->begin), nbytes);
            return -1;
        }
    }
    if (st__check_overlap(self, err) != 0)
        return -1;
    return st__check_covered(self, err);
}

/* A fresh TngrtSafetensors named path (for messages), or NULL. */
static TngrtSafetensors *st__new(const char *path, TngrtError *err)
{
    TngrtSafetensors *self = calloc(1, sizeof *self);
    if (!self || !(self->path = malloc(strlen(path) + 1))) {
        free(self);
        tngrt__fail(err, path, "out of memory");
        return NULL;
    }
    strcpy(self->path, path);
    return self;
}

/* Maps the len bytes (len >= 1) of the file open at fd read-only; NULL
 * when mmap refuses. From TNGRT_BLOCK_HUGE bytes with huge pages on
 * (tngrt__huge_pages) at a 2 MiB boundary, advised MADV_HUGEPAGE
 * (tngrt__map_huge); the alignment and advice change nothing but speed:
 * where they fail the plain mapping is used. */
static void *st__map(int fd, size_t len)
{
    size_t maplen;
    void *p;
    if (len >= (size_t)TNGRT_BLOCK_HUGE && tngrt__huge_pages() &&
        (p = tngrt__map_huge(fd, len, &maplen)))
        return p;
    p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Maps the regular file open at fd read-only into self, or, where it
 * cannot be mapped (empty, or mmap refused), reads it whole; returns 0, or
 * -1 with a message. */
static int st__load(TngrtSafetensors *self, int fd, const char *path, TngrtError *err)
{
    struct stat sb;
    void *p;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        tngrt__fail(err, path, "not a regular file");
        return -1;
    }
    if (sb.st_size > 0 && (uint64_t)sb.st_size <= SIZE_MAX / 2) {
        p = st__map(fd, (size_t)sb.st_size);
        if (p) {
            /* advice only: failures change nothing but speed */
            (void)madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL);
            (void)madvise(p, (size_t)sb.st_size, MADV_WILLNEED);
            self->bytes = p;
            self->len = (size_t)sb.st_size;
            self->how = ST_MAPPED;
            return 0;
        }
    }
    self->how = ST_MALLOC;
    return tngrt__read_fd(fd, path, &self->bytes, &self->len, err);
}

/* Checks the length prefix and the header of self's bytes and builds its
 * index. */
static int st__parse(TngrtSafetensors *self, TngrtError *err)
{
    const char *path = self->path;
    uint64_t n = 0;
    StParse p;
    if (self->len < 8) {
        tngrt__fail(err, path, "file of %zu bytes is too short for a safetensors header",
                 self->len);
        return -1;
    }
    for (int i = 7; i >= 0; i--)
        n = n << 8 | self->bytes[i];
    if (n > ST_MAX_HEADER) {
        tngrt__fail(err, path, "header length %llu exceeds the limit of %u bytes",
                 (unsigned long long)n, ST_MAX_HEADER);
        return -1;
    }
    if (n > self->len - 8) {
        tngrt__fail(err, path, "header length %llu runs past the end of the file "
                 "(%zu bytes)", (unsigned long long)n, self->len);
        return -1;
    }
    self->data_start = 8 + (size_t)n;
    p.s = (const char *)self->bytes + 8;
    p.len = (size_t)n;
    p.pos = 0;
    p.path = self->path;
    p.err = err;
    if (st__header(self, &p) != 0 || st__index(self, err) != 0
        || st__check_ranges(self, err) != 0)
        return -1;
    return 0;
}

int tngrt_safetensors_open(const char *path, TngrtSafetensors **out, TngrtError *err)
{
    TngrtSafetensors *self;
    int rc, fd;

    *out = NULL;
    if (!(self = st__new(path, err)))
        return -1;
    if ((fd = tngrt__open_read(path, err)) < 0) {
        tngrt_safetensors_close(self);
        return -1;
    }
    rc = st__load(self, fd, path, err);
    close(fd);   /* a mapping keeps the file */
    if (rc != 0 || st__parse(self, err) != 0) {
        tngrt_safetensors_close(self);
        return -1;
    }
    *out = self;
    return 0;
}

int tngrt_safetensors_open_memory(const void *data, size_t len, const char *name,
                                  TngrtSafetensors **out, TngrtError *err)
{
    TngrtSafetensors *self;

    *out = NULL;
    if (!(self = st__new(name ? name : "<memory>", err)))
        return -1;
    self->how = ST_BORROWED;
    self->bytes = (unsigned char *)(uintptr_t)data;   /* never written through */
    self->len = data ? len : 0;
    if (st__parse(self, err) != 0) {
        tngrt_safetensors_close(self);
        return -1;
    }
    *out = self;
    return 0;
}

int tngrt__safetensors_index(const TngrtSafetensors *self, const char *name)
{
    size_t lo = 0, hi = self->byname ? (size_t)self->count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(self->byname[mid].name, name);
        if (c == 0)
            return self->byname[mid].index;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int tngrt_safetensors_find(const TngrtSafetensors *self, const char *name,
                           TngrtTensor *view_out, TngrtError *err)
{
    int i = tngrt__safetensors_index(self, name);
    const StEntry *e;
    if (i < 0) {
        tngrt__fail(err, self->path, "no tensor named '%s'", name);
        return -1;
    }
    e = &self->entries[i];
    memset(view_out, 0, sizeof *view_out);
    view_out->dtype = e->dtype;
    view_out->ndim = e->ndim;
    for (int d = 0; d < e->ndim; d++)
        view_out->shape[d] = e->shape[d];
    tngrt_tensor_set_strides(view_out);
    view_out->data =
        (void *)(uintptr_t)(e->data ? e->data : self->bytes + self->data_start + e->begin);
    view_out->nbytes = (size_t)(e->end - e->begin);
    view_out->owns = 0;
    return 0;
}

int tngrt_safetensors_count(const TngrtSafetensors *self)
{
    return self->count;
}

const char *tngrt_safetensors_name(const TngrtSafetensors *self, int i)
{
    return i >= 0 && i < self->count ? self->entries[i].name : NULL;
}

int tngrt_safetensors_mapped(const TngrtSafetensors *self)
{
    for (int k = 0; k < self->nparts; k++)
        if (!tngrt_safetensors_mapped(self->parts[k]))
            return 0;
    return self->how == ST_MAPPED || (self->nparts > 0 && !self->bytes);
}

void tngrt_safetensors_drop(const TngrtSafetensors *self, const void *data, size_t n)
{
    uintptr_t page, lo, hi, base = (uintptr_t)self->bytes;
    long ps;
    for (int k = 0; k < self->nparts; k++)
        tngrt_safetensors_drop(self->parts[k], data, n);
    if (self->how != ST_MAPPED || n == 0 || (uintptr_t)data < base
        || (uintptr_t)data - base > self->len || n > self->len - ((uintptr_t)data - base)
        || (ps = sysconf(_SC_PAGESIZE)) <= 0)
        return;
    page = (uintptr_t)ps;
    /* only whole pages inside the range: a neighbour's bytes stay */
    lo = ((uintptr_t)data + page - 1) / page * page;
    hi = ((uintptr_t)data + n) / page * page;
    if (hi > lo)
        (void)madvise((void *)lo, (size_t)(hi - lo), MADV_DONTNEED);
}

void tngrt_safetensors_populate(const TngrtSafetensors *self, const void *data, size_t n)
{
    uintptr_t base = (uintptr_t)self->bytes, at = (uintptr_t)data;
    long ps;
    for (int k = 0; k < self->nparts; k++)
        tngrt_safetensors_populate(self->parts[k], data, n);
    if (self->how != ST_MAPPED || n == 0 || at < base || at - base > self->len
        || n > self->len - (at - base) || (ps = sysconf(_SC_PAGESIZE)) <= 0)
        return;
#ifdef MADV_POPULATE_READ
    {
        uintptr_t lo = at / (uintptr_t)ps * (uintptr_t)ps;
        if (madvise((void *)lo, (size_t)(at + n - lo), MADV_POPULATE_READ) == 0)
            return;
    }
#endif
    /* kernels before 5.14: one read per page faults it (and its
     * neighbours, by fault-around) in */
    {
        volatile const unsigned char *p = data;
        unsigned char sink = 0;
        for (size_t off = 0; off < n; off += (size_t)ps)
            sink ^= p[off];
        sink ^= p[n - 1];
        (void)sink;
    }
}

void tngrt_safetensors_close(TngrtSafetensors *self)
{
    if (!self)
        return;
    for (int i = 0; i < self->count; i++) {
        free(self->entries[i].name);
        free(self->entries[i].own);
    }
    for (int k = 0; k < self->nparts; k++)
        tngrt_safetensors_close(self->parts[k]);
    free(self->parts);
    free(self->entries);
    free(self->byname);
    if (self->how == ST_MAPPED)
        munmap(self->bytes, self->len);
    else if (self->how == ST_MALLOC)
        free(self->bytes);
    free(self->path);
    free(self);
}

/* ---- what the other readers build on (internal.h) ---- */

TngrtSafetensors *tngrt__st_new(const char *path, TngrtError *err)
{
    return st__new(path, err);
}

int tngrt__st_map(TngrtSafetensors *self, const unsigned char **bytes, size_t *len,
                  TngrtError *err)
{
    int fd, rc;
    if ((fd = tngrt__open_read(self->path, err)) < 0)
        return -1;
    rc = st__load(self, fd, self->path, err);
    close(fd);   /* a mapping keeps the file */
    *bytes = self->bytes;
    *len = self->len;
    return rc;
}

void tngrt__st_borrow(TngrtSafetensors *self, const void *data, size_t len)
{
    self->how = ST_BORROWED;
    self->bytes = (unsigned char *)(uintptr_t)data;   /* never written through */
    self->len = data ? len : 0;
}

int tngrt__st_add_view(TngrtSafetensors *self, const char *name, size_t name_len,
                       TngrtDType dtype, int ndim, const int64_t *shape, const void *data,
                       void *own, TngrtError *err)
{
    char *copy = malloc(name_len + 1);
    StEntry *e;
    size_t nbytes;
    char what[300];
    if (!copy) {
        free(own);
        tngrt__fail(err, self->path, "out of memory");
        return -1;
    }
    memcpy(copy, name, name_len);
    copy[name_len] = '\0';
    snprintf(what, sizeof what, "%s: tensor '%s'", self->path, copy);
    if (ndim < 0 || ndim > TNGRT_MAX_DIMS) {
        tngrt__fail(err, self->path, "tensor '%s': %d dims (at most %d)", copy, ndim,
                    TNGRT_MAX_DIMS);
        free(copy);
        free(own);
        return -1;
    }
    if (tngrt_shape_nbytes(dtype, ndim, shape, &nbytes, what, err) != 0) {
        free(copy);
        free(own);
        return -1;
    }
    if (!(e = st__add(self, copy, err))) {   /* it freed copy */
        free(own);
        return -1;
    }
    e->dtype = dtype;
    e->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        e->shape[d] = shape[d];
    e->begin = 0;
    e->end = nbytes;
    e->data = data;
    e->own = own;
    return 0;
}

int tngrt__st_finish(TngrtSafetensors *self, TngrtError *err)
{
    return st__index(self, err);
}

/* ---- sharded files: model.safetensors.index.json ---- */

/* The most shards an index may name, and the longest shard name. */
#define ST_MAX_SHARDS 65536
#define ST_MAX_SHARD_NAME 255
/* How deeply the index's other values ("metadata") may nest. */
#define ST_MAX_DEPTH 16

/* Skips one JSON value of any kind (an index's "metadata"), nested at
 * most ST_MAX_DEPTH deep. */
static int st__skip(StParse *p, int depth)
{
    char *s;
    st__ws(p);
    if (depth > ST_MAX_DEPTH) {
        tngrt__fail(p->err, p->path, "bad JSON: nested deeper than %d at offset %zu",
                    ST_MAX_DEPTH, p->pos);
        return -1;
    }
    if (p->pos < p->len && p->s[p->pos] == '"') {
        if (st__string(p, &s) != 0)
            return -1;
        free(s);
        return 0;
    }
    if (st__accept(p, '{') || st__accept(p, '[')) {
        char close = p->s[p->pos - 1] == '{' ? '}' : ']';
        if (st__accept(p, close))
            return 0;
        for (;;) {
            if (close == '}') {
                if (st__string(p, &s) != 0)
                    return -1;
                free(s);
                if (st__expect(p, ':') != 0)
                    return -1;
            }
            if (st__skip(p, depth + 1) != 0)
                return -1;
            if (st__accept(p, close))
                return 0;
            if (st__expect(p, ',') != 0)
                return -1;
        }
    }
    {
        size_t start = p->pos;
        while (p->pos < p->len && strchr("0123456789+-.eEtruefalsn", p->s[p->pos]))
            p->pos++;
        if (p->pos == start) {
            tngrt__fail(p->err, p->path, "bad JSON: expected a value at offset %zu", start);
            return -1;
        }
    }
    return 0;
}

/* Whether name is a plain file name: no '/', '\', control character or
 * leading '.', at most ST_MAX_SHARD_NAME bytes. */
static int st__plain_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > ST_MAX_SHARD_NAME || name[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (name[i] == '/' || name[i] == '\\' || (unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return 0;
    return 1;
}

/* The weight map of an index: tensor names and their shards' names. */
typedef struct StMap {
    char **tensor, **shard;
    size_t n, cap;
} StMap;

static void st__map_free(StMap *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->tensor[i]);
        free(m->shard[i]);
    }
    free(m->tensor);
    free(m->shard);
}

/* Parses "weight_map": { string: string, ... } into m. */
static int st__weight_map(StParse *p, StMap *m)
{
    if (st__expect(p, '{') != 0)
        return -1;
    if (st__accept(p, '}'))
        return 0;
    for (;;) {
        char *t = NULL, *s = NULL;
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 64;
            char **a = realloc(m->tensor, cap * sizeof *a), **b;
            if (a)
                m->tensor = a;
            b = a ? realloc(m->shard, cap * sizeof *b) : NULL;
            if (!b) {
                tngrt__fail(p->err, p->path, "out of memory");
                return -1;
            }
            m->shard = b;
            m->cap = cap;
        }
        if (st__string(p, &t) != 0)
            return -1;
        if (st__expect(p, ':') != 0 || st__string(p, &s) != 0) {
            free(t);
            return -1;
        }
        m->tensor[m->n] = t;
        m->shard[m->n++] = s;
        if (!st__plain_name(s)) {
            tngrt__fail(p->err, p->path, "tensor '%s': shard '%s' is not a plain file name "
                        "in the index's folder (no '/', no leading '.')", t, s);
            return -1;
        }
        if (st__accept(p, '}'))
            return 0;
        if (st__expect(p, ',') != 0)
            return -1;
    }
}

/* The index being parsed: its weight map, and whether it was read. */
typedef struct StIndexDoc {
    StMap *m;
    int have_map;
} StIndexDoc;

/* A member of the index: "weight_map" (once), or any other, skipped. */
static int st__index_member(StParse *p, char *key, void *ctx)
{
    StIndexDoc *doc = ctx;
    int is_map = strcmp(key, "weight_map") == 0;
    free(key);
    if (!is_map)
        return st__skip(p, 1);
    if (doc->have_map) {
        tngrt__fail(p->err, p->path, "duplicate key 'weight_map'");
        return -1;
    }
    doc->have_map = 1;
    return st__weight_map(p, doc->m);
}

/* Parses the index document: { "weight_map": {...}, other keys skipped }. */
static int st__index_doc(StParse *p, StMap *m)
{
    StIndexDoc doc = {m, 0};
    if (st__object(p, st__index_member, &doc) != 0)
        return -1;
    if (!doc.have_map) {
        tngrt__fail(p->err, p->path, "no \"weight_map\" (not a safetensors index)");
        return -1;
    }
    return 0;
}

/* Opens every distinct shard of m once, as parts of self (dir: the index's
 * folder with its '/', or ""); shard_of[i] is the part of tensor i. */
static int st__open_shards(TngrtSafetensors *self, const StMap *m, const char *dir,
                           int *shard_of, TngrtError *err)
{
    StKey *keys = malloc((m->n + 1) * sizeof *keys), *tmp = malloc((m->n + 1) * sizeof *tmp);
    int rc = -1;
    size_t dlen = strlen(dir);
    if (!keys || !tmp || !(self->parts = calloc(m->n + 1, sizeof *self->parts))) {
        tngrt__fail(err, self->path, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < m->n; i++)
        keys[i] = (StKey){m->shard[i], 0, (int)i};
    st__sort(keys, tmp, m->n, st__name_before);
    for (size_t k = 0; k < m->n; k++) {
        char *path;
        if (k > 0 && strcmp(keys[k].name, keys[k - 1].name) == 0) {
            shard_of[keys[k].index] = self->nparts - 1;
            continue;
        }
        if (self->nparts == ST_MAX_SHARDS) {
            tngrt__fail(err, self->path, "names more than %d shards", ST_MAX_SHARDS);
            goto out;
        }
        if (!(path = malloc(dlen + strlen(keys[k].name) + 1))) {
            tngrt__fail(err, self->path, "out of memory");
            goto out;
        }
        memcpy(path, dir, dlen);
        strcpy(path + dlen, keys[k].name);
        rc = tngrt_safetensors_open(path, &self->parts[self->nparts], err);
        free(path);
        if (rc != 0)
            goto out;
        rc = -1;
        shard_of[keys[k].index] = self->nparts++;
    }
    rc = 0;
out:
    free(keys);
    free(tmp);
    return rc;
}

/* Adds the tensors of m, found in their shards, to self, and refuses a
 * shard tensor the index does not map to that shard. */
static int st__gather(TngrtSafetensors *self, const StMap *m, const int *shard_of,
                      TngrtError *err)
{
    for (size_t i = 0; i < m->n; i++) {
        TngrtSafetensors *part = self->parts[shard_of[i]];
        TngrtTensor v;
        if (tngrt_safetensors_find(part, m->tensor[i], &v, NULL) != 0) {
            tngrt__fail(err, self->path, "tensor '%s': its shard %s holds no such tensor",
                        m->tensor[i], part->path);
            return -1;
        }
        if (tngrt__st_add_view(self, m->tensor[i], strlen(m->tensor[i]), v.dtype, v.ndim,
                               v.shape, v.data, NULL, err) != 0)
            return -1;
    }
    if (st__index(self, err) != 0)
        return -1;
    for (int k = 0; k < self->nparts; k++) {
        const TngrtSafetensors *part = self->parts[k];
        for (int i = 0; i < part->count; i++) {
            int j = tngrt__safetensors_index(self, part->entries[i].name);
            if (j < 0 || self->entries[j].data
                             != part->bytes + part->data_start + part->entries[i].begin) {
                tngrt__fail(err, self->path, "shard %s holds tensor '%s', which the index "
                            "does not map to it", part->path, part->entries[i].name);
                return -1;
            }
        }
    }
    return 0;
}

int tngrt_safetensors_open_index(const char *path, TngrtSafetensors **out, TngrtError *err)
{
    TngrtSafetensors *self;
    StMap m = {0};
    StParse p;
    int *shard_of = NULL, rc = -1;
    char *dir = NULL;
    const char *slash = strrchr(path, '/');
    *out = NULL;
    if (!(self = st__new(path, err)))
        return -1;
    if (tngrt__read_file(path, &self->bytes, &self->len, err) != 0)
        goto out;
    self->how = ST_MALLOC;
    if (self->len > ST_MAX_HEADER) {
        tngrt__fail(err, path, "index of %zu bytes exceeds the limit of %u bytes", self->len,
                    ST_MAX_HEADER);
        goto out;
    }
    p = (StParse){(const char *)self->bytes, self->len, 0, self->path, err};
    if (st__index_doc(&p, &m) != 0)
        goto out;
    if (m.n > INT_MAX / 2) {
        tngrt__fail(err, path, "too many tensors");
        goto out;
    }
    dir = malloc(slash ? (size_t)(slash - path) + 2 : 1);
    shard_of = malloc((m.n + 1) * sizeof *shard_of);
    if (!dir || !shard_of) {
        tngrt__fail(err, path, "out of memory");
        goto out;
    }
    dir[0] = '\0';
    if (slash) {
        memcpy(dir, path, (size_t)(slash - path) + 1);
        dir[slash - path + 1] = '\0';
    }
    if (st__open_shards(self, &m, dir, shard_of, err) != 0
        || st__gather(self, &m, shard_of, err) != 0)
        goto out;
    /* the index text is no longer needed: only the shards' bytes are viewed */
    free(self->bytes);
    self->bytes = NULL;
    self->len = 0;
    rc = 0;
out:
    st__map_free(&m);
    free(shard_of);
    free(dir);
    if (rc != 0)
        tngrt_safetensors_close(self);
    else
        *out = self;
    return rc;
}
