/*
 * internal.h - helpers the files of libtngcrt share; not installed, not
 * part of the public interface (tngrt.h).
 */
#ifndef TNGRT_INTERNAL_H
#define TNGRT_INTERNAL_H

#include "tngrt.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Formats "path: message" into err (just the message when path is NULL);
 * err may be NULL. */
void tngrt__fail(TngrtError *err, const char *path, const char *fmt, ...);
/* Opens path for reading, refusing anything but a regular file without
 * blocking (opened with O_NONBLOCK, which is cleared once fstat says the
 * file is regular: a FIFO or a device is "not a regular file"); returns
 * the fd (close-on-exec), or -1 with err naming the file. */
int tngrt__open_read(const char *path, TngrtError *err);
/* Reads the whole regular file open at fd into a malloc'd buffer (*len
 * bytes; path names it in messages); returns 0, or -1 with err. */
int tngrt__read_fd(int fd, const char *path, unsigned char **buf, size_t *len, TngrtError *err);
/* Reads the whole regular file at path (tngrt__open_read, then
 * tngrt__read_fd); returns 0, or -1 with err naming the file. */
int tngrt__read_file(const char *path, unsigned char **buf, size_t *len, TngrtError *err);

/* Creates a new temporary file for path in path's directory, named
 * "<path>.tmp.<12 random characters of [A-Za-z0-9]>" (path's base name cut
 * to 200 bytes), with O_CREAT | O_EXCL | O_NOFOLLOW (never through a link
 * someone planted: a name that exists is drawn again) and mode 0666 less
 * the umask; its name goes into tmp (cap bytes: strlen(path) +
 * TNGRT_TEMP_EXTRA suffice). Returns the fd (close-on-exec), or -1 with
 * err naming path. */
int tngrt__create_temp(const char *path, char *tmp, size_t cap, TngrtError *err);

/* Writes a new temporary file for path (tngrt__create_temp; its name in
 * tmp): put(ctx, f) writes the contents. Returns 0 when put returned 0
 * and every write succeeded, the file left for the caller to rename or
 * remove; otherwise -1 with err, the file removed. */
int tngrt__write_temp(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                      char *tmp, size_t cap, TngrtError *err);

/* Writes path atomically: tngrt__write_temp, then the temporary renamed
 * into place (tngrt_files_install); on a failure it is removed and path
 * is as it was. Returns 0, or -1 with err naming path. */
int tngrt__write_atomic(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                        TngrtError *err);

/* The dtypes tngrt__npy_parse accepts: every one (tngrt_npy_read); '<u2'
 * as bf16 bit patterns only (tngrt_npy_read_bf16); '<u2' bits or '<f4'
 * rounded, into bf16; '<f2' or '<f4' rounded, into f16
 * (tngrt_npy_read_as). */
#define TNGRT__NPY_ANY 0
#define TNGRT__NPY_BF16_BITS 1
#define TNGRT__NPY_BF16 2
#define TNGRT__NPY_F16 3

/* npy.c: parses the len bytes at buf as a .npy file (what
 * tngrt_npy_read does once the file is read; path names it in messages;
 * mode one of TNGRT__NPY_*) into a new tensor in *out; returns 0, or -1
 * with err. */
int tngrt__npy_parse(const unsigned char *buf, size_t len, const char *path, int mode,
                     TngrtTensor **out, TngrtError *err);

/* safetensors.c: the index (file order) of the tensor named name in
 * self, or -1; O(log n) in the number of tensors. */
int tngrt__safetensors_index(const TngrtSafetensors *self, const char *name);

/* safetensors.c: a TngrtSafetensors the other weights readers (torch.c)
 * fill: a fresh one named path; its file mapped read-only (or read whole
 * where it cannot be), the bytes in *bytes, *len; or len bytes the caller
 * keeps (borrow). add_view appends a tensor name[0..name_len) of dtype and
 * shape whose bytes are at data, taking own (a private block data points
 * into, or NULL; freed with self, or at once on failure); finish sorts the
 * names and refuses duplicates. Each returns 0, or -1 with err. */
TngrtSafetensors *tngrt__st_new(const char *path, TngrtError *err);
int tngrt__st_map(TngrtSafetensors *self, const unsigned char **bytes, size_t *len,
                  TngrtError *err);
void tngrt__st_borrow(TngrtSafetensors *self, const void *data, size_t len);
int tngrt__st_add_view(TngrtSafetensors *self, const char *name, size_t name_len,
                       TngrtDType dtype, int ndim, const int64_t *shape, const void *data,
                       void *own, TngrtError *err);
