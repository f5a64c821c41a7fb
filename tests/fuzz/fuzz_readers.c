/*
 * fuzz_readers.c - a libFuzzer target for the file readers of libtngcrt
 * that a bundle's launcher runs on what it is given: the .npy reader
 * (tngrt_npy_read, tngrt_npy_read_bf16, tngrt_npy_read_as), the safetensors reader
 * (tngrt_safetensors_open, _open_memory, _find), the torch.save reader
 * (tngrt_torch_open_memory: the zip and the pickle machine), and the
 * bundle's weight loading over them (tngrt_bundle_load_weights_memory, with the
 * descriptor of tests/launcher/fake_bundle.c: its unused-tensor list and
 * its weight checks).
 *
 * Every input goes to each reader. Besides ASan/UBSan and leak checks it
 * aborts when a reader accepts something inconsistent:
 *   .npy          the tensor's byte size differs from its shape's, or it
 *                 does not come back identical through tngrt_npy_write
 *                 and a second read (the writer's temporary file and
 *                 rename included)
 *   safetensors   a name is missing or found at another index, a view
 *                 reaches outside the input, two non-empty views overlap
 *                 or the views do not cover the data; the same bytes
 *                 opened from a file (mapped) give other tensors
 *   torch.save    a name is missing or found at another index, a view
 *                 reaches partly outside the input (views wholly outside
 *                 are the copies of strided tensors: read end to end), or
 *                 the same bytes opened from a file give other tensors
 *   bundle        a load that succeeds lists as unused a tensor the
 *                 model uses, or one that the file does not hold
 *
 * Build and run: `make fuzz-readers` (Makefile, fuzzing section); seeds in
 * tests/fuzz/seeds_readers, tokens in tests/fuzz/readers.dict.
 */
#include "internal.h"
#include "tngrt_bundle.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const TngrtBundleDesc *tngc_template_desc(void);

/* A private directory for the files written, made at the first input
 * and removed at exit (every file in it is removed once checked). */
static char fz_dir[64];

static void fz_rmdir(void)
{
    rmdir(fz_dir);
}

static void fz_check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_readers: %s\n", what);
        abort();
    }
}

static const char *fz_path(const char *name)
{
    static char path[128];
    if (!fz_dir[0]) {
        snprintf(fz_dir, sizeof fz_dir, "%s/tngc-fuzz-readers.XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        fz_check(mkdtemp(fz_dir) != NULL, "mkdtemp");
        atexit(fz_rmdir);
    }
    snprintf(path, sizeof path, "%s/%s", fz_dir, name);
    return path;
}

/* Writes the bytes to the file at path (a plain write: the harness's own). */
static void fz_put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    fz_check(f && (size == 0 || fwrite(data, 1, size, f) == size) && fclose(f) == 0, "fz_put");
}

/* .npy: parse, check, write, read back, compare. */
static void fz_npy(const uint8_t *data, size_t size, int mode)
{
    TngrtTensor *t = NULL, *back = NULL;
    TngrtError err;
    size_t nbytes = 0;
    const char *path;
    if (tngrt__npy_parse(data, size, "fuzz.npy", mode, &t, &err) != 0) {
        fz_check(memchr(err.msg, '\0', sizeof err.msg) != NULL, "npy: unterminated message");
        return;
    }
    fz_check(tngrt_shape_nbytes(t->dtype, t->ndim, t->shape, &nbytes, "fuzz", &err) == 0
             && nbytes == t->nbytes, "npy: size differs from the shape's");
    fz_check(mode == TNGRT__NPY_ANY
             || t->dtype == (mode == TNGRT__NPY_F16 ? TNGRT_F16 : TNGRT_BF16),
             "npy: a half read gave another dtype");
    path = fz_path("t.npy");
    if (tngrt_npy_write(path, t, &err) == 0) {
        fz_check((mode == TNGRT__NPY_ANY ? tngrt_npy_read(path, &back, &err)
                  : mode == TNGRT__NPY_BF16_BITS ? tngrt_npy_read_bf16(path, &back, &err)
                  : tngrt_npy_read_as(path, t->dtype, &back, &err)) == 0,
                 "npy: the file written does not read back");
        fz_check(back->dtype == t->dtype && back->ndim == t->ndim
                 && memcmp(back->shape, t->shape, sizeof t->shape[0] * (size_t)t->ndim) == 0
                 && back->nbytes == t->nbytes
                 && (t->nbytes == 0 || memcmp(back->data, t->data, t->nbytes) == 0),
                 "npy: the file written reads back different");
        tngrt_tensor_delete(back);
        unlink(path);
    }
    tngrt_tensor_delete(t);
}

