/*
 * torch.c - reading torch.save files: what torch.save(model.state_dict(),
 * "model.pt") writes since PyTorch 1.6, a zip archive of stored (not
 * compressed) entries
 *   <prefix>/data.pkl     the state dict, pickled (protocol 2)
 *   <prefix>/data/<key>   each storage's bytes, little-endian
 *   <prefix>/version, <prefix>/byteorder ("little"; newer versions)
 * read into a TngrtSafetensors (safetensors.c's index, internal.h), so that
 * the bundle checks and loads its tensors as a safetensors file's.
 *
 * The zip: the end record found in the file's last 64 KiB + 22 bytes,
 * with the zip64 end record torch writes whatever the size and the zip64
 * extra fields of entries past 4 GiB (each value checked as the 32-bit
 * ones), at most TZ_MAX_ENTRIES entries, each central directory record's
 * name checked (no control character, no '\', not absolute, no empty,
 * '.' or '..' component, unique), stored (method 0,
 * not encrypted), its local header at its offset agreeing with it (name,
 * method, sizes and CRC unless a data descriptor follows), its bytes
 * within the file before the central directory, no two entries
 * overlapping (one byte range read twice is how zip bombs grow). The CRC
 * of data.pkl and byteorder is checked; storages' bytes are not (as a
 * safetensors file has none), only their sizes.
 *
 * The pickle: interpreted by a machine of exactly the opcodes a state dict
 * uses (pk__step), never executed: GLOBAL names only collections
 * OrderedDict, torch._utils _rebuild_tensor_v2 and _rebuild_parameter, and
 * the typed storages torch.FloatStorage, ...; REDUCE calls only the first
 * three; a persistent id is ('storage', <storage class>, key, location,
 * numel) naming the entry data/<key>. Everything else is refused, naming
 * what was found and where. The stack, the marks, the memo and the objects
 * are bounded (PK_MAX_*; a memo key by the opcodes read), every object
 * and item is made by an opcode of the file (a memo get shares, never
 * copies), so the work is linear in the pickle's size. The result must be a dict of str keys to tensors; each
 * tensor's size, stride and offset are checked against its storage's
 * numel without overflow. A C-contiguous tensor is a view of the mapped
 * file (storages start 64-byte aligned in torch's archives); another (a
 * transposed view saved as such) is copied contiguous, the copies at most
 * the file's size in all.
 */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most entries of an archive, and the longest entry name. */
#define TZ_MAX_ENTRIES (1 << 20)
#define TZ_MAX_NAME 1024
/* Bounds of the pickle machine: stack values, open marks, memo keys,
 * objects made, and the longest string. */
#define PK_MAX_STACK (1 << 20)
#define PK_MAX_MARKS 4096
#define PK_MAX_MEMO (1 << 22)
#define PK_MAX_OBJS (1 << 22)
#define PK_MAX_STR (1 << 20)

/* One entry of the archive. */
typedef struct TzEntry {
    const char *name;     /* in the central directory (not NUL-terminated) */
    size_t nlen;
    uint64_t off;         /* its local header */
    uint64_t data, size;  /* its bytes */
    uint32_t crc;
} TzEntry;

/* The storage classes a persistent id may name. */
typedef struct TzStorageClass {
    const char *name;     /* "FloatStorage" */
    const char *dtype;    /* torch's name, for messages */
    int size;             /* bytes per element */
    int ok;               /* the runtime has the dtype */
    TngrtDType dt;
} TzStorageClass;

static const TzStorageClass tz_classes[] = {
    {"FloatStorage", "float32", 4, 1, TNGRT_F32},
    {"HalfStorage", "float16", 2, 1, TNGRT_F16},
    {"BFloat16Storage", "bfloat16", 2, 1, TNGRT_BF16},
    {"LongStorage", "int64", 8, 1, TNGRT_I64},
    {"IntStorage", "int32", 4, 1, TNGRT_I32},
    {"CharStorage", "int8", 1, 1, TNGRT_I8},
    {"BoolStorage", "bool", 1, 1, TNGRT_BOOL},
    {"DoubleStorage", "float64", 8, 0, TNGRT_F32},
    {"ShortStorage", "int16", 2, 0, TNGRT_F32},
    {"ByteStorage", "uint8", 1, 0, TNGRT_F32},
};
#define TZ_NCLASSES ((int)(sizeof tz_classes / sizeof tz_classes[0]))

/* The callables GLOBAL may name: these, then TZ_NCLASSES storages. */
enum { G_ODICT, G_REBUILD, G_PARAM, G_STORAGE };

/* A storage named by a persistent id. */
typedef struct TzStorage {
    int cls;              /* index into tz_classes, -1 before its first use */
    int64_t numel;
    const unsigned char *data;
} TzStorage;

/* Kinds of a pickle value. */
enum { PV_UNSET, PV_NONE, PV_BOOL, PV_INT, PV_FLOAT, PV_STR, PV_GLOBAL, PV_STORAGE, PV_OBJ };
/* Kinds of a pickle object. */
enum { PO_TUPLE, PO_LIST, PO_DICT, PO_TENSOR };

typedef struct PkObj PkObj;

typedef struct PkVal {
    int kind;
    union {
        int64_t i;        /* PV_BOOL, PV_INT, PV_STORAGE (its key), PV_GLOBAL (G_*) */
        double f;
        struct {
            const char *p;
            size_t n;
        } s;              /* PV_STR: bytes of the pickle */
        PkObj *o;
    } u;
} PkVal;

struct PkObj {
    int kind;
    PkVal *items;         /* tuple, list; a dict's keys and values in turn */
    size_t n, cap;
    int64_t storage, offset;   /* a tensor */
    int ndim;
    int64_t size[TNGRT_MAX_DIMS], stride[TNGRT_MAX_DIMS];
};

/* The archive and the machine reading it. */
typedef struct Tz {
    const unsigned char *b;
    size_t len;
    const char *path;
    TngrtError *err;
    TzEntry *e;           /* sorted by name */
    size_t n;
    const char *prefix;   /* "<prefix>" of "<prefix>/data.pkl" */
    size_t plen;
    TzStorage *st;        /* per key 0 .. n - 1 */
    uint64_t copied;      /* bytes of the tensors copied contiguous */
    /* the pickle */
    const unsigned char *s;
    size_t slen, pos;
    size_t op;            /* the offset of the opcode being run */
    PkVal *stack;
    size_t sp, scap;
    size_t *marks;
    size_t nmarks, mcap;
    PkVal *memo;
    size_t memocap;
    size_t nmemo;         /* MEMOIZE's next key */
    PkObj **objs;
    size_t nobjs, ocap;
} Tz;

static uint32_t tz__rd16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t tz__rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t tz__rd64(const unsigned char *p)
{
    return (uint64_t)tz__rd32(p) | (uint64_t)tz__rd32(p + 4) << 32;
}

/* The CRC-32 of zip (reflected polynomial 0xEDB88320), bit by bit: only
 * the small entries are checked. */
