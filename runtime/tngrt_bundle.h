/*
 * tngrt_bundle.h - the generic half of a model bundle.
 *
 * `tngc gen` writes, for one compiled entry, a constant TngrtBundleDesc
 * (the signature, the gears, and per gear one straight-line function per
 * stream) plus thin named wrappers (<name>_create, ...) over the functions
 * below, which do everything that does not depend on the model: weight
 * loading, input checking, gear selection, memory, running the streams on
 * the executor, and the outputs.
 *
 * Memory: one arena, allocated by tngrt_bundle_new with the largest static
 * gear's size (64-byte aligned) and grown only for dynamic gears whose
 * size is known at run time. Inputs are used in place (the caller's
 * buffers: in-place updates of an input, e.g. a KV cache, write into
 * them); weights and buffers live in storage the bundle owns.
 *
 * Errors: every fallible call returns 0, or -1 (tngrt_bundle_run: -1 or
 * -2, TNGRT_FAILED or TNGRT_BAD_INPUT) and keeps a one-line message
 * readable with tngrt_bundle_last_error until the next call.
 *
 * Threads: stream 0's large products (Linear, matmul, bmm, convolution
 * past the GEMM's floor, and decode's GEMVs where timing says a split
 * pays) run on a pool of TNGRT_THREADS threads (environment, read by
 * tngrt_bundle_new; by default one per CPU of the process's affinity set;
 * 1: none), the caller's included, started at the first such product and
 * stopped by tngrt_bundle_delete (runtime/par.c). The workers of a
 * bundle's other streams count among them: they run the pool's tasks
 * while they wait, and the pool starts that many fewer threads, so that
 * a bundle runs TNGRT_THREADS threads in all unless it has more streams.
 * Results do not depend on the number of threads.
 *
 * Process-wide side effects: tngrt_bundle_new calls
 * openblas_set_num_threads(1), so that OpenBLAS (left for a few products)
 * runs on the caller's thread and the bundle's own threads are the only
 * compute threads, and, where OpenBLAS is its pthread build, stops the
 * threads that build starts when it is loaded (blas_thread_shutdown_):
 * they poll for work for about 0.1 s after they start, on the cores the
 * bundle's threads need (measured: the LLaMA example's decode at hidden
 * 512 in float16 on two threads took 4.3-4.6 ms a token in most launcher
 * runs while OpenBLAS's thread polled, 2.5-3.0 ms with it stopped). Both
 * apply to every BLAS call of the process from then on; OpenBLAS computes
 * on the calling thread after them. A program linked with libtngcrt_core
 * (no CPU kernels, no OpenBLAS: ACL programs) has no such call.
 */
#ifndef TNGRT_BUNDLE_H
#define TNGRT_BUNDLE_H

#include "tngrt.h"
#include "tngrt_exec.h"

/* A dim of a signature tensor: a constant (sym -1), a symbol, or (outputs
 * only, sym -2) an expression of symbols, e.g. s0*2, whose value a run's
 * output shape gives. */
typedef struct TngrtDim {
    int sym;              /* index into TngrtBundleDesc.syms, -1 or -2 */
    int64_t value;        /* the constant (sym == -1) */
} TngrtDim;

/* An input, output or weight of the bundle. */
typedef struct TngrtSigTensor {
    /* input: parameter path; weight: state_dict key; output: "out0",
     * "out1", ... or, for an entry returning a dict, named tuple or
     * dataclass, its key ("logits"; tngc allows 1..64 of [A-Za-z0-9_.-],
     * not starting with '.') */
    const char *name;
    TngrtDType dtype;
    int ndim;
    const TngrtDim *dims; /* ndim entries (outputs: informational) */
    int flags;            /* TNGRT_SIG_* */
} TngrtSigTensor;

enum {
    TNGRT_SIG_UPDATED = 1,  /* input or buffer updated in place by a run */
    TNGRT_SIG_BUFFER  = 2,  /* weight registered with register_buffer */
    TNGRT_SIG_PACK_LINEAR = 4,  /* 2-D weight [n, k] read as a Linear's W: packed at load */
    TNGRT_SIG_SHARED = 8,   /* state shared with another entry's bundle (TngrtStateShare) */
    TNGRT_SIG_ZEROS = 16,   /* state whose first value is zeros: a weights file may leave it out */
    TNGRT_SIG_PACK_Q8 = 32, /* 2-D int8 weight [k, n] of npu_weight_quant_batchmatmul: packed at load */
};