/* Checks the index of st over the bytes [base, base + size). */
static void fz_st_check(const TngrtSafetensors *st, const uint8_t *base, size_t size)
{
    int n = tngrt_safetensors_count(st);
    const uint8_t *lo = NULL, *hi = NULL;
    size_t total = 0;
    TngrtError err;
    TngrtTensor view;
    for (int i = 0; i < n; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        const uint8_t *p;
        fz_check(name != NULL, "safetensors: a tensor without a name");
        fz_check(tngrt__safetensors_index(st, name) == i, "safetensors: name found elsewhere");
        fz_check(tngrt_safetensors_find(st, name, &view, &err) == 0, "safetensors: name not found");
        p = view.data;
        fz_check(p >= base && view.nbytes <= size && (size_t)(p - base) <= size - view.nbytes,
                 "safetensors: a view outside the bytes");
        if (view.nbytes) {
            volatile uint8_t sink = p[0] ^ p[view.nbytes - 1];
            (void)sink;
            lo = !lo || p < lo ? p : lo;
            hi = !hi || p + view.nbytes > hi ? p + view.nbytes : hi;
            total += view.nbytes;
        }
    }
    fz_check(tngrt_safetensors_name(st, n) == NULL && tngrt_safetensors_name(st, -1) == NULL,
             "safetensors: a name out of range");
    /* in range, disjoint (their sizes add up to their span) and ending at the end */
    fz_check(!hi || (hi == base + size && total == (size_t)(hi - lo)),
             "safetensors: the views overlap or leave bytes out");
}

static void fz_safetensors(const uint8_t *data, size_t size)
{
    TngrtSafetensors *st = NULL, *sf = NULL;
    TngrtError err;
    const char *path;
    if (tngrt_safetensors_open_memory(data, size, "fuzz", &st, &err) != 0) {
        fz_check(st == NULL && memchr(err.msg, '\0', sizeof err.msg) != NULL,
                 "safetensors: a failed open");
        return;
    }
    fz_st_check(st, data, size);
    fz_check(tngrt_safetensors_find(st, "\x01no such tensor", &(TngrtTensor){0}, &err) != 0,
             "safetensors: found a name it does not hold");
    /* the same bytes through a file: mapped (or read), the same tensors */
    path = fz_path("w.safetensors");
    fz_put(path, data, size);
    fz_check(tngrt_safetensors_open(path, &sf, &err) == 0, "safetensors: the file does not open");
    fz_check(tngrt_safetensors_count(sf) == tngrt_safetensors_count(st),
             "safetensors: the file holds another count");
    for (int i = 0; i < tngrt_safetensors_count(st); i++)
        fz_check(strcmp(tngrt_safetensors_name(st, i), tngrt_safetensors_name(sf, i)) == 0,
                 "safetensors: the file holds other names");
    tngrt_safetensors_close(sf);
    unlink(path);
    tngrt_safetensors_close(st);
}

/* torch.save: the index, each view read end to end, and the same bytes
 * through a file (tngrt_weights_open, which tells the format). */