int tngrt__st_finish(TngrtSafetensors *self, TngrtError *err);

/* blocks.c: a bundle's long-lived blocks (weights, packings, arena). */
typedef struct {
    void *raw;        /* what free (maplen 0) or munmap (maplen bytes) takes */
    size_t maplen;
} TngrtBlock;
/* The alignment of every block, and the size from which a block may be a
 * huge-page-backed mapping of its own; the largest block (keeps size
 * arithmetic far from overflow). */
#define TNGRT_BLOCK_ALIGN 64
#define TNGRT_BLOCK_HUGE ((uint64_t)2 << 20)
#define TNGRT_BLOCK_MAX ((uint64_t)PTRDIFF_MAX / 2)
/* Whether transparent huge pages can back an advised anonymous mapping
 * here (the kernel's setting is "always" or "madvise") and the
 * environment's TNGRT_HUGEPAGES is not "0". Reads the setting each call. */
int tngrt__huge_pages(void);
/* A block of at least bytes, TNGRT_BLOCK_ALIGN-aligned, described in *b;
 * zeroed when zero is set, and from TNGRT_BLOCK_HUGE bytes with huge set a
 * 2 MiB-aligned anonymous mapping advised MADV_HUGEPAGE (always zero).
 * NULL (and *b empty) when memory runs out or bytes > TNGRT_BLOCK_MAX. */
void *tngrt__block_alloc(TngrtBlock *b, uint64_t bytes, int zero, int huge);
/* Frees the block *b describes (empty: nothing) and empties *b. */
void tngrt__block_free(TngrtBlock *b);
/* A mapping whose start is 2 MiB-aligned, advised MADV_HUGEPAGE: the
 * len bytes (len >= 1) of the file open at fd read-only (file offset and
 * address then agree modulo 2 MiB, which a 2 MiB page of its page cache
 * needs), or, fd -1, a zeroed private read-write one of len rounded up to
 * 2 MiB. An inaccessible reservation 2 MiB longer is mapped, the mapping
 * placed over its first aligned byte, the reservation's ends unmapped.
 * *maplen is what munmap takes; NULL where any mmap fails or the system
 * has no MADV_HUGEPAGE. */
void *tngrt__map_huge(int fd, size_t len, size_t *maplen);

/* poll.c: one poll's back-off (the CPU's spin-wait hint, or a yield of
 * the core where there is none); how long pollers spin before they sleep,
 * in ns (TNGRT_SPIN_US when it is 0 .. 100000 microseconds, else 50 us);
 * the CPUs of the process's affinity set (0 where that is unknown). */
void tngrt__pause(void);
uint64_t tngrt__spin_ns(void);
int tngrt__cpu_count(void);

/* par.c: the fork-join pool of the large products (see there). */
typedef struct TngrtPar TngrtPar;
/* A pool of nthreads threads, the caller included (workers start at its
 * first job); NULL when nthreads < 2 or memory runs out. */
TngrtPar *tngrt__par_new(int nthreads);
/* Stops and joins the workers and frees p (NULL: nothing). */
void tngrt__par_delete(TngrtPar *p);
/* The threads p runs, the caller included (1 when p is NULL). */
int tngrt__par_threads(const TngrtPar *p);
/* TNGRT_THREADS when it is 1 .. 256, else the CPUs of the affinity set. */
int tngrt__threads_env(void);
/* Makes p (NULL: none) the calling thread's current pool; returns the
 * previous one, for the caller to restore. */
TngrtPar *tngrt__par_enter(TngrtPar *p);
/* The calling thread's current pool, or NULL. */
TngrtPar *tngrt__par_current(void);
/* Guests: n threads besides p's workers that run p's tasks while they
 * wait (a bundle's stream workers, exec.c); p then starts n fewer workers
 * of its own (none below 0), and calls poke(ctx) after publishing each
 * job, to wake guests asleep. Called before p's first job (later: no
 * effect). */
void tngrt__par_set_guests(TngrtPar *p, int n, void (*poke)(void *ctx), void *ctx);
/* Whether p (NULL: none) has a job with tasks no thread has claimed. */
int tngrt__par_has_work(const TngrtPar *p);
/* A guest's call: runs tasks of p's current job until none is left to
 * claim; 1 if p had one. */
int tngrt__par_help(TngrtPar *p);
/* exec.c: the executor's workers become guests of p (the bundle's pool),
 * when it has any; x must be deleted before p. */