/* A dynamic dim: which input dim binds it, and whether padding it up to a
 * larger gear leaves the valid rows of every output unchanged. */
typedef struct TngrtSym {
    const char *name;     /* "s0" */
    int input, dim;
    int pad_ok;           /* the planner proved it row-independent */
} TngrtSym;

/* What the generated stream functions read: TngrtBundle passes it as the
 * executor's arg. */
typedef struct TngrtRunCtx {
    unsigned char *arena;
    void *const *in;      /* input data, per TngrtBundleDesc.inputs */
    void *const *w;       /* weight data, per TngrtBundleDesc.weights */
    const int64_t *sym;   /* symbol values of this run */
    const int64_t *off;   /* dynamic gears: arena offsets from gear.layout */
    const float *const *wpack;  /* per weight: its TNGRT_SIG_PACK_LINEAR packing (or, int8 bytes,
                                 * its TNGRT_SIG_PACK_Q8 one), or NULL */
} TngrtRunCtx;

/* One gear. */
typedef struct TngrtGear {
    const int64_t *symval;    /* nsyms values; INT64_MIN: bound from the inputs */
    int64_t arena_bytes;      /* static size, or -1: computed by layout */
    /* Gears with dims known at run time only (a symbol bound from the
     * inputs; arena_bytes == -1), called before the gear's streams: checks
     * every such shape (each tensor within TNGRT_MAX_BYTES, no dim
     * overflowing) and fills off[0..noff) and *bytes (the arena, also
     * within TNGRT_MAX_BYTES) from the symbol values; returns 0, or -1
     * when a check fails (the run returns TNGRT_BAD_INPUT). */
    int (*layout)(const int64_t *sym, int64_t *off, int64_t *bytes);
    int noff;
    const TngrtStreamFn *streams;  /* nstreams functions; NULL for a stream
                                    * s > 0 with no work in this gear */
    /* Fills outs[0..noutputs): data, dtype, ndim, shape, strides, nbytes
     * (owns 0: views of the arena, an input or a weight). */
    void (*outputs)(const TngrtRunCtx *c, TngrtTensor *outs);
} TngrtGear;

/* Another state_dict key of weight `weight` (an index into
 * TngrtBundleDesc.weights): a parameter tied to another module's, such as
 * "lm_head.weight" = "model.embed_tokens.weight". A weights file may hold
 * the weight under either key (or both: then its own key is read). */
typedef struct TngrtWeightAlias {
    const char *name;
    int weight;
} TngrtWeightAlias;

/* A weight that is state of another compiled entry too: the tensor
 * attribute that entry (traced first) keeps as its weight `name`.
 * tngrt_bundle_share_state binds it to that bundle's copy. */
typedef struct TngrtStateShare {
    int weight;           /* an index into TngrtBundleDesc.weights */
    const char *entry;    /* the other entry: "Transformer.forward" */
    const char *name;     /* its weight there: "layers.0.attention.cache_k" */
} TngrtStateShare;

typedef struct TngrtBundleDesc {
    const char *name;         /* the bundle name: "model" */
    const char *entry;        /* "Model.forward" */
    const char *script;       /* the script path as given to tngc */
    int ninputs;
    const TngrtSigTensor *inputs;
    int nweights;
    const TngrtSigTensor *weights;
    int noutputs;
    const TngrtSigTensor *outputs;
    int nsyms;
    const TngrtSym *syms;
    int ngears;
    const TngrtGear *gears;
    int nstreams;
    const char *const *stream_names;  /* "default", "1", ... */
    int nevents;
    /* other state_dict keys of weights (tied parameters); 0 and NULL when none */
    int naliases;
    const TngrtWeightAlias *aliases;
    /* state_dict keys of the module that the model never reads (BatchNorm's
     * num_batches_tracked, parameters of a submodule forward does not call):
     * a weights file may hold them; they are neither loaded nor unused
     * tensors. 0 and NULL when none */
    int nunread;
    const char *const *unread;
    /* weights that are state shared with another entry's bundle
     * (TNGRT_SIG_SHARED, one row each); 0 and NULL when none */
    int nshared;
    const TngrtStateShare *shared;
} TngrtBundleDesc;

typedef struct TngrtBundle TngrtBundle;