static void fz_torch(const uint8_t *data, size_t size)
{
    TngrtSafetensors *st = NULL, *sf = NULL;
    TngrtError err;
    const char *path;
    int n;
    if (tngrt_torch_open_memory(data, size, "fuzz.pt", &st, &err) != 0) {
        fz_check(st == NULL && memchr(err.msg, '\0', sizeof err.msg) != NULL,
                 "torch: a failed open");
        return;
    }
    n = tngrt_safetensors_count(st);
    for (int i = 0; i < n; i++) {
        const char *name = tngrt_safetensors_name(st, i);
        TngrtTensor view;
        const uint8_t *p;
        size_t nbytes = 0;
        fz_check(name != NULL, "torch: a tensor without a name");
        fz_check(tngrt__safetensors_index(st, name) == i, "torch: name found elsewhere");
        fz_check(tngrt_safetensors_find(st, name, &view, &err) == 0, "torch: name not found");
        fz_check(tngrt_shape_nbytes(view.dtype, view.ndim, view.shape, &nbytes, "fuzz", &err) == 0
                 && nbytes == view.nbytes, "torch: size differs from the shape's");
        p = view.data;
        if (p + view.nbytes > data && p < data + size)
            fz_check(p >= data && (size_t)(p - data) <= size - view.nbytes,
                     "torch: a view partly outside the bytes");
        if (view.nbytes) {
            volatile uint8_t sink = p[0] ^ p[view.nbytes - 1];
            (void)sink;
        }
    }
    path = fz_path("w.pt");
    fz_put(path, data, size);
    fz_check(tngrt_weights_open(path, &sf, &err) == 0, "torch: the file does not open");
    fz_check(tngrt_safetensors_count(sf) == n, "torch: the file holds another count");
    for (int i = 0; i < n; i++)
        fz_check(strcmp(tngrt_safetensors_name(st, i), tngrt_safetensors_name(sf, i)) == 0,
                 "torch: the file holds other names");
    tngrt_safetensors_close(sf);
    unlink(path);
    tngrt_safetensors_close(st);
}

/* The fake bundle's weight loading: a success lists as unused exactly the
 * tensors of the file that are no state key of the descriptor. One bundle
 * for the whole run (no executor threads per input); a bundle that loaded
 * from memory points into those bytes, so it loads a copy, kept until a
 * later load succeeds (a failed load changes nothing). */
static void fz_bundle(const uint8_t *data, size_t size)
{
    static TngrtBundle *b;
    static uint8_t *held;
    const TngrtBundleDesc *d = tngc_template_desc();
    TngrtSafetensors *st = NULL;
    TngrtError err;
    uint8_t *copy = malloc(size ? size : 1);
    int n, unused = 0;
    fz_check(copy != NULL, "bundle: out of memory");
    if (size)
        memcpy(copy, data, size);
    if (!b)
        fz_check(tngrt_bundle_new(&b, d, &err) == 0, "bundle: tngrt_bundle_new");
    if (tngrt_bundle_load_weights_memory(b, copy, size, "fuzz") != 0) {
        free(copy);
        return;
    }
    free(held);
    held = copy;
    fz_check(tngrt_weights_open_memory(copy, size, "fuzz", &st, &err) == 0,
             "bundle: loaded a file the reader refuses");
    n = tngrt_safetensors_count(st);
    for (int i = 0; i < n; i++)
        unused += !tngrt_desc_is_state_key(d, tngrt_safetensors_name(st, i));
    fz_check(tngrt_bundle_unused_count(b) == unused, "bundle: wrong unused count");
    for (int i = 0; i < unused; i++) {
        const char *name = tngrt_bundle_unused_name(b, i);
        fz_check(name && !tngrt_desc_is_state_key(d, name)
                 && tngrt__safetensors_index(st, name) >= 0, "bundle: wrong unused name");
    }
    tngrt_safetensors_close(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_npy(data, size, TNGRT__NPY_ANY);
    fz_npy(data, size, TNGRT__NPY_BF16_BITS);
    fz_npy(data, size, TNGRT__NPY_BF16);
    fz_npy(data, size, TNGRT__NPY_F16);
    fz_safetensors(data, size);
    fz_torch(data, size);
    fz_bundle(data, size);
    return 0;
}
