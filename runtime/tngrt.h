/*
 * tngrt.h - public interface of libtngcrt, the runtime that generated model
 * bundles link: tensors, .npy files and safetensors files.
 *
 * Discipline (after tree-sitter's lib/src): names are
 * tngrt_<module>_<verb>, the object comes first, *_new / *_delete pair up,
 * no function exits or prints, there is no mutable global state, and every
 * fallible function returns 0 on success or -1 with a message in a
 * TngrtError naming the file or object at fault.
 */
#ifndef TNGRT_H
#define TNGRT_H

#include <stddef.h>
#include <stdint.h>

/* The most dimensions a tensor may have. */
#define TNGRT_MAX_DIMS 8

/* The most bytes of one tensor a bundle handles (2^48, the compiler's
 * limit, ir/graph.h): every dim is at most this, and so is the
 * product of the dims, each counted as at least 1 (an empty tensor cannot
 * hide a huge dim), times the element size. Below it, nothing computed
 * from sizes (a stride, an index times a stride, a sum of two sizes)
 * overflows int64. */
#define TNGRT_MAX_BYTES ((int64_t)1 << 48)

/* What a failing call found at fault. */
typedef enum TngrtErrorKind {
    TNGRT_ERR_FAILURE,     /* the runtime or a kernel failed (out of memory, an I/O error, ...) */
    TNGRT_ERR_BAD_INPUT,   /* the data given is invalid, e.g. an embedding id out of range */
} TngrtErrorKind;

/* An error message filled by a failing call (always NUL-terminated). */
typedef struct TngrtError {
    char msg[256];         /* what went wrong, naming the file or object */
    TngrtErrorKind kind;   /* set with msg */
} TngrtError;

/* The status of a call that tells bad input from a failure
 * (tngrt_bundle_run): 0, TNGRT_FAILED or TNGRT_BAD_INPUT. */
enum {
    TNGRT_FAILED = -1,      /* TNGRT_ERR_FAILURE */
    TNGRT_BAD_INPUT = -2,   /* TNGRT_ERR_BAD_INPUT */
};

/* Prefixes err's message with the location of the failing operation,
 * "<file>:<line>: " (its kind is kept; err may be NULL); returns
 * TNGRT_FAILED, for generated code to return. */
int tngrt_error_at(TngrtError *err, const char *file, unsigned line);

/* The element types of tensors. */
typedef enum TngrtDType {
    TNGRT_F32,    /* IEEE binary32 */
    TNGRT_F16,    /* IEEE binary16 */
    TNGRT_BF16,   /* bfloat16 (no numpy dtype) */
    TNGRT_I8,     /* signed 8-bit integer */
    TNGRT_I32,    /* signed 32-bit integer */
    TNGRT_I64,    /* signed 64-bit integer */
    TNGRT_BOOL,   /* one byte, 0 or 1 */
    TNGRT_DTYPE_COUNT   /* number of dtypes, not a dtype */
} TngrtDType;

/* A dense C-order tensor; strides are in elements. */
typedef struct TngrtTensor {
    TngrtDType dtype;                  /* element type */
    int ndim;                          /* 0 .. TNGRT_MAX_DIMS */
    int64_t shape[TNGRT_MAX_DIMS];     /* extents, each >= 0 */
    int64_t strides[TNGRT_MAX_DIMS];   /* element strides, C order */
    void *data;                        /* nbytes of elements */
    size_t nbytes;                     /* numel * dtype size */
    int owns;                          /* 1 when tngrt_tensor_delete frees data */
} TngrtTensor;

/* Returns the size in bytes of one element of dtype (0 when invalid). */
size_t tngrt_dtype_size(TngrtDType dtype);

/* Returns the name of dtype ("f32", "bf16", ...; "?" when invalid). */
const char *tngrt_dtype_name(TngrtDType dtype);

/* Allocates a tensor with zeroed data; returns NULL and fills err when
 * ndim or the shape is invalid, the size overflows, or memory runs out. */
TngrtTensor *tngrt_tensor_new(TngrtDType dtype, int ndim,
                              const int64_t *shape, TngrtError *err);

/* Frees self and, when it owns them, its data; NULL is accepted. */
void tngrt_tensor_delete(TngrtTensor *self);

/* Returns the number of elements of self (1 for a 0-d tensor). */
int64_t tngrt_tensor_numel(const TngrtTensor *self);

/* Checks a shape and computes its byte size for dtype without overflow;
 * returns 0, or -1 with a message (prefixed by what) in err. */
int tngrt_shape_nbytes(TngrtDType dtype, int ndim, const int64_t *shape,
                       size_t *nbytes_out, const char *what, TngrtError *err);

/* Fills the C-order element strides of self from its shape. */
void tngrt_tensor_set_strides(TngrtTensor *self);