/* Room for a bundle's message, the NUL included (tngrt_bundle_last_error;
 * the msg of tngrt_desc_check_inputs and tngrt_desc_select): longer gear
 * lists are cut short with "...". */
#define TNGRT_BUNDLE_MSG 1024

/* Checks desc as tngrt_bundle_new does (a symbol bound by no input dim, a
 * weight with a dynamic dim, a gear without a stream 0 function, ...);
 * returns 0, or -1 with a message in err. The tngrt_desc_* calls below
 * take a descriptor that passed it. */
int tngrt_desc_check(const TngrtBundleDesc *desc, TngrtError *err);

/* tngrt_bundle_check_inputs on the descriptor alone: returns 0, or -1 with
 * the message in msg[0..len) (TNGRT_BUNDLE_MSG bytes hold every one). */
int tngrt_desc_check_inputs(const TngrtBundleDesc *desc, const TngrtTensor *inputs, int ninputs,
                            char *msg, size_t len);

/* tngrt_bundle_select on the descriptor alone: the index of the gear that
 * inputs' shapes select, its symbol values in sym[0..nsyms) (unbound ones
 * taken from the inputs), or -1 with the message in msg[0..len). */
int tngrt_desc_select(const TngrtBundleDesc *desc, const TngrtTensor *inputs, int ninputs,
                      int64_t *sym, char *msg, size_t len);

/* tngrt_bundle_gear_str on the descriptor alone. */
void tngrt_desc_gear_str(const TngrtBundleDesc *desc, int gear, char *buf, size_t len);

/* Creates a bundle of desc (which must outlive it): the arena, the weight
 * storage (zeroed until loaded) and the executor; returns 0, or -1 with a
 * message in err (also when desc is malformed: a symbol bound by no input
 * dim, a weight with a dynamic dim, a gear without a stream 0 function,
 * ...). With work on more than one stream it sets OpenBLAS to one thread
 * (see above). */
int tngrt_bundle_new(TngrtBundle **out, const TngrtBundleDesc *desc, TngrtError *err);

/* Loads every weight from the weights file at path, a safetensors file, a
 * sharded one's index or a torch.save zip (tngrt_weights_open: told by
 * content): each must exist with its dtype (no conversion) and shape;
 * returns 0, or -1 (the weights keep their previous values then). Tensors
 * of the file that are no weight are not loaded: tngrt_bundle_unused_count
 * and _name list them. The file (each shard, or the zip) is
 * mapped read-only and kept mapped until the next successful load or
 * delete: a weight whose bytes are aligned for its dtype (as in every file
 * whose writer pads the header to 8 bytes, as safetensors writers do, and
 * every contiguous tensor of a torch.save zip, whose storages are 64-byte
 * aligned) is read in place, others and weights a run updates are copied, and Linear weights are packed for the GEMM from the
 * mapping. Replace a loaded file by renaming a new one over it, never by
 * rewriting it in place (the mapping would see the change). */
int tngrt_bundle_load_weights(TngrtBundle *self, const char *path);

/* Loads every weight from the len bytes at data, a safetensors file or a
 * torch.save zip the caller holds (name is used in messages; "<memory>"
 * for NULL), with the checks and results of tngrt_bundle_load_weights. The bytes are not
 * copied: weights are read in place where aligned, so the caller keeps
 * them alive and unchanged from a successful call until the next
 * successful load or tngrt_bundle_delete (after a failed call the bundle
 * holds no pointer into them). Returns 0, or -1 with the weights as
 * before. */
int tngrt_bundle_load_weights_memory(TngrtBundle *self, const void *data, size_t len,
                                     const char *name);

/* State shared between the bundles of two compiled entries (a decode
 * step compiled beside the prefill, both writing the model's KV caches):
 * the weights of self marked TNGRT_SIG_SHARED whose entry is owner's
 * (owner->desc->entry) are bound to owner's copies, so that each bundle's
 * runs see the other's writes, as the one tensor attribute does in
 * PyTorch. Self's own copies are no longer read; the values are owner's.
 * Loading weights into either bundle afterwards sets the shared values
 * from that file. Owner must outlive self's runs (delete self first, or
 * call tngrt_bundle_own_state). Returns the number of weights bound, or -1
 * (nothing bound; tngrt_bundle_last_error says why): no weight of self is
 * shared with owner's entry, or owner's weight of that name is missing or
 * of another dtype or size. */