static uint32_t tz__crc32(const unsigned char *p, uint64_t n)
{
    uint32_t c = 0xffffffffu;
    for (uint64_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c >> 1 ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* ---- the zip ---- */

/* Whether an entry name is safe: 1..TZ_MAX_NAME bytes, no control
 * character or '\' (torch names the folder after the file: UTF-8 is
 * kept), not absolute, every '/'-separated component non-empty and neither
 * '.' nor '..'. */
static int tz__safe_name(const char *s, size_t n)
{
    size_t start = 0;
    if (n == 0 || n > TZ_MAX_NAME)
        return 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '/') {
            size_t c = i - start;
            if (c == 0 || (c == 1 && s[start] == '.')
                || (c == 2 && s[start] == '.' && s[start + 1] == '.'))
                return 0;
            start = i + 1;
            continue;
        }
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')
            return 0;
    }
    return 1;
}

static int tz__name_cmp(const void *a, const void *b)
{
    const TzEntry *x = a, *y = b;
    size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

static int tz__off_cmp(const void *a, const void *b)
{
    const TzEntry *const *x = a, *const *y = b;
    return ((*x)->off > (*y)->off) - ((*x)->off < (*y)->off);
}

/* Finds the end of central directory record; fills the central
 * directory's offset, size and entry count. */
static int tz__end(Tz *z, uint64_t *cd_off, uint64_t *cd_size, uint64_t *count)
{
    size_t at, stop;
    const unsigned char *p = NULL;
    if (z->len < 22) {
        tngrt__fail(z->err, z->path, "file of %zu bytes is too short for a zip archive", z->len);
        return -1;
    }
    stop = z->len - 22 > 65535 ? z->len - 22 - 65535 : 0;
    for (at = z->len - 22;; at--) {
        if (tz__rd32(z->b + at) == 0x06054b50u && tz__rd16(z->b + at + 20) == z->len - 22 - at) {
            p = z->b + at;
            break;
        }
        if (at == stop)
            break;
    }
    if (!p) {
        tngrt__fail(z->err, z->path, "no zip end of central directory record (not a torch.save "
                    "archive, or truncated)");
        return -1;
    }
    if (tz__rd16(p + 4) != 0 || tz__rd16(p + 6) != 0 || tz__rd16(p + 8) != tz__rd16(p + 10)) {
        tngrt__fail(z->err, z->path, "a multi-disk zip archive");
        return -1;
    }
    *count = tz__rd16(p + 10);
    *cd_size = tz__rd32(p + 12);
    *cd_off = tz__rd32(p + 16);
    if (at >= 20 && tz__rd32(p - 20) == 0x07064b50u) {
        /* zip64 (torch writes its records whatever the size): the locator
         * points at the zip64 end record, before it */
        uint64_t r = tz__rd64(p - 12);
        const unsigned char *q;
        if (tz__rd32(p - 16) != 0 || tz__rd32(p - 4) > 1 || r > at - 20 || at - 20 - r < 56
            || tz__rd32(z->b + r) != 0x06064b50u) {
            tngrt__fail(z->err, z->path, "zip64 end of central directory locator is malformed");
            return -1;
        }
        q = z->b + r;
        if (tz__rd32(q + 16) != 0 || tz__rd32(q + 20) != 0 || tz__rd64(q + 24) != tz__rd64(q + 32)
            || (*count != 0xffffu && *count != tz__rd64(q + 32))
            || (*cd_size != 0xffffffffu && *cd_size != tz__rd64(q + 40))
            || (*cd_off != 0xffffffffu && *cd_off != tz__rd64(q + 48))) {
            tngrt__fail(z->err, z->path, "zip64 end of central directory record disagrees with "
                        "the end record");
            return -1;
        }
        *count = tz__rd64(q + 32);
        *cd_size = tz__rd64(q + 40);
        *cd_off = tz__rd64(q + 48);
        at = (size_t)r;   /* the central directory ends before the zip64 record */
    } else if (*count == 0xffffu || *cd_size == 0xffffffffu || *cd_off == 0xffffffffu) {
        tngrt__fail(z->err, z->path, "zip end record needs a zip64 record, which is missing");
        return -1;
    }
    if (*cd_off > at || *cd_size > at - *cd_off) {
        tngrt__fail(z->err, z->path, "zip central directory [%llu, +%llu) runs past its end record "
                    "at %zu", (unsigned long long)*cd_off, (unsigned long long)*cd_size, at);
        return -1;
    }
    return 0;
}

/* Checks entry x's local header against its central record and finds its
 * bytes (all before cd_off). */
static int tz__local(Tz *z, TzEntry *x, uint32_t flags, uint32_t method, uint64_t cd_off)
{
    const unsigned char *p;
    uint64_t nlen, xlen;
    int nn = (int)x->nlen;
    if (x->off > cd_off || cd_off - x->off < 30 || tz__rd32(z->b + x->off) != 0x04034b50u) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s': no local header at offset %llu", nn,
                    x->name, (unsigned long long)x->off);
        return -1;
    }
    p = z->b + x->off;
    nlen = tz__rd16(p + 26);
    xlen = tz__rd16(p + 28);
    if (30 + nlen + xlen > cd_off - x->off || nlen != x->nlen
        || memcmp(p + 30, x->name, x->nlen) != 0 || tz__rd16(p + 8) != method
        || (tz__rd16(p + 6) & 1u) != (flags & 1u)
        || (!(tz__rd16(p + 6) & 8u)
            && ((tz__rd32(p + 18) != x->size && tz__rd32(p + 18) != 0xffffffffu)
                || (tz__rd32(p + 22) != x->size && tz__rd32(p + 22) != 0xffffffffu)
                || tz__rd32(p + 14) != x->crc))) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s': its local header disagrees with the "
                    "central directory", nn, x->name);
        return -1;
    }
    x->data = x->off + 30 + nlen + xlen;
    if (x->size > cd_off - x->data) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s': %llu bytes at offset %llu run past the "
                    "entries' end (%llu)", nn, x->name, (unsigned long long)x->size,
                    (unsigned long long)x->data, (unsigned long long)cd_off);
        return -1;
    }
    return 0;
}

/* Reads the zip64 extra field of central record x (its extra bytes
 * ex[0..n)): the 64-bit size and offset where the record's are
 * saturated; *usize and *csize become 0 when both are 64-bit and agree. */
static int tz__zip64_extra(Tz *z, TzEntry *x, const unsigned char *ex, size_t n, uint32_t *usize,
                           uint32_t *csize)
{
    for (size_t at = 0; at + 4 <= n;) {
        size_t id = tz__rd16(ex + at), len = tz__rd16(ex + at + 2), k = 0;
        const unsigned char *v = ex + at + 4;
        uint64_t u = x->size, c = *csize;
        if (len > n - at - 4)
            break;
        if (id == 1) {
            if (*usize == 0xffffffffu) {
                if (k + 8 > len)
                    break;
                u = tz__rd64(v + k);
                k += 8;
            }
            if (*csize == 0xffffffffu) {
                if (k + 8 > len)
                    break;
                c = tz__rd64(v + k);
                k += 8;
            }
            if (x->off == 0xffffffffu) {
                if (k + 8 > len)
                    break;
                x->off = tz__rd64(v + k);
            }
            if (u != c) {
                tngrt__fail(z->err, z->path, "zip entry '%.*s': stored with %llu bytes for %llu",
                            (int)x->nlen, x->name, (unsigned long long)c, (unsigned long long)u);
                return -1;
            }
            x->size = u;
            *usize = *csize = 0;
            return 0;
        }
        at += 4 + len;
    }
    tngrt__fail(z->err, z->path, "zip entry '%.*s': its zip64 extra field is missing or malformed",
                (int)x->nlen, x->name);
    return -1;
}