/* Reads a .npy file (format 1.0, 2.0 or 3.0, little-endian, C order)
 * into a new tensor in *out; returns 0, or -1 with a message in err. Only
 * a regular file is read (a FIFO or a device is refused without blocking),
 * as by every reader of libtngcrt. */
int tngrt_npy_read(const char *path, TngrtTensor **out, TngrtError *err);

/* Reads a .npy file of dtype '<u2' holding bfloat16 bit patterns (what
 * tngrt_npy_write writes for bf16: numpy has no bfloat16) into a new bf16
 * tensor in *out; any other dtype is refused. Returns 0, or -1 with a
 * message in err. */
int tngrt_npy_read_bf16(const char *path, TngrtTensor **out, TngrtError *err);

/* Reads a .npy file for a tensor of dtype into a new tensor in *out. For
 * bf16: a '<u2' .npy of bfloat16 bit patterns, or a '<f4' .npy rounded
 * (tngrt_half_from_f32); for f16: a '<f2' .npy, or a '<f4' .npy rounded;
 * any other descr is refused with a message naming the two accepted. For
 * any other dtype, as tngrt_npy_read (the dtype read is not checked).
 * Returns 0, or -1 with a message in err. */
int tngrt_npy_read_as(const char *path, TngrtDType dtype, TngrtTensor **out, TngrtError *err);

/* Rounds src[0..n) to dtype (TNGRT_BF16 or TNGRT_F16; nothing is written
 * for another) into dst as torch's .to(torch.bfloat16) / .to(torch.float16)
 * do: to nearest, ties to even, subnormals included; a value past the
 * largest finite one rounds to inf; NaN stays a quiet NaN of its sign. */
void tngrt_half_from_f32(TngrtDType dtype, const float *src, uint16_t *dst, size_t n);

/* Widens src[0..n) of dtype (TNGRT_BF16 or TNGRT_F16; nothing is written
 * for another) into dst exactly, as torch's .float() does. */
void tngrt_half_to_f32(TngrtDType dtype, const uint16_t *src, float *dst, size_t n);

/* Bytes a temporary file's name needs beyond the length of the path it
 * stands for, the terminating NUL included (tngrt_npy_write_temp). */
#define TNGRT_TEMP_EXTRA 24

/* Writes t as a .npy file (format 1.0) atomically through a temporary
 * file renamed into place (as tngrt_npy_write_temp makes it); returns 0,
 * or -1 with a message in err, path unchanged. numpy has no bfloat16: a
 * bf16 tensor is written as its uint16 bit patterns (descr '<u2';
 * (bits << 16) viewed as float32 gives the values). */
int tngrt_npy_write(const char *path, const TngrtTensor *t, TngrtError *err);

/* Writes t as tngrt_npy_write does, into a new temporary file for path
 * and leaves it there for the caller to rename into place
 * (tngrt_files_install) or remove. The temporary is created in path's
 * directory with O_CREAT | O_EXCL | O_NOFOLLOW (never through a link
 * planted at its name) under an unpredictable name, "<path>.tmp.<12
 * random characters of [A-Za-z0-9]>" (path's base name cut to 200
 * bytes), mode 0666 less the umask; the name goes into tmp (cap bytes;
 * strlen(path) + TNGRT_TEMP_EXTRA suffice). Returns 0, or -1 with a
 * message in err (no file is left then). */
int tngrt_npy_write_temp(const char *path, const TngrtTensor *t, char *tmp, size_t cap,
                         TngrtError *err);

/* Renames the n temporary files tmp[i] onto dst[i], all or nothing. Every
 * destination is checked before the first rename: it must not be a
 * directory, its directory must exist, its temporary must be a regular
 * file, and no two may name the same file. A destination that exists
 * keeps a second name ("<dst>.old.<random>", a hard link where the file
 * system has them) until every rename is done; when a rename fails, the
 * ones done are undone (the files replaced renamed back, the new ones
 * removed). Returns 0, or -1 with a message in err naming the destination
 * at fault; the temporaries not renamed are left to the caller. */
int tngrt_files_install(char *const *tmp, char *const *dst, int n, TngrtError *err);

/* An open safetensors file: its bytes (mapped, read, or the caller's) and
 * its tensor index. */
typedef struct TngrtSafetensors TngrtSafetensors;

/* Maps (read-only; a file that cannot be mapped is read whole) and
 * validates the safetensors file at path into *out; returns 0, or -1 with
 * a message in err. Only a regular file is read (a FIFO or a device is
 * refused without blocking); the header's checks take O(log n) work per
 * byte (duplicates and overlaps are found by sorting). As the format requires, the tensors must cover the
 * data buffer exactly: trailing bytes after the last tensor's data and
 * bytes no tensor uses are refused, as are overlaps. A file changed while
 * mapped changes the views' bytes (truncating it makes them fault):
 * replace weights files by renaming, as writers do. */
