/*
 * npy.c - reading and writing numpy .npy files (formats 1.0, 2.0, 3.0).
 *
 * The header dict is parsed here, strictly: exactly the keys 'descr',
 * 'fortran_order' and 'shape'; little-endian C-order data of the dtypes
 * libtngcrt knows; and the file must hold exactly header + data bytes.
 * Read for a bf16 or f16 tensor (tngrt_npy_read_as), '<f4' data is
 * rounded to it as torch's .to() rounds (tngrt_half_from_f32).
 * Writes go to a new temporary file beside path (created exclusively
 * under a random name: internal.h, tngrt__create_temp) renamed into
 * place, so a failure never leaves a half-written file under path. Reads
 * take regular files only (tngrt__read_file).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The longest header accepted, in bytes. */
#define NPY_MAX_HEADER 65536

/* A cursor over the header text. */
typedef struct NpyParse {
    const char *s;     /* header text */
    size_t len;        /* its length */
    size_t pos;        /* next character */
    const char *path;  /* for messages */
    TngrtError *err;
    int mode;          /* TNGRT__NPY_ANY, _BF16_BITS, _BF16 or _F16 (internal.h) */
} NpyParse;

static void npy__skip_ws(NpyParse *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
        p->pos++;
}

/* Consumes c (after blanks) or fails. */
static int npy__expect(NpyParse *p, char c)
{
    npy__skip_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != c) {
        tngrt__fail(p->err, p->path, "header: expected '%c' at offset %zu", c, p->pos);
        return -1;
    }
    p->pos++;
    return 0;
}

/* string: '\'' chars '\'' | '"' chars '"' (printable ASCII, no escapes) */
static int npy__string(NpyParse *p, char *out, size_t cap)
{
    char q;
    size_t n = 0;
    npy__skip_ws(p);
    if (p->pos >= p->len || (p->s[p->pos] != '\'' && p->s[p->pos] != '"')) {
        tngrt__fail(p->err, p->path, "header: expected a string at offset %zu", p->pos);
        return -1;
    }
    q = p->s[p->pos++];
    while (p->pos < p->len && p->s[p->pos] != q) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20 || c > 0x7e || c == '\\' || n + 1 >= cap) {
            tngrt__fail(p->err, p->path, "header: bad or overlong string at offset %zu",
                      p->pos);
            return -1;
        }
        out[n++] = (char)c;
        p->pos++;
    }
    if (p->pos >= p->len) {
        tngrt__fail(p->err, p->path, "header: unterminated string");
        return -1;
    }
    p->pos++;
    out[n] = '\0';
    return 0;
}

/* shape: '(' [ int { ',' int } [ ',' ] ] ')' -- a 1-tuple needs its comma */
static int npy__shape(NpyParse *p, int *ndim, int64_t *shape)
{
    int n = 0, trailing_comma = 0;
    if (npy__expect(p, '(') != 0)
        return -1;
    for (;;) {
        npy__skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ')') {
            p->pos++;
            break;
        }
        if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
            tngrt__fail(p->err, p->path,
                      "header: shape must be a tuple of non-negative integers (offset %zu)",
                      p->pos);
            return -1;
        }
        if (n == TNGRT_MAX_DIMS) {
            tngrt__fail(p->err, p->path, "header: more than %d dimensions", TNGRT_MAX_DIMS);
            return -1;
        }
        {
            int64_t v = 0;
            while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
                int d = p->s[p->pos++] - '0';
                if (v > (INT64_MAX - d) / 10) {
                    tngrt__fail(p->err, p->path, "header: shape dimension %d is too large", n);
                    return -1;
                }
                v = v * 10 + d;
            }
            shape[n++] = v;
        }
        npy__skip_ws(p);
        trailing_comma = 0;
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            trailing_comma = 1;
        } else if (p->pos >= p->len || p->s[p->pos] != ')') {
            tngrt__fail(p->err, p->path, "header: expected ',' or ')' in shape at offset %zu",
                      p->pos);
            return -1;
        }
    }
    if (n == 1 && !trailing_comma) {
        tngrt__fail(p->err, p->path, "header: shape (n) lacks the comma of a tuple");
        return -1;
    }
    *ndim = n;
    return 0;
}

/* Maps a numpy descr to a dtype, or fails saying why. The half modes
 * accept only the descrs a tensor of their dtype is read from:
 * TNGRT__NPY_BF16_BITS '<u2' (uint16 holding bfloat16 bit patterns: the
 * form tngrt_npy_write gives bf16, since numpy has no bfloat16),
 * TNGRT__NPY_BF16 '<u2' or '<f4', TNGRT__NPY_F16 '<f2' or '<f4' ('<f4'
 * gives an f32 tensor, which the caller rounds). */