/* Reads central directory record i at *at, checks it and its local header. */
static int tz__record(Tz *z, TzEntry *x, uint64_t cd_off, uint64_t cd_size, uint64_t *at)
{
    const unsigned char *p = z->b + cd_off + *at;
    uint32_t flags, method, csize, usize;
    uint64_t rest = cd_size - *at, nlen, xlen, clen;
    if (rest < 46 || tz__rd32(p) != 0x02014b50u) {
        tngrt__fail(z->err, z->path, "zip central directory record at offset %llu is malformed",
                    (unsigned long long)(cd_off + *at));
        return -1;
    }
    nlen = tz__rd16(p + 28);
    xlen = tz__rd16(p + 30);
    clen = tz__rd16(p + 32);
    if (46 + nlen + xlen + clen > rest) {
        tngrt__fail(z->err, z->path, "zip central directory record at offset %llu runs past "
                    "the directory", (unsigned long long)(cd_off + *at));
        return -1;
    }
    *at += 46 + nlen + xlen + clen;
    x->name = (const char *)p + 46;
    x->nlen = (size_t)nlen;
    if (!tz__safe_name(x->name, x->nlen)) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s' has an unsafe name (absolute, '..', an "
                    "empty component or odd characters)", (int)(nlen > 200 ? 200 : nlen), x->name);
        return -1;
    }
    flags = tz__rd16(p + 8);
    method = tz__rd16(p + 10);
    x->crc = tz__rd32(p + 16);
    csize = tz__rd32(p + 20);
    usize = tz__rd32(p + 24);
    x->off = tz__rd32(p + 42);
    x->size = usize;
    if ((usize == 0xffffffffu || csize == 0xffffffffu || x->off == 0xffffffffu)
        && tz__zip64_extra(z, x, p + 46 + nlen, (size_t)xlen, &usize, &csize) != 0)
        return -1;
    if (flags & 0x41u) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s' is encrypted", (int)nlen, x->name);
        return -1;
    }
    if (method != 0) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s' is compressed (method %u); torch.save "
                    "writes stored entries: save it again with torch.save", (int)nlen, x->name,
                    method);
        return -1;
    }
    if (csize != usize || tz__rd16(p + 34) != 0) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s': stored with %u bytes for %u", (int)nlen,
                    x->name, csize, usize);
        return -1;
    }
    return tz__local(z, x, flags, method, cd_off);
}

/* Reads the central directory into z->e (sorted by name), refusing
 * duplicate names and overlapping entries. */