struct TngrtExec;
void tngrt__exec_set_pool(struct TngrtExec *x, TngrtPar *p);
/* Runs fn(ctx, t) for t < ntasks, on p's threads and the caller's, and
 * returns when all are done; serially on the caller when p is NULL or
 * already running a job. Tasks must not depend on one another. */
void tngrt__par_for(TngrtPar *p, int ntasks, void (*fn)(void *ctx, int task), void *ctx);

/* Split or not, chosen per call site by timing (tngrt__par_for_timed): a
 * site keeps a running average of its calls' times on each arm (split,
 * and on the caller alone), each new time weighing 1/TNGRT_PAR_WEIGHT
 * and clipped to TNGRT_PAR_CLAMP times the average (a call preempted for
 * milliseconds moves it little), starting from the least of the arm's
 * first TNGRT_PAR_FIRST times (a site's first call pays for cold caches,
 * a weight's first page faults and a worker's wake-up: measured 175-187
 * us for a split GEMV whose later calls took 49-80, which as the average's
 * start kept the split off for hundreds of calls); it runs TNGRT_PAR_FIRST calls on each
 * arm (alternating, split first), then the arm whose average is lower
 * (the split only when lower by more than 1/TNGRT_PAR_MARGIN), except
 * every TNGRT_PAR_EXPLORE-th call, which runs the other arm so that its
 * average follows the machine's load. Either way the same tasks run the
 * same code, so the bits do not depend on the choice. */
#define TNGRT_PAR_FIRST 2
#define TNGRT_PAR_WEIGHT 8
#define TNGRT_PAR_CLAMP 4
#define TNGRT_PAR_MARGIN 32
#define TNGRT_PAR_EXPLORE 16
typedef struct TngrtParPick {
    uint64_t key;        /* the call site's (0: a free entry) */
    uint32_t calls;      /* calls recorded */
    uint8_t n[2];        /* calls recorded on the caller [0], split [1] (to 255) */
    uint64_t avg[2];     /* their running averages, ns */
} TngrtParPick;
/* The arm of e's next call: 1 split, 0 on the caller. */
int tngrt__pick_arm(const TngrtParPick *e);
/* Records a call of e on arm that took ns. */
void tngrt__pick_record(TngrtParPick *e, int arm, uint64_t ns);
/* tngrt__par_for, or fn's tasks in order on the caller, as the timed
 * choice of call site key (e.g. a product's kind and sizes) says; the
 * environment's TNGRT_SPLIT=0 or 1 forces one (read when p is made). */
void tngrt__par_for_timed(TngrtPar *p, uint64_t key, int ntasks,
                          void (*fn)(void *ctx, int task), void *ctx);
/* How a few-row product's n columns are cut into tasks of whole groups
 * of `group` columns: at most per_thread tasks per thread, *cols columns
 * each, the last task also taking the columns past the last whole group.
 * Returns the number of tasks (1 when n holds fewer than two groups). */
int64_t tngrt__par_cut(int64_t n, int64_t group, int64_t threads, int64_t per_thread,
                       int64_t *cols);
/* A call site's key for tngrt__par_for_timed: site (a kernel's own
 * number: TNGRT_PAR_SITE_*) and the product's sizes mixed into 64 bits
 * (two sites or sizes may share a key: that shares a choice, never
 * changes a result). */
#define TNGRT_PAR_SITE_F16 1
#define TNGRT_PAR_SITE_BF16 2
#define TNGRT_PAR_SITE_F32 3
#define TNGRT_PAR_SITE_F32_STREAM 4
uint64_t tngrt__par_key(int site, int64_t m, int64_t n, int64_t k);

/* kernels_conv.c: tngrt_kernel_conv_epi's direct kernel (tngrt_kernel_conv
 * tries it first, epi NULL); 0 when it does not take the convolution or
 * its scratch cannot be allocated (out untouched). */
struct TngrtArg;
struct TngrtConvEpi;
int tngrt__conv_direct(const struct TngrtArg *out, const struct TngrtArg *x,
                       const struct TngrtArg *w, const struct TngrtArg *bias, int ns, int64_t sh, int64_t sw, int64_t ph,
                       int64_t pw, int64_t ph1, int64_t pw1, int64_t dh, int64_t dw,
                       int64_t groups, const struct TngrtConvEpi *epi);