int tngrt_safetensors_open(const char *path, TngrtSafetensors **out,
                           TngrtError *err);

/* Validates the len bytes at data as a safetensors file, as
 * tngrt_safetensors_open does, without copying them: views point into
 * data, which the caller keeps alive and unchanged until
 * tngrt_safetensors_close. name is used in messages ("<memory>" for
 * NULL). */
int tngrt_safetensors_open_memory(const void *data, size_t len, const char *name,
                                  TngrtSafetensors **out, TngrtError *err);

/* Whether self's bytes are a mapping of its file (not a copy or the
 * caller's memory). */
int tngrt_safetensors_mapped(const TngrtSafetensors *self);

/* Tells the kernel that the bytes [data, data + n) of a mapped self are
 * not needed soon (MADV_DONTNEED on the whole pages inside): its resident
 * memory shrinks, and a later read faults the file's bytes back in, so
 * views stay valid. Does nothing when self is not mapped or the range is
 * not inside it. */
void tngrt_safetensors_drop(const TngrtSafetensors *self, const void *data, size_t n);

/* Faults the bytes [data, data + n) of a mapped self into this process
 * now (MADV_POPULATE_READ, else a read per page), so that a load is
 * complete when it returns and the first run pays no page faults. Does
 * nothing when self is not mapped or the range is not inside it. */
void tngrt_safetensors_populate(const TngrtSafetensors *self, const void *data, size_t n);

/* Fills *view_out with a non-owning view of tensor name (its data points
 * into self, valid until tngrt_safetensors_close); returns 0, or -1 with a
 * message in err when there is no such tensor. A binary search of the
 * names, sorted when the file was opened: O(log n) comparisons. The data may be unaligned
 * (it starts at 8 + N + begin in the file): copy it before typed access. */
int tngrt_safetensors_find(const TngrtSafetensors *self, const char *name,
                           TngrtTensor *view_out, TngrtError *err);

/* Returns the number of tensors in self (the metadata entry excluded). */
int tngrt_safetensors_count(const TngrtSafetensors *self);

/* Returns the name of tensor i of self in file order, or NULL when i is
 * out of range. */
const char *tngrt_safetensors_name(const TngrtSafetensors *self, int i);

/* Frees self and the file bytes every view points into; NULL is accepted. */
void tngrt_safetensors_close(TngrtSafetensors *self);

/* Opens a sharded safetensors file through its index at path
 * ("model.safetensors.index.json": {"weight_map": {"<tensor>":
 * "<shard>", ...}}, other keys ignored) into *out, read through the calls
 * above as one file. Each shard must be a plain file name in the index's
 * folder (no '/', no leading '.'), is opened once (tngrt_safetensors_open,
 * all its checks), and must hold exactly the tensors the index maps to
 * it. Returns 0, or -1 with a message in err. */
int tngrt_safetensors_open_index(const char *path, TngrtSafetensors **out, TngrtError *err);

/* Opens a torch.save file (a zip archive of data.pkl and its storages,
 * what torch.save(model.state_dict(), path) writes since PyTorch 1.6)
 * into *out, read through the tngrt_safetensors_* calls: its tensors are
 * the state dict's, in its order. The zip's entries must be stored (not
 * compressed), within the file, named sanely and consistent with their
 * local headers; the pickle is interpreted, never executed, by a machine
 * that knows only what a state dict uses (an OrderedDict of tensors built
 * by torch._utils._rebuild_tensor_v2 over typed storages) and refuses
 * anything else naming what it found. Contiguous tensors are viewed in
 * the mapped file; other views of a storage are copied contiguous (at
 * most the file's size in all). Returns 0, or -1 with a message in err. */
int tngrt_torch_open(const char *path, TngrtSafetensors **out, TngrtError *err);

/* tngrt_torch_open on the len bytes at data, which the caller keeps alive
 * and unchanged until tngrt_safetensors_close (name is used in messages;
 * "<memory>" for NULL). */
int tngrt_torch_open_memory(const void *data, size_t len, const char *name,
                            TngrtSafetensors **out, TngrtError *err);

/* Opens a weights file of any format libtngcrt reads, told by its
 * content: a torch.save zip (tngrt_torch_open), a safetensors index
 * (JSON: tngrt_safetensors_open_index) or a safetensors file. Returns 0,
 * or -1 with a message in err. */
int tngrt_weights_open(const char *path, TngrtSafetensors **out, TngrtError *err);

/* tngrt_weights_open on bytes the caller holds: a torch.save zip or a
 * safetensors file (an index names files: not from memory). */
int tngrt_weights_open_memory(const void *data, size_t len, const char *name,
                              TngrtSafetensors **out, TngrtError *err);

#endif