static int tz__directory(Tz *z)
{
    uint64_t cd_off, cd_size, count, at = 0;
    TzEntry **byoff;
    if (tz__end(z, &cd_off, &cd_size, &count) != 0)
        return -1;
    if (count > TZ_MAX_ENTRIES || count > cd_size / 46) {
        tngrt__fail(z->err, z->path, "zip archive claims %llu entries in a %llu-byte directory",
                    (unsigned long long)count, (unsigned long long)cd_size);
        return -1;
    }
    if (!(z->e = calloc((size_t)count + 1, sizeof *z->e))) {
        tngrt__fail(z->err, z->path, "out of memory");
        return -1;
    }
    z->n = (size_t)count;
    for (size_t i = 0; i < z->n; i++)
        if (tz__record(z, &z->e[i], cd_off, cd_size, &at) != 0)
            return -1;
    if (at != cd_size) {
        tngrt__fail(z->err, z->path, "zip central directory has %llu bytes after its %zu records",
                    (unsigned long long)(cd_size - at), z->n);
        return -1;
    }
    qsort(z->e, z->n, sizeof *z->e, tz__name_cmp);
    for (size_t i = 1; i < z->n; i++)
        if (tz__name_cmp(&z->e[i - 1], &z->e[i]) == 0) {
            tngrt__fail(z->err, z->path, "zip entry '%.*s' appears twice", (int)z->e[i].nlen,
                        z->e[i].name);
            return -1;
        }
    if (!(byoff = malloc((z->n + 1) * sizeof *byoff))) {
        tngrt__fail(z->err, z->path, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < z->n; i++)
        byoff[i] = &z->e[i];
    qsort(byoff, z->n, sizeof *byoff, tz__off_cmp);
    for (size_t i = 1; i < z->n; i++)
        if (byoff[i]->off < byoff[i - 1]->data + byoff[i - 1]->size) {
            tngrt__fail(z->err, z->path, "zip entries '%.*s' and '%.*s' overlap",
                        (int)byoff[i - 1]->nlen, byoff[i - 1]->name, (int)byoff[i]->nlen,
                        byoff[i]->name);
            free(byoff);
            return -1;
        }
    free(byoff);
    return 0;
}

/* The entry "<prefix>/<rest>" (rest[0..rlen)), or NULL. */
static const TzEntry *tz__find(const Tz *z, const char *rest, size_t rlen)
{
    char name[TZ_MAX_NAME + 1];
    TzEntry key;
    if (z->plen + 1 + rlen > TZ_MAX_NAME)
        return NULL;
    memcpy(name, z->prefix, z->plen);
    name[z->plen] = '/';
    memcpy(name + z->plen + 1, rest, rlen);
    key.name = name;
    key.nlen = z->plen + 1 + rlen;
    return bsearch(&key, z->e, z->n, sizeof *z->e, tz__name_cmp);
}

/* Finds the one "<prefix>/data.pkl", checks every entry is under
 * "<prefix>/" and byteorder says little-endian. */
static int tz__layout(Tz *z)
{
    const TzEntry *pkl = NULL, *bo;
    for (size_t i = 0; i < z->n; i++) {
        const TzEntry *x = &z->e[i];
        const char *slash = memchr(x->name, '/', x->nlen);
        if (slash && x->nlen - (size_t)(slash - x->name) == 9
            && memcmp(slash, "/data.pkl", 9) == 0) {
            if (pkl) {
                tngrt__fail(z->err, z->path, "zip archive holds two pickles, '%.*s' and '%.*s'",
                            (int)pkl->nlen, pkl->name, (int)x->nlen, x->name);
                return -1;
            }
            pkl = x;
        }
    }
    if (!pkl) {
        tngrt__fail(z->err, z->path, "zip archive has no <prefix>/data.pkl (not a torch.save "
                    "file)");
        return -1;
    }
    z->prefix = pkl->name;
    z->plen = pkl->nlen - 9;
    for (size_t i = 0; i < z->n; i++) {
        const TzEntry *x = &z->e[i];
        if (x->nlen <= z->plen + 1 || memcmp(x->name, z->prefix, z->plen) != 0
            || x->name[z->plen] != '/') {
            tngrt__fail(z->err, z->path, "zip entry '%.*s' is outside the archive's folder '%.*s'",
                        (int)x->nlen, x->name, (int)z->plen, z->prefix);
            return -1;
        }
    }
    if (tz__crc32(z->b + pkl->data, pkl->size) != pkl->crc) {
        tngrt__fail(z->err, z->path, "zip entry '%.*s': CRC mismatch", (int)pkl->nlen, pkl->name);
        return -1;
    }
    bo = tz__find(z, "byteorder", 9);
    if (bo && (tz__crc32(z->b + bo->data, bo->size) != bo->crc || bo->size != 6
               || memcmp(z->b + bo->data, "little", 6) != 0)) {
        tngrt__fail(z->err, z->path, "byteorder is not 'little' (only little-endian archives "
                    "are read)");
        return -1;
    }
    z->s = z->b + pkl->data;
    z->slen = (size_t)pkl->size;
    return 0;
}

/* ---- the pickle machine ---- */

/* Fails naming the pickle offset of the opcode being run. */
static int pk__fail(Tz *z, const char *what)
{
    tngrt__fail(z->err, z->path, "pickle at offset %zu: %s", z->op, what);
    return -1;
}

static int pk__push(Tz *z, PkVal v)
{
    if (z->sp == z->scap) {
        size_t cap = z->scap ? z->scap * 2 : 256;
        PkVal *grown;
        if (z->scap >= PK_MAX_STACK)
            return pk__fail(z, "stack deeper than the limit");
        if (!(grown = realloc(z->stack, cap * sizeof *grown)))
            return pk__fail(z, "out of memory");
        z->stack = grown;
        z->scap = cap;
    }
    z->stack[z->sp++] = v;
    return 0;
}

/* Pops a value (above the innermost mark). */
static int pk__pop(Tz *z, PkVal *out)
{
    if (z->sp == 0 || (z->nmarks > 0 && z->sp <= z->marks[z->nmarks - 1]))
        return pk__fail(z, "pops an empty stack");
    *out = z->stack[--z->sp];
    return 0;
}

/* The value on top (above the innermost mark), or NULL with a message. */
static PkVal *pk__top(Tz *z)
{
    if (z->sp == 0 || (z->nmarks > 0 && z->sp <= z->marks[z->nmarks - 1])) {
        pk__fail(z, "reads an empty stack");
        return NULL;
    }
    return &z->stack[z->sp - 1];
}

/* Pops the innermost mark: the values above it start at *from. */
static int pk__pop_mark(Tz *z, size_t *from)
{
    if (z->nmarks == 0)
        return pk__fail(z, "no MARK to pop to");
    *from = z->marks[--z->nmarks];
    return 0;
}

/* A new object of kind (kept for freeing). */
static PkObj *pk__obj(Tz *z, int kind)
{
    PkObj *o;
    if (z->nobjs == z->ocap) {
        size_t cap = z->ocap ? z->ocap * 2 : 256;
        PkObj **grown;
        if (z->ocap >= PK_MAX_OBJS) {
            pk__fail(z, "more objects than the limit");
            return NULL;
        }
        if (!(grown = realloc(z->objs, cap * sizeof *grown))) {
            pk__fail(z, "out of memory");
            return NULL;
        }
        z->objs = grown;
        z->ocap = cap;
    }
    if (!(o = calloc(1, sizeof *o))) {
        pk__fail(z, "out of memory");
        return NULL;
    }
    o->kind = kind;
    z->objs[z->nobjs++] = o;
    return o;
}

/* Appends n values to o's items. */
static int pk__add(Tz *z, PkObj *o, const PkVal *v, size_t n)
{
    if (n > (size_t)PK_MAX_STACK * 4 || o->n + n > (size_t)PK_MAX_STACK * 4)
        return pk__fail(z, "a container larger than the limit");
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4;
        PkVal *grown;
        while (cap < o->n + n)
            cap *= 2;
        if (!(grown = realloc(o->items, cap * sizeof *grown)))
            return pk__fail(z, "out of memory");
        o->items = grown;
        o->cap = cap;
    }
    memcpy(o->items + o->n, v, n * sizeof *v);
    o->n += n;
    return 0;
}

/* Pushes a new object of kind holding the values above the innermost
 * mark (popped with it). */
static int pk__collect(Tz *z, int kind)
{
    size_t from;
    PkObj *o;
    if (pk__pop_mark(z, &from) != 0 || !(o = pk__obj(z, kind)))
        return -1;
    if (kind == PO_DICT && (z->sp - from) % 2 != 0)
        return pk__fail(z, "DICT of an odd number of values");
    if (pk__add(z, o, z->stack + from, z->sp - from) != 0)
        return -1;
    z->sp = from;
    return pk__push(z, (PkVal){.kind = PV_OBJ, .u.o = o});
}

/* Adds the values above the innermost mark to the list or dict below it. */
static int pk__extend(Tz *z, int kind)
{
    size_t from;
    PkVal *into;
    if (pk__pop_mark(z, &from) != 0)
        return -1;
    if (from == 0 || (z->nmarks > 0 && from <= z->marks[z->nmarks - 1]))
        return pk__fail(z, kind == PO_DICT ? "SETITEMS with no dict" : "APPENDS with no list");
    into = &z->stack[from - 1];
    if (into->kind != PV_OBJ || into->u.o->kind != kind)
        return pk__fail(z, kind == PO_DICT ? "SETITEMS on something not a dict"
                                           : "APPENDS on something not a list");
    if (kind == PO_DICT && (z->sp - from) % 2 != 0)
        return pk__fail(z, "SETITEMS of an odd number of values");
    if (pk__add(z, into->u.o, z->stack + from, z->sp - from) != 0)
        return -1;
    z->sp = from;
    return 0;
}

/* Reads n bytes of operand, or fails. */
static const unsigned char *pk__bytes(Tz *z, size_t n)
{
    const unsigned char *p;
    if (n > z->slen - z->pos) {
        pk__fail(z, "an operand runs past the end of data.pkl");
        return NULL;
    }
    p = z->s + z->pos;
    z->pos += n;
    return p;
}

/* Pushes a string of n bytes of the pickle. */
static int pk__string(Tz *z, uint64_t n)
{
    const unsigned char *p;
    if (n > PK_MAX_STR)
        return pk__fail(z, "a string longer than the limit");
    if (!(p = pk__bytes(z, (size_t)n)))
        return -1;
    return pk__push(z, (PkVal){.kind = PV_STR, .u.s = {(const char *)p, (size_t)n}});
}

static int pk__is(const PkVal *v, const char *s)
{
    return v->kind == PV_STR && v->u.s.n == strlen(s) && memcmp(v->u.s.p, s, v->u.s.n) == 0;
}