static int npy__descr(NpyParse *p, const char *descr, TngrtDType *dtype)
{
    static const struct { const char *descr; TngrtDType dtype; } table[] = {
        {"<f4", TNGRT_F32}, {"<f2", TNGRT_F16}, {"<i1", TNGRT_I8},
        {"|i1", TNGRT_I8},  {"<i4", TNGRT_I32}, {"<i8", TNGRT_I64},
        {"|b1", TNGRT_BOOL}, {"<b1", TNGRT_BOOL},
    };
    if (p->mode == TNGRT__NPY_BF16_BITS) {
        if (strcmp(descr, "<u2") == 0) {
            *dtype = TNGRT_BF16;
            return 0;
        }
        tngrt__fail(p->err, p->path, "dtype '%s': a bf16 tensor is read from a '<u2' .npy "
                  "holding its bfloat16 bit patterns (uint16)", descr);
        return -1;
    }
    if (p->mode == TNGRT__NPY_BF16 || p->mode == TNGRT__NPY_F16) {
        int bf16 = p->mode == TNGRT__NPY_BF16;
        if (strcmp(descr, "<f4") == 0 || strcmp(descr, bf16 ? "<u2" : "<f2") == 0) {
            *dtype = descr[1] == 'f' && descr[2] == '4' ? TNGRT_F32
                     : bf16 ? TNGRT_BF16 : TNGRT_F16;
            return 0;
        }
        if (bf16)
            tngrt__fail(p->err, p->path, "dtype '%s': a bf16 tensor is read from a '<f4' "
                      ".npy (rounded to bfloat16) or a '<u2' .npy of its bfloat16 bit "
                      "patterns", descr);
        else
            tngrt__fail(p->err, p->path, "dtype '%s': an f16 tensor is read from a '<f2' "
                      ".npy or a '<f4' .npy (rounded to float16)", descr);
        return -1;
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(descr, table[i].descr) == 0) {
            *dtype = table[i].dtype;
            return 0;
        }
    if (descr[0] == '>')
        tngrt__fail(p->err, p->path, "big-endian dtype '%s' is not supported: "
                  "save little-endian data", descr);
    else if (strstr(descr, "bfloat16") || strcmp(descr, "<V2") == 0)
        tngrt__fail(p->err, p->path, "dtype '%s': bfloat16 has no numpy descr; "
                  "give a bf16 tensor as a '<u2' .npy of its bit patterns", descr);
    else
        tngrt__fail(p->err, p->path, "unsupported dtype '%s' (expected one of "
                  "<f4 <f2 <i1 |i1 <i4 <i8 |b1)", descr);
    return -1;
}

/* dict: '{' { key ':' value ',' } [ key ':' value ] '}' blanks '\n'? */
static int npy__header(NpyParse *p, TngrtDType *dtype, int *ndim, int64_t *shape)
{
    int have_descr = 0, have_fortran = 0, have_shape = 0;
    char key[32], val[64];
    if (npy__expect(p, '{') != 0)
        return -1;
    for (;;) {
        npy__skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == '}') {
            p->pos++;
            break;
        }
        if (npy__string(p, key, sizeof key) != 0 || npy__expect(p, ':') != 0)
            return -1;
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if (npy__string(p, val, sizeof val) != 0 || npy__descr(p, val, dtype) != 0)
                return -1;
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_fortran) {
            npy__skip_ws(p);
            if (p->len - p->pos >= 5 && memcmp(p->s + p->pos, "False", 5) == 0) {
                p->pos += 5;
            } else if (p->len - p->pos >= 4 && memcmp(p->s + p->pos, "True", 4) == 0) {
                tngrt__fail(p->err, p->path, "Fortran order is not supported: "
                          "save with np.ascontiguousarray");
                return -1;
            } else {
                tngrt__fail(p->err, p->path, "header: fortran_order must be True or False");
                return -1;
            }
            have_fortran = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (npy__shape(p, ndim, shape) != 0)
                return -1;
            have_shape = 1;
        } else {
            tngrt__fail(p->err, p->path, "header: unexpected or repeated key '%s'", key);
            return -1;
        }
        npy__skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',')
            p->pos++;
        else if (p->pos >= p->len || p->s[p->pos] != '}') {
            tngrt__fail(p->err, p->path, "header: expected ',' or '}' at offset %zu", p->pos);
            return -1;
        }
    }
    if (!have_descr || !have_fortran || !have_shape) {
        tngrt__fail(p->err, p->path, "header: missing key '%s'",
                  !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
        return -1;
    }
    npy__skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '\n')
        p->pos++;
    if (p->pos != p->len) {
        tngrt__fail(p->err, p->path, "header: junk after the dict at offset %zu", p->pos);
        return -1;
    }
    return 0;
}