/* kernels_gemm.c, kernels_gemm_half.c: a product of fewer than 8 rows
 * (decode's GEMV, bound by reading B) whose B has at least this many
 * bytes is split over the current pool's threads by columns of C (rows of
 * a weight): a half B read in place from TNGRT_GEMM_PAR_GEMV_BYTES, a
 * float32 B packed at load (its split has more tasks, by 32-column
 * panels) from TNGRT_GEMM_PAR_GEMV_F32_BYTES; at most
 * TNGRT_GEMM_PAR_GEMV_TASKS tasks per thread for the half one, where
 * timing says a split pays (tngrt__par_for_timed below). Smaller ones run
 * on the caller, where the hand-off costs more than the second core's
 * reads give. Measured on the 2-core machine of BENCHMARKS.md
 * ("Decode on two threads", best of 15 passes over 256 MB of weights, at
 * load average 6-7): float16 0.52 MB 1.02x, 1.05 MB 1.70x; float32
 * packed 1.05 MB 0.94x, 2.1 MB 1.78x. */
#define TNGRT_GEMM_PAR_GEMV_BYTES 786432.0
#define TNGRT_GEMM_PAR_GEMV_F32_BYTES 1572864.0
#define TNGRT_GEMM_PAR_GEMV_TASKS 2
/* The float32 GEMM's floor for splitting a product (kernels_gemm.c). */
#define TNGRT_GEMM_PAR_FLOP 8388608.0

/* kernels_gemm.c: the columns of B the per-call packings (float32 and
 * bfloat16 pairs) pack at a time per thread take about this many bytes (a
 * group stays in L2 while every row of A runs over it). */
#define TNGRT_GEMM_GROUP_BYTES ((int64_t)256 << 10)

/* kernels_gemm.c: the tasks a per-call packing's product of m x n x k is
 * cut into on pool p (whole 32-column panels; 1: on the caller). */
int64_t tngrt__gemm_tasks(TngrtPar *p, int64_t m, int64_t n, int64_t k);

/* kernels_gemm.c: a per-call packing's cut of an m x n x k product on pool
 * p, B's columns taking col_bytes each once packed: ntasks tasks of cols
 * columns (whole panels; the last may hold fewer), each packing group
 * columns at a time (whole panels, about TNGRT_GEMM_GROUP_BYTES, at most
 * cols). */
typedef struct TngrtGemmPackSplit {
    int64_t cols, ntasks, group;
} TngrtGemmPackSplit;
TngrtGemmPackSplit tngrt__gemm_pack_split(TngrtPar *p, int64_t m, int64_t n, int64_t k,
                                          int64_t col_bytes);

/* kernels_gemm.c, one clone per ISA (kernels_isa.h): x's elements read
 * through element strides st, widened to float32 into the dense f; and n
 * float32 values f rounded into the half out (tngrt_impl__narrow's bits). */
struct TngrtArg;
void tngrt__gemm_widen_rows(float *f, const struct TngrtArg *x, const int64_t *st);
void tngrt__gemm_narrow(const struct TngrtArg *out, const float *f, int64_t n);

/* kernels_gemm.c: a 16 x 32 tile of dwords transposed with AVX-512: rows
 * s, s + cs, ... (cs in dwords; 32 rows of 16 dwords) as 16 rows of 32
 * at d, 32 apart. Returns 0, with nothing written, where AVX-512 does not
 * run. */
int tngrt__gemm_pack_tile32(uint32_t *d, const void *s, int64_t cs);

/* kernels_gemm.c: epi with its tensor operands moved to column p0, in *e
 * (epi NULL: NULL). */
struct TngrtGemmEpi;
const struct TngrtGemmEpi *tngrt__gemm_epi_at(const struct TngrtGemmEpi *epi, int64_t p0,
                                             struct TngrtGemmEpi *e);

/* kernels_gemm.c: the tile epilogue of tngrt_gemm_f32_epi (the widest
 * ISA's): the mr x nc tile t (rows 32 floats apart) of output rows i0..,
 * columns j0.. through epi's steps, stored to c (ldc apart). */
void tngrt__gemm_epi_tile(const struct TngrtGemmEpi *epi, int64_t i0, int64_t j0, int mr, int nc,
                          float *t, float *c, int64_t ldc);

/* kernels_gemm.c: epi's steps (tngrt_kernels.h) over the finished float32
 * product lin [m, n] (dense) into dst [m, n], a row of one panel at a
 * time through the tile store of tngrt_gemm_f32_epi: the bits of the fused
 * GEMM's epilogue (kernels_linear.c's fallback). */
void tngrt__gemm_epi_apply(const struct TngrtGemmEpi *epi, int64_t m, int64_t n, const float *lin,
                           float *dst);

#endif