/* Resolves GLOBAL module.name (each [0..n)) to a callable of G_*. */
static int pk__global(Tz *z, const char *mod, size_t mn, const char *name, size_t nn)
{
    char msg[200];
    int g = -1;
#define PK_IS(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), (n)) == 0)
    if (PK_IS(mod, mn, "collections") && PK_IS(name, nn, "OrderedDict"))
        g = G_ODICT;
    else if (PK_IS(mod, mn, "torch._utils") && PK_IS(name, nn, "_rebuild_tensor_v2"))
        g = G_REBUILD;
    else if (PK_IS(mod, mn, "torch._utils") && PK_IS(name, nn, "_rebuild_parameter"))
        g = G_PARAM;
    else if (PK_IS(mod, mn, "torch"))
        for (int c = 0; c < TZ_NCLASSES; c++)
            if (nn == strlen(tz_classes[c].name) && memcmp(name, tz_classes[c].name, nn) == 0)
                g = G_STORAGE + c;
#undef PK_IS
    if (g < 0) {
        snprintf(msg, sizeof msg, "GLOBAL '%.*s %.*s' is not one a state dict uses",
                 (int)(mn > 60 ? 60 : mn), mod, (int)(nn > 60 ? 60 : nn), name);
        return pk__fail(z, msg);
    }
    return pk__push(z, (PkVal){.kind = PV_GLOBAL, .u.i = g});
}

/* GLOBAL's operand: "module\nname\n". */
static int pk__global_text(Tz *z)
{
    const char *mod = (const char *)z->s + z->pos, *name, *end;
    size_t rest = z->slen - z->pos, mn, nn;
    end = memchr(mod, '\n', rest < 256 ? rest : 256);
    if (!end)
        return pk__fail(z, "GLOBAL's module is not a line");
    mn = (size_t)(end - mod);
    name = end + 1;
    rest -= mn + 1;
    end = memchr(name, '\n', rest < 256 ? rest : 256);
    if (!end)
        return pk__fail(z, "GLOBAL's name is not a line");
    nn = (size_t)(end - name);
    z->pos += mn + nn + 2;
    return pk__global(z, mod, mn, name, nn);
}

/* An int value of v, or fails naming what. */
static int pk__int(Tz *z, const PkVal *v, int64_t *out, const char *what)
{
    char msg[120];
    if (v->kind != PV_INT && v->kind != PV_BOOL) {
        snprintf(msg, sizeof msg, "%s is not an int", what);
        return pk__fail(z, msg);
    }
    *out = v->u.i;
    return 0;
}

/* BINPERSID: ('storage', <class>, key, location, numel) -> the storage. */
static int pk__persid(Tz *z)
{
    PkVal pid;
    const PkVal *t;
    const TzStorageClass *cls;
    const TzEntry *x;
    TzStorage *s;
    int64_t numel;
    uint64_t key = 0;
    char msg[200];
    if (pk__pop(z, &pid) != 0)
        return -1;
    if (pid.kind != PV_OBJ || pid.u.o->kind != PO_TUPLE || pid.u.o->n != 5
        || !pk__is(&pid.u.o->items[0], "storage"))
        return pk__fail(z, "a persistent id that is not ('storage', class, key, location, numel)");
    t = pid.u.o->items;
    if (t[1].kind != PV_GLOBAL || t[1].u.i < G_STORAGE)
        return pk__fail(z, "a persistent id whose storage class is not a torch storage");
    cls = &tz_classes[t[1].u.i - G_STORAGE];
    if (t[2].kind != PV_STR || t[2].u.s.n == 0 || t[2].u.s.n > 9 || t[3].kind != PV_STR
        || (t[2].u.s.n > 1 && t[2].u.s.p[0] == '0'))
        return pk__fail(z, "a persistent id whose key is not a decimal number");
    for (size_t i = 0; i < t[2].u.s.n; i++) {
        if (t[2].u.s.p[i] < '0' || t[2].u.s.p[i] > '9')
            return pk__fail(z, "a persistent id whose key is not a decimal number");
        key = key * 10 + (uint64_t)(t[2].u.s.p[i] - '0');
    }
    if (pk__int(z, &t[4], &numel, "a storage's numel") != 0)
        return -1;
    if (key >= z->n) {
        snprintf(msg, sizeof msg, "storage key %llu is out of range (the archive has %zu entries)",
                 (unsigned long long)key, z->n);
        return pk__fail(z, msg);
    }
    {
        char rest[16];
        int rn = snprintf(rest, sizeof rest, "data/%llu", (unsigned long long)key);
        x = tz__find(z, rest, (size_t)rn);
    }
    if (!x) {
        snprintf(msg, sizeof msg, "storage %llu has no entry data/%llu in the archive",
                 (unsigned long long)key, (unsigned long long)key);
        return pk__fail(z, msg);
    }
    if (numel < 0 || (uint64_t)numel > (uint64_t)TNGRT_MAX_BYTES / (uint64_t)cls->size
        || (uint64_t)numel * (uint64_t)cls->size != x->size) {
        snprintf(msg, sizeof msg, "storage %llu: %lld elements of %d bytes, its entry holds %llu "
                 "bytes", (unsigned long long)key, (long long)numel, cls->size,
                 (unsigned long long)x->size);
        return pk__fail(z, msg);
    }
    s = &z->st[key];
    if (s->cls >= 0 && (s->cls != t[1].u.i - G_STORAGE || s->numel != numel)) {
        snprintf(msg, sizeof msg, "storage %llu is named with two classes or sizes",
                 (unsigned long long)key);
        return pk__fail(z, msg);
    }
    s->cls = (int)(t[1].u.i - G_STORAGE);
    s->numel = numel;
    s->data = z->b + x->data;
    return pk__push(z, (PkVal){.kind = PV_STORAGE, .u.i = (int64_t)key});
}

/* Fills t's size or stride from a tuple of ints. */
static int pk__dims(Tz *z, const PkVal *v, int64_t *out, int *ndim, const char *what)
{
    char msg[120];
    if (v->kind != PV_OBJ || v->u.o->kind != PO_TUPLE || v->u.o->n > TNGRT_MAX_DIMS) {
        snprintf(msg, sizeof msg, "a tensor's %s is not a tuple of at most %d ints", what,
                 TNGRT_MAX_DIMS);
        return pk__fail(z, msg);
    }
    *ndim = (int)v->u.o->n;
    for (int k = 0; k < *ndim; k++)
        if (pk__int(z, &v->u.o->items[k], &out[k], what) != 0)
            return -1;
    return 0;
}