/* Rounds the n float32s at src (little-endian, any alignment) to dtype
 * into dst, a block at a time (no float32 copy of the whole data). */
static void npy__round(TngrtDType dtype, const unsigned char *src, uint16_t *dst, size_t n)
{
    float block[256];
    for (size_t i = 0; i < n; i += 256) {
        size_t k = n - i < 256 ? n - i : 256;
        memcpy(block, src + i * sizeof(float), k * sizeof(float));
        tngrt_half_from_f32(dtype, block, dst + i, k);
    }
}

int tngrt__npy_parse(const unsigned char *buf, size_t len, const char *path, int mode,
                     TngrtTensor **out, TngrtError *err)
{
    size_t pre, hlen, nbytes;
    TngrtDType dtype = TNGRT_F32;
    TngrtDType half = mode == TNGRT__NPY_BF16 ? TNGRT_BF16
                      : mode == TNGRT__NPY_F16 ? TNGRT_F16 : TNGRT_F32;  /* '<f4' rounded to it */
    int ndim = 0;
    int64_t shape[TNGRT_MAX_DIMS];
    TngrtTensor *t;
    NpyParse p;
    char what[200];

    *out = NULL;
    if (len < 6 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        tngrt__fail(err, path, "not a .npy file (bad magic)");
        return -1;
    }
    if (len < 10) {
        tngrt__fail(err, path, "truncated header (file has %zu bytes)", len);
        return -1;
    }
    if (buf[6] < 1 || buf[6] > 3 || buf[7] != 0) {
        tngrt__fail(err, path, "unsupported .npy format version %u.%u", buf[6], buf[7]);
        return -1;
    }
    if (buf[6] == 1) {
        pre = 10;
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    } else {
        pre = 12;
        if (len < pre) {
            tngrt__fail(err, path, "truncated header (file has %zu bytes)", len);
            return -1;
        }
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16
               | (size_t)buf[11] << 24;
    }
    if (hlen > NPY_MAX_HEADER) {
        tngrt__fail(err, path, "header length %zu exceeds the limit of %d bytes",
                  hlen, NPY_MAX_HEADER);
        return -1;
    }
    if (hlen > len - pre) {
        tngrt__fail(err, path, "header length %zu runs past the end of the file "
                  "(%zu bytes)", hlen, len);
        return -1;
    }
    p.s = (const char *)buf + pre;
    p.len = hlen;
    p.pos = 0;
    p.path = path;
    p.err = err;
    p.mode = mode;
    if (npy__header(&p, &dtype, &ndim, shape) != 0)
        return -1;
    snprintf(what, sizeof what, "%s", path);
    if (tngrt_shape_nbytes(dtype, ndim, shape, &nbytes, what, err) != 0)
        return -1;
    if (nbytes != len - pre - hlen) {
        tngrt__fail(err, path, "%s: expected %zu bytes (header %zu + data %zu), "
                  "the file has %zu", len - pre - hlen < nbytes ? "truncated data"
                  : "trailing bytes", pre + hlen + nbytes, pre + hlen, nbytes, len);
        return -1;
    }
    t = tngrt_tensor_new(dtype == TNGRT_F32 && half != TNGRT_F32 ? half : dtype, ndim, shape,
                         err);
    if (!t)
        return -1;
    if (t->dtype != dtype)
        npy__round(half, buf + pre + hlen, t->data, nbytes / sizeof(float));
    else if (nbytes)
        memcpy(t->data, buf + pre + hlen, nbytes);
    *out = t;
    return 0;
}

static int npy__read(const char *path, int mode, TngrtTensor **out, TngrtError *err)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc;
    *out = NULL;
    if (tngrt__read_file(path, &buf, &len, err) != 0)
        return -1;
    rc = tngrt__npy_parse(buf, len, path, mode, out, err);
    free(buf);
    return rc;
}

int tngrt_npy_read(const char *path, TngrtTensor **out, TngrtError *err)
{
    return npy__read(path, TNGRT__NPY_ANY, out, err);
}

int tngrt_npy_read_bf16(const char *path, TngrtTensor **out, TngrtError *err)
{
    return npy__read(path, TNGRT__NPY_BF16_BITS, out, err);
}