int tngrt_bundle_share_state(TngrtBundle *self, const TngrtBundle *owner);

/* Every TNGRT_SIG_SHARED weight of self keeps a copy of its own: the value
 * its weights file gave, updated by self's runs only (a launcher running
 * one bundle does this; the copy is unbound from any owner). Until one of
 * the two calls, tngrt_bundle_run refuses a bundle with shared state:
 * running it on a copy of its own by mistake would not see the other
 * entry's writes. */
void tngrt_bundle_own_state(TngrtBundle *self);

/* The key under which weights file st holds weight i of desc: its own
 * name, else the first of its aliases that st holds, else its own name
 * (for the message saying it is missing). */
const char *tngrt_desc_weight_key(const TngrtBundleDesc *desc, const TngrtSafetensors *st, int i);

/* Whether name is the state_dict key of a weight of desc or an alias of one. */
int tngrt_desc_is_weight_key(const TngrtBundleDesc *desc, const char *name);

/* Whether name is a state_dict key of desc's module: a weight's key, an
 * alias or an unread key (a weights file's tensor that is not unused). */
int tngrt_desc_is_state_key(const TngrtBundleDesc *desc, const char *name);

/* The number of tensors in the file of the last successful
 * tngrt_bundle_load_weights that are no weight of the model (0 before). */
int tngrt_bundle_unused_count(const TngrtBundle *self);

/* The name of unused tensor i (file order), valid until the next
 * successful load or delete; NULL when i is out of range. */
const char *tngrt_bundle_unused_name(const TngrtBundle *self, int i);

/* Runs the entry on inputs[0..ninputs) (dense C-order tensors of the
 * signature's dtypes and ranks), choosing the gear whose shapes match;
 * fills outputs[0..noutputs) with views valid until the next run or
 * delete. Returns 0; TNGRT_BAD_INPUT (-2) when the inputs are at fault: a
 * wrong dtype or rank, a shape in no gear (the message lists the gears),
 * an input or a tensor the run would compute past TNGRT_MAX_BYTES (2^48
 * bytes, counting 0 dims as 1), or values a kernel refuses (an embedding
 * id out of range; the message starts with the op's "script:line: " where
 * the generated code passes it); TNGRT_FAILED (-1) for the rest: a wrong
 * count of inputs or outputs, out of memory, a kernel's failure. */
int tngrt_bundle_run(TngrtBundle *self, const TngrtTensor *inputs, int ninputs,
                     TngrtTensor *outputs, int noutputs);

/* The gear the last successful run used (-1 before the first). */
int tngrt_bundle_last_gear(const TngrtBundle *self);

/* Index of the gear that inputs' shapes select, or -1 with a message
 * listing the gears (no run). Gears are tried in order, the first match
 * wins; a symbol a gear leaves unbound (INT64_MIN) takes the size of the
 * first input dim that uses it, and later uses must agree. */
int tngrt_bundle_select(TngrtBundle *self, const TngrtTensor *inputs, int ninputs);

/* Checks what does not depend on the gear: the input count, each input's
 * dtype and rank, its constant dims, that it is dense C-order (nbytes
 * matching the shape, data non-NULL when nbytes > 0). Returns 0, or -1 with
 * a message naming the input. tngrt_bundle_select and _run do the same
 * checks first; a launcher calls this to tell a bad input from a shape in
 * no gear (which --pad may fix). */
int tngrt_bundle_check_inputs(TngrtBundle *self, const TngrtTensor *inputs, int ninputs);

/* Writes "s0=4 s1=2" (the gear's symbol values, "s0=?" for a symbol the
 * gear leaves unbound; "all static" when the entry has no symbols) into
 * buf (NUL-terminated, truncated to len). */
void tngrt_bundle_gear_str(const TngrtBundle *self, int gear, char *buf, size_t len);

/* The descriptor (signature). */
const TngrtBundleDesc *tngrt_bundle_desc(const TngrtBundle *self);

/* Attaches a trace to the following runs (NULL detaches). */
void tngrt_bundle_set_trace(TngrtBundle *self, TngrtTrace *trace);

/* The message of the last failure ("" when none). */
const char *tngrt_bundle_last_error(const TngrtBundle *self);

void tngrt_bundle_delete(TngrtBundle *self);

#endif