/* REDUCE: calls an allowed callable on a tuple of arguments. */
static int pk__reduce(Tz *z)
{
    PkVal args, fn;
    const PkObj *a;
    PkObj *o;
    int nstride;
    if (pk__pop(z, &args) != 0 || pk__pop(z, &fn) != 0)
        return -1;
    if (fn.kind != PV_GLOBAL || fn.u.i >= G_STORAGE)
        return pk__fail(z, fn.kind == PV_GLOBAL ? "REDUCE calls a storage class, which a state "
                                                   "dict never does"
                                                 : "REDUCE calls something not a GLOBAL");
    if (args.kind != PV_OBJ || args.u.o->kind != PO_TUPLE)
        return pk__fail(z, "REDUCE's arguments are not a tuple");
    a = args.u.o;
    if (fn.u.i == G_ODICT) {
        if (a->n != 0)
            return pk__fail(z, "OrderedDict called with arguments");
        if (!(o = pk__obj(z, PO_DICT)))
            return -1;
        return pk__push(z, (PkVal){.kind = PV_OBJ, .u.o = o});
    }
    if (fn.u.i == G_PARAM) {
        if (a->n != 3 || a->items[0].kind != PV_OBJ || a->items[0].u.o->kind != PO_TENSOR)
            return pk__fail(z, "_rebuild_parameter's arguments are not (tensor, requires_grad, "
                               "hooks)");
        return pk__push(z, a->items[0]);
    }
    /* _rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
     * backward_hooks[, metadata]) */
    if (a->n < 6 || a->n > 7 || a->items[0].kind != PV_STORAGE)
        return pk__fail(z, "_rebuild_tensor_v2's arguments are not (storage, offset, size, "
                           "stride, requires_grad, hooks)");
    if (!(o = pk__obj(z, PO_TENSOR)))
        return -1;
    o->kind = PO_TENSOR;
    o->storage = a->items[0].u.i;
    if (pk__int(z, &a->items[1], &o->offset, "a tensor's storage offset") != 0
        || pk__dims(z, &a->items[2], o->size, &o->ndim, "size") != 0
        || pk__dims(z, &a->items[3], o->stride, &nstride, "stride") != 0)
        return -1;
    if (nstride != o->ndim)
        return pk__fail(z, "a tensor's size and stride differ in length");
    return pk__push(z, (PkVal){.kind = PV_OBJ, .u.o = o});
}

/* MEMOIZE, BINPUT, LONG_BINPUT: memo[key] = the top value. */
static int pk__put(Tz *z, uint64_t key)
{
    PkVal *top = pk__top(z);
    if (!top)
        return -1;
    /* pickles number their memo from 0: a key beyond the opcodes read so
     * far (or the limit) would only make the memo large */
    if (key >= PK_MAX_MEMO || key > z->pos)
        return pk__fail(z, "a memo key beyond the limit");
    if (key >= z->memocap) {
        size_t cap = z->memocap ? z->memocap : 64;
        PkVal *grown;
        while (cap <= key)
            cap *= 2;
        if (!(grown = realloc(z->memo, cap * sizeof *grown)))
            return pk__fail(z, "out of memory");
        memset(grown + z->memocap, 0, (cap - z->memocap) * sizeof *grown);
        z->memo = grown;
        z->memocap = cap;
    }
    z->memo[key] = *top;
    return 0;
}

static int pk__get(Tz *z, uint64_t key)
{
    if (key >= z->memocap || z->memo[key].kind == PV_UNSET)
        return pk__fail(z, "a memo get of a key never put");
    return pk__push(z, z->memo[key]);
}

/* Runs one opcode; *done when it was STOP. */
static int pk__step(Tz *z, int *done)
{
    const unsigned char *p;
    unsigned op;
    PkVal v, k, *top;
    z->op = z->pos;
    if (z->pos >= z->slen)
        return pk__fail(z, "data.pkl ends before STOP");
    op = z->s[z->pos++];
    switch (op) {
    case 0x80:   /* PROTO */
        if (!(p = pk__bytes(z, 1)))
            return -1;
        return *p <= 5 ? 0 : pk__fail(z, "pickle protocol above 5");
    case 0x95:   /* FRAME: a length hint */
        return pk__bytes(z, 8) ? 0 : -1;
    case '.':    /* STOP */
        *done = 1;
        return 0;
    case '(':    /* MARK */
        if (z->nmarks == z->mcap) {
            size_t cap = z->mcap ? z->mcap * 2 : 16, *grown;
            if (z->mcap >= PK_MAX_MARKS)
                return pk__fail(z, "MARKs nested deeper than the limit");
            if (!(grown = realloc(z->marks, cap * sizeof *grown)))
                return pk__fail(z, "out of memory");
            z->marks = grown;
            z->mcap = cap;
        }
        z->marks[z->nmarks++] = z->sp;
        return 0;
    case '}': case ']': case ')': {   /* EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE */
        PkObj *o = pk__obj(z, op == '}' ? PO_DICT : op == ']' ? PO_LIST : PO_TUPLE);
        return o ? pk__push(z, (PkVal){.kind = PV_OBJ, .u.o = o}) : -1;
    }
    case 'd':    /* DICT */
        return pk__collect(z, PO_DICT);
    case 'l':    /* LIST */
        return pk__collect(z, PO_LIST);
    case 't':    /* TUPLE */
        return pk__collect(z, PO_TUPLE);
    case 0x85: case 0x86: case 0x87: {   /* TUPLE1, TUPLE2, TUPLE3 */
        size_t n = op - 0x84;
        PkObj *o;
        if (z->sp < n || (z->nmarks > 0 && z->sp - n < z->marks[z->nmarks - 1]))
            return pk__fail(z, "TUPLEn pops an empty stack");
        if (!(o = pk__obj(z, PO_TUPLE)) || pk__add(z, o, z->stack + z->sp - n, n) != 0)
            return -1;
        z->sp -= n;
        return pk__push(z, (PkVal){.kind = PV_OBJ, .u.o = o});
    }
    case 'a':    /* APPEND */
        if (pk__pop(z, &v) != 0 || !(top = pk__top(z)))
            return -1;
        if (top->kind != PV_OBJ || top->u.o->kind != PO_LIST)
            return pk__fail(z, "APPEND on something not a list");
        return pk__add(z, top->u.o, &v, 1);
    case 'e':    /* APPENDS */
        return pk__extend(z, PO_LIST);
    case 's': {  /* SETITEM */
        PkVal kv[2];
        if (pk__pop(z, &v) != 0 || pk__pop(z, &k) != 0 || !(top = pk__top(z)))
            return -1;
        if (top->kind != PV_OBJ || top->u.o->kind != PO_DICT)
            return pk__fail(z, "SETITEM on something not a dict");
        kv[0] = k;
        kv[1] = v;
        return pk__add(z, top->u.o, kv, 2);
    }
    case 'u':    /* SETITEMS */
        return pk__extend(z, PO_DICT);
    case 'X':    /* BINUNICODE */
        return (p = pk__bytes(z, 4)) ? pk__string(z, tz__rd32(p)) : -1;
    case 0x8c:   /* SHORT_BINUNICODE */
        return (p = pk__bytes(z, 1)) ? pk__string(z, *p) : -1;
    case 0x8d:   /* BINUNICODE8 */
        return (p = pk__bytes(z, 8)) ? pk__string(z, tz__rd64(p)) : -1;
    case 'J':    /* BININT */
        if (!(p = pk__bytes(z, 4)))
            return -1;
        return pk__push(z, (PkVal){.kind = PV_INT, .u.i = (int32_t)tz__rd32(p)});
    case 'K':    /* BININT1 */
        return (p = pk__bytes(z, 1)) ? pk__push(z, (PkVal){.kind = PV_INT, .u.i = *p}) : -1;
    case 'M':    /* BININT2 */
        if (!(p = pk__bytes(z, 2)))
            return -1;
        return pk__push(z, (PkVal){.kind = PV_INT, .u.i = tz__rd16(p)});
    case 0x8a: { /* LONG1: n bytes, two's complement little-endian */
        uint64_t u = 0;
        size_t n;
        if (!(p = pk__bytes(z, 1)))
            return -1;
        n = *p;
        if (n > 8)
            return pk__fail(z, "LONG1 of more than 8 bytes");
        if (!(p = pk__bytes(z, n)))
            return -1;
        for (size_t i = 0; i < n; i++)
            u |= (uint64_t)p[i] << (8 * i);
        if (n > 0 && n < 8 && (p[n - 1] & 0x80))
            u |= ~(uint64_t)0 << (8 * n);
        return pk__push(z, (PkVal){.kind = PV_INT, .u.i = (int64_t)u});
    }
    case 'G': {  /* BINFLOAT: big-endian binary64 */
        uint64_t u = 0;
        double f;
        if (!(p = pk__bytes(z, 8)))
            return -1;
        for (int i = 0; i < 8; i++)
            u = u << 8 | p[i];
        memcpy(&f, &u, sizeof f);
        return pk__push(z, (PkVal){.kind = PV_FLOAT, .u.f = f});
    }
    case 'N':    /* NONE */
        return pk__push(z, (PkVal){.kind = PV_NONE});
    case 0x88: case 0x89:   /* NEWTRUE, NEWFALSE */
        return pk__push(z, (PkVal){.kind = PV_BOOL, .u.i = op == 0x88});
    case 'q':    /* BINPUT */
        return (p = pk__bytes(z, 1)) ? pk__put(z, *p) : -1;
    case 'r':    /* LONG_BINPUT */
        return (p = pk__bytes(z, 4)) ? pk__put(z, tz__rd32(p)) : -1;
    case 0x94:   /* MEMOIZE */
        if (pk__put(z, z->nmemo) != 0)
            return -1;
        z->nmemo++;
        return 0;
    case 'h':    /* BINGET */
        return (p = pk__bytes(z, 1)) ? pk__get(z, *p) : -1;
    case 'j':    /* LONG_BINGET */
        return (p = pk__bytes(z, 4)) ? pk__get(z, tz__rd32(p)) : -1;
    case 'c':    /* GLOBAL */
        return pk__global_text(z);
    case 0x93:   /* STACK_GLOBAL */
        if (pk__pop(z, &v) != 0 || pk__pop(z, &k) != 0)
            return -1;
        if (v.kind != PV_STR || k.kind != PV_STR)
            return pk__fail(z, "STACK_GLOBAL of something not two strings");
        return pk__global(z, k.u.s.p, k.u.s.n, v.u.s.p, v.u.s.n);
    case 'Q':    /* BINPERSID */
        return pk__persid(z);
    case 'R':    /* REDUCE */
        return pk__reduce(z);
    case 'b':    /* BUILD: an OrderedDict's attributes (_metadata), ignored */
        if (pk__pop(z, &v) != 0 || !(top = pk__top(z)))
            return -1;
        if (top->kind != PV_OBJ || top->u.o->kind != PO_DICT
            || (v.kind != PV_NONE && (v.kind != PV_OBJ || v.u.o->kind != PO_DICT)))
            return pk__fail(z, "BUILD of something other than a dict's attributes");
        return 0;
    default: {
        char msg[120];
        snprintf(msg, sizeof msg, "opcode 0x%02x%s%c%s is not one a state dict uses", op,
                 op >= 0x20 && op < 0x7f ? " ('" : "", op >= 0x20 && op < 0x7f ? (int)op : ' ',
                 op >= 0x20 && op < 0x7f ? "')" : "");
        return pk__fail(z, msg);
    }
    }
}