int tngrt_npy_read_as(const char *path, TngrtDType dtype, TngrtTensor **out, TngrtError *err)
{
    return npy__read(path, dtype == TNGRT_BF16 ? TNGRT__NPY_BF16
                           : dtype == TNGRT_F16 ? TNGRT__NPY_F16 : TNGRT__NPY_ANY, out, err);
}

/* Returns the numpy descr of dtype, or NULL where numpy has none. bf16,
 * which numpy lacks, is written as its uint16 bit patterns ('<u2'). */
static const char *npy__descr_of(TngrtDType dtype)
{
    switch (dtype) {
    case TNGRT_BF16: return "<u2";
    case TNGRT_F32: return "<f4";
    case TNGRT_F16: return "<f2";
    case TNGRT_I8: return "|i1";
    case TNGRT_I32: return "<i4";
    case TNGRT_I64: return "<i8";
    case TNGRT_BOOL: return "|b1";
    default: return NULL;
    }
}

/* Formats the v1.0 preamble + header padded as numpy pads it. */
static size_t npy__format_header(const TngrtTensor *t, const char *descr, char *out,
                                 size_t cap)
{
    char dict[512];
    size_t n;
    int k = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    n = (size_t)k;
    for (int i = 0; i < t->ndim; i++) {
        k = snprintf(dict + n, sizeof dict - n, i ? ", %lld" : "%lld",
                     (long long)t->shape[i]);
        n += (size_t)k;
    }
    k = snprintf(dict + n, sizeof dict - n, "%s), }", t->ndim == 1 ? "," : "");
    n += (size_t)k;
    /* 10-byte preamble + dict + spaces + '\n' is a multiple of 64 */
    {
        size_t total = (10 + n + 1 + 63) / 64 * 64;
        size_t hlen = total - 10;
        if (total > cap)
            return 0;
        memcpy(out, "\x93NUMPY\x01\x00", 8);
        out[8] = (char)(hlen & 0xff);
        out[9] = (char)(hlen >> 8);
        memcpy(out + 10, dict, n);
        memset(out + 10 + n, ' ', total - 10 - n - 1);
        out[total - 1] = '\n';
        return total;
    }
}

typedef struct NpyWrite {
    const char *header;
    size_t hsize;
    const void *data;
    size_t nbytes;
} NpyWrite;

static int npy__put(const void *ctx, FILE *f)
{
    const NpyWrite *w = ctx;
    return fwrite(w->header, 1, w->hsize, f) == w->hsize &&
           (w->nbytes == 0 || fwrite(w->data, 1, w->nbytes, f) == w->nbytes) ? 0 : -1;
}

/* Formats t's header into header (cap bytes) and fills *w for npy__put;
 * returns 0, or -1 with err. */
static int npy__prepare(const char *path, const TngrtTensor *t, char *header, size_t cap,
                        NpyWrite *w, TngrtError *err)
{
    const char *descr = npy__descr_of(t->dtype);
    size_t hsize, nbytes;

    if (!descr) {
        tngrt__fail(err, path, "cannot write dtype %s: it has no numpy dtype", tngrt_dtype_name(t->dtype));
        return -1;
    }
    if (tngrt_shape_nbytes(t->dtype, t->ndim, t->shape, &nbytes, path, err) != 0)
        return -1;
    if (nbytes != t->nbytes) {
        tngrt__fail(err, path, "tensor holds %zu bytes, its shape needs %zu",
                  t->nbytes, nbytes);
        return -1;
    }
    hsize = npy__format_header(t, descr, header, cap);
    if (hsize == 0) {
        tngrt__fail(err, path, "header too long");
        return -1;
    }
    *w = (NpyWrite){header, hsize, t->data, nbytes};
    return 0;
}

int tngrt_npy_write(const char *path, const TngrtTensor *t, TngrtError *err)
{
    char header[1024];
    NpyWrite w;
    if (npy__prepare(path, t, header, sizeof header, &w, err) != 0)
        return -1;
    return tngrt__write_atomic(path, npy__put, &w, err);
}

int tngrt_npy_write_temp(const char *path, const TngrtTensor *t, char *tmp, size_t cap,
                         TngrtError *err)
{
    char header[1024];
    NpyWrite w;
    if (cap)
        tmp[0] = '\0';
    if (npy__prepare(path, t, header, sizeof header, &w, err) != 0)
        return -1;
    return tngrt__write_temp(path, npy__put, &w, tmp, cap, err);
}