/* Runs the pickle to STOP; its one value in *out. */
static int pk__run(Tz *z, PkVal *out)
{
    int done = 0;
    while (!done)
        if (pk__step(z, &done) != 0)
            return -1;
    if (z->nmarks != 0 || z->sp != 1)
        return pk__fail(z, "STOP with other than one value on the stack");
    *out = z->stack[0];
    return 0;
}

/* ---- the tensors ---- */

/* Copies tensor t (its elements es bytes, from base) contiguous into dst. */
static void tz__gather(const PkObj *t, const unsigned char *base, size_t es, unsigned char *dst)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, off = t->offset;
    int64_t n = 1;
    for (int k = 0; k < t->ndim; k++)
        n *= t->size[k];
    for (int64_t i = 0; i < n; i++) {
        memcpy(dst + (size_t)i * es, base + (size_t)off * es, es);
        for (int k = t->ndim - 1; k >= 0; k--) {
            if (++idx[k] < t->size[k]) {
                off += t->stride[k];
                break;
            }
            off -= (idx[k] - 1) * t->stride[k];
            idx[k] = 0;
        }
    }
}

/* Adds tensor t named name[0..n) to out. */
static int tz__tensor(Tz *z, TngrtSafetensors *out, const char *name, size_t n, const PkObj *t)
{
    const TzStorage *s = &z->st[t->storage];
    const TzStorageClass *cls = &tz_classes[s->cls];
    size_t es = (size_t)cls->size, nbytes;
    uint64_t last = (uint64_t)t->offset, numel = (uint64_t)s->numel;
    int contiguous = 1;
    int64_t want = 1;
    char what[300];
    unsigned char *own = NULL;
    const unsigned char *data;
    int nn = (int)(n > 200 ? 200 : n);
    if (!cls->ok) {
        tngrt__fail(z->err, z->path, "tensor '%.*s' is %s (torch.%s), a dtype the runtime does "
                    "not have", nn, name, cls->dtype, cls->name);
        return -1;
    }
    snprintf(what, sizeof what, "%s: tensor '%.*s'", z->path, nn, name);
    if (t->offset < 0
        || tngrt_shape_nbytes(cls->dt, t->ndim, t->size, &nbytes, what, z->err) != 0) {
        if (t->offset < 0)
            tngrt__fail(z->err, z->path, "tensor '%.*s': negative storage offset", nn, name);
        return -1;
    }
    for (int k = t->ndim - 1; k >= 0; k--)
        if (t->stride[k] < 0 || t->stride[k] > TNGRT_MAX_BYTES) {
            tngrt__fail(z->err, z->path, "tensor '%.*s': stride %lld of dim %d", nn, name,
                        (long long)t->stride[k], k);
            return -1;
        }
    /* last stays below numel (at most 2^48): no product overflows */
    if (nbytes > 0 && last >= numel)
        goto past;
    for (int k = t->ndim - 1; k >= 0 && nbytes > 0; k--) {
        if (t->size[k] > 1 && t->stride[k] > 0) {
            if ((uint64_t)t->stride[k] > (numel - 1 - last) / (uint64_t)(t->size[k] - 1))
                goto past;
            last += (uint64_t)(t->size[k] - 1) * (uint64_t)t->stride[k];
        }
        if (t->size[k] > 1 && t->stride[k] != want)
            contiguous = 0;
        want *= t->size[k];
    }
    if (nbytes == 0 || contiguous) {
        data = s->data + (nbytes ? (size_t)t->offset * es : 0);
    } else {
        if (nbytes > z->len - (z->copied < z->len ? z->copied : z->len)) {
            tngrt__fail(z->err, z->path, "tensor '%.*s': the views copied contiguous would pass "
                        "the file's size", nn, name);
            return -1;
        }
        if (!(own = malloc(nbytes))) {
            tngrt__fail(z->err, z->path, "out of memory");
            return -1;
        }
        z->copied += nbytes;
        tz__gather(t, s->data, es, own);
        data = own;
    }
    return tngrt__st_add_view(out, name, n, cls->dt, t->ndim, t->size, data, own, z->err);
past:
    tngrt__fail(z->err, z->path, "tensor '%.*s': its size, stride and offset reach past its "
                "storage of %lld elements", nn, name, (long long)s->numel);
    return -1;
}

/* Adds every tensor of the state dict d to out. */
static int tz__state_dict(Tz *z, TngrtSafetensors *out, const PkVal *d)
{
    if (d->kind != PV_OBJ || d->u.o->kind != PO_DICT) {
        tngrt__fail(z->err, z->path, "the pickle is not a state dict (a dict of tensors)");
        return -1;
    }
    for (size_t i = 0; i + 1 < d->u.o->n; i += 2) {
        const PkVal *k = &d->u.o->items[i], *v = &d->u.o->items[i + 1];
        if (k->kind != PV_STR || memchr(k->u.s.p, '\0', k->u.s.n)) {
            tngrt__fail(z->err, z->path, "the state dict has a key that is not a string");
            return -1;
        }
        if (v->kind != PV_OBJ || v->u.o->kind != PO_TENSOR) {
            tngrt__fail(z->err, z->path, "'%.*s' is not a tensor (a checkpoint holding more "
                        "than a state dict? save model.state_dict() alone)",
                        (int)(k->u.s.n > 200 ? 200 : k->u.s.n), k->u.s.p);
            return -1;
        }
        if (tz__tensor(z, out, k->u.s.p, k->u.s.n, v->u.o) != 0)
            return -1;
    }
    return tngrt__st_finish(out, z->err);
}

static void tz__free(Tz *z)
{
    for (size_t i = 0; i < z->nobjs; i++) {
        free(z->objs[i]->items);
        free(z->objs[i]);
    }
    free(z->objs);
    free(z->stack);
    free(z->marks);
    free(z->memo);
    free(z->st);
    free(z->e);
}

/* Reads the archive in out's bytes into out's tensors. */
static int tz__read(TngrtSafetensors *out, const unsigned char *b, size_t len, const char *path,
                    TngrtError *err)
{
    Tz z;
    PkVal top;
    int rc = -1;
    memset(&z, 0, sizeof z);
    z.b = b;
    z.len = len;
    z.path = path;
    z.err = err;
    if (tz__directory(&z) == 0 && tz__layout(&z) == 0) {
        if (!(z.st = malloc((z.n + 1) * sizeof *z.st))) {
            tngrt__fail(err, path, "out of memory");
        } else {
            for (size_t i = 0; i < z.n; i++)
                z.st[i].cls = -1;
            if (pk__run(&z, &top) == 0 && tz__state_dict(&z, out, &top) == 0)
                rc = 0;
        }
    }
    tz__free(&z);
    return rc;
}

int tngrt_torch_open(const char *path, TngrtSafetensors **out, TngrtError *err)
{
    TngrtSafetensors *self;
    const unsigned char *b;
    size_t len;
    *out = NULL;
    if (!(self = tngrt__st_new(path, err)))
        return -1;
    if (tngrt__st_map(self, &b, &len, err) != 0 || tz__read(self, b, len, path, err) != 0) {
        tngrt_safetensors_close(self);
        return -1;
    }
    *out = self;
    return 0;
}

int tngrt_torch_open_memory(const void *data, size_t len, const char *name,
                            TngrtSafetensors **out, TngrtError *err)
{
    TngrtSafetensors *self;
    *out = NULL;
    if (!name)
        name = "<memory>";
    if (!(self = tngrt__st_new(name, err)))
        return -1;
    tngrt__st_borrow(self, data, len);
    if (tz__read(self, data, data ? len : 0, name, err) != 0) {
        tngrt_safetensors_close(self);
        return -1;
    }
    *out = self;
    return 0;
}

/* ---- telling the formats apart ---- */

/* The longest safetensors header (safetensors.c's limit). */
#define ST_PLAUSIBLE (100u * 1024 * 1024)

/* What the first bytes of a weights file say it is. */
enum { W_SAFETENSORS, W_TORCH, W_INDEX, W_LEGACY };

static int tz__kind(const unsigned char *b, size_t len)
{
    uint64_t n = 0;
    size_t i = 0;
    if (len >= 8)
        for (int k = 7; k >= 0; k--)
            n = n << 8 | b[k];
    if (len >= 4 && (tz__rd32(b) == 0x04034b50u || tz__rd32(b) == 0x06054b50u)
        && !(len > 8 && n <= ST_PLAUSIBLE && b[8] == '{'))
        return W_TORCH;
    /* a JSON text's or a pickle's first 8 bytes read as a huge length */
    if (len >= 8 && n <= ST_PLAUSIBLE)
        return W_SAFETENSORS;
    if (len >= 2 && b[0] == 0x80 && b[1] <= 5)
        return W_LEGACY;
    while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i < len && b[i] == '{' ? W_INDEX : W_SAFETENSORS;
}

int tngrt_weights_open(const char *path, TngrtSafetensors **out, TngrtError *err)
{
    unsigned char head[64];
    ssize_t n;
    int fd;
    *out = NULL;
    if ((fd = tngrt__open_read(path, err)) < 0)
        return -1;
    n = read(fd, head, sizeof head);
    close(fd);
    if (n < 0) {
        tngrt__fail(err, path, "cannot read");
        return -1;
    }
    switch (tz__kind(head, (size_t)n)) {
    case W_TORCH:
        return tngrt_torch_open(path, out, err);
    case W_INDEX:
        return tngrt_safetensors_open_index(path, out, err);
    case W_LEGACY:
        tngrt__fail(err, path, "a torch.save file of the format before PyTorch 1.6 (a bare "
                    "pickle), which is not read: save it again with a recent torch.save");
        return -1;
    default:
        return tngrt_safetensors_open(path, out, err);
    }
}

int tngrt_weights_open_memory(const void *data, size_t len, const char *name,
                              TngrtSafetensors **out, TngrtError *err)
{
    *out = NULL;
    if (data && tz__kind(data, len) == W_TORCH)
        return tngrt_torch_open_memory(data, len, name, out, err);
    return tngrt_safetensors_open_memory(data, len, name, out, err);
}
