/*
 * codegen.h - from plans to C sources (the emitters), and from sources to
 * a bundle (the clang driver and the build cache).
 *
 * Emitters are one per target, siblings behind the Target interface below:
 * emit_cpu.c (C kernels and libtngcrt's stream executor) and emit_acl.c
 * (AscendCL for an Ascend NPU), both over the helpers of emit.c. They fill
 * a GenFiles with the text of every file of a bundle; writing them
 * (atomically) is the caller's job, so a failing generation leaves nothing
 * behind. Nothing target-specific is in the plan: the planner knows no
 * target, and takes the op names of its static-kernel keys from
 * codegen_op_type through the driver.
 */
#ifndef TNGC_CODEGEN_H
#define TNGC_CODEGEN_H

#include "../planner/plan.h"

/* One generated file: its name inside the output directory and its text. */
typedef struct GenFile {
    char *name;
    StrBuf text;
    int is_tu;             /* a translation unit of lib<name>.a */
} GenFile;

typedef VEC(GenFile) GenFiles;

typedef struct GenOptions {
    const char *name;          /* the bundle name: a C identifier */
    const char *script;        /* the script path as given (banner, #line) */
    const char *version;       /* tngc's version (banner) */
    int line_directives;       /* #line back to the script (--no-line: 0) */
    const char *const *user_ops; /* op names whose kernel the user supplies (NULL-terminated) */
    int no_fuse;               /* CPU target: no pointwise fusion (--no-fuse; codegen/fuse.c) */
    int world_size;            /* --world-size N > 1: the launcher starts MPI (emit_dist.c); 0 or 1: none */
    const char *fn_prefix;     /* CPU target: before the names of the stream and segment functions, or NULL
                                * (the fused loops' ISA clones have global resolver symbols: the bundles
                                * of the ranks of one build, linked together, need names of their own) */
    const char *dist_name;     /* the bundle of one rank of a --world-size build: the dispatcher's name
                                * (emit_dist.c; ACL target: <dist_name>_hccl_comm() is its communicator) */
    int dist_size;             /* ... and the number of ranks; 0 otherwise */
} GenOptions;

/* Appends the files of p's bundle for the CPU target to out; returns 0, or
 * -1 with diagnostics in diags (an op the CPU target cannot emit). */
int emit_cpu(const Plan *p, const GenOptions *opt, GenFiles *out, DiagList *diags);

/* The same for the ACL target: -1 with a diagnostic at each op that no
 * aclnn operator computes (acl_ops.c). */
int emit_acl(const Plan *p, const GenOptions *opt, GenFiles *out, DiagList *diags);

/* ---- targets ---- */

/* A code generation target: what tngc gen and build need to know of it. */
/* The vendor toolkit a target's bundles compile and link against (tngc
 * build; build.c): found through an option or an environment variable,
 * recognised by a header, its launcher linked when a library is there. */
typedef struct TargetToolkit {
    const char *what;          /* "CANN" */
    const char *option;        /* "--acl-home" */
    const char *env;           /* "ASCEND_TOOLKIT_HOME" */
    const char *header;        /* "include/acl/acl.h": a toolkit has it */
    const char *declares;      /* what that header declares: "AscendCL" */
    const char *launcher_lib;  /* "lib64/libascendcl.so": without it, no launcher is linked */
    const char *libs;          /* linked after -L<home>/lib64 */
} TargetToolkit;

typedef struct Target {
    const char *name;          /* "cpu", "acl" (--target) */
    const char *what;          /* "CPU", "Ascend NPU (AscendCL)" */
    /* Emits p's bundle (see emit_cpu). */
    int (*emit)(const Plan *p, const GenOptions *opt, GenFiles *out, DiagList *diags);
    int user_kernels;          /* --user-kernel is possible */
    /* How the planner plans for it (target_plan_options): */
    int consts_at_create;      /* constants run once when a bundle is created, not in every call */
    int64_t handoff_ns;        /* PlanOptions.handoff_ns: a stream whose work costs less than this
                                * runs on stream 0 (0: every stream keeps its own) */
    const char *const *dense_user_ops;  /* --user-kernel ops whose kernels read dense operands
                                         * only (PlanOptions.dense_matmuls); NULL-terminated, or NULL */
    /* How tngc build compiles and links its bundles (build.c): */
    const char *runtime_lib;   /* the libtngcrt archive a launcher links (beside libtngcrt.a) */
    const char *runtime_libs;  /* what it needs after that archive (without a toolkit's) */
    const TargetToolkit *toolkit;  /* the toolkit its sources need (its headers with -Wall
                                    * -Werror, its libraries), or NULL */
} Target;

/* The target called name, or NULL. */
const Target *target_find(const char *name);
/* "cpu, acl": the names, for messages. */
const char *target_names(void);

typedef VEC(const char *) NameList;

/* The planner's options for a bundle of target self with the user
 * kernels user_ops (streams_as_written: no stream cost model); returns
 * whether its constants run at create (plan_build_for). */
int target_plan_options(const Target *self, const NameList *user_ops, int streams_as_written, PlanOptions *opt);

/* The op names of user-kernel ops of p in program order of first use
 * (one per kind), appended to names; returns how many. */
int emit_user_ops(const Plan *p, const GenOptions *opt, NameList *names);

/* The exact C type of a user kernel function, as libclang spells it. */
extern const char emit_user_kernel_type[];

void genfiles_free(GenFiles *self);

/* --world-size N > 1 (emit_dist.c): appends <name>.c (opt->name), which
 * hands each call of <name>.h to the bundle <name>_rank<r> of this
 * process's MPI rank r. */
void emit_dist_bundle(const GenOptions *opt, int world_size, GenFiles *out);
/* The masks of the process groups other than the world that collectives
 * use (bit r: world rank r), each once, in first-use order. */
typedef VEC(int64_t) HcclGroups;
/* The group mask of collective op (ir/ops.def's attributes). */
int64_t emit_collective_group(const Op *op);
/* Adds the groups of g's collectives other than the world of world_size
 * ranks to groups (those not in it yet). */
void emit_hccl_groups(const Graph *g, int world_size, HcclGroups *groups);
/* The same for the ACL target: <name>.c picks the rank's bundle by
 * $RANK_ID and owns the HCCL communicators that the ranks' bundles issue
 * their collectives on: the world's (HcclCommInitClusterInfo on
 * $RANK_TABLE_FILE), then one per group of groups this rank belongs to
 * (HcclCreateSubCommConfig), looked up by <name>_hccl_comm(mask). */
void emit_dist_bundle_acl(const GenOptions *opt, int world_size, const HcclGroups *groups, GenFiles *out);
/* The C declarations of the HCCL types and calls a generated ACL source
 * uses (CANN's hccl/hccl.h is C++), between the comment lines
 * "---- HCCL: CANN 8.1.RC1's declarations" and "---- end of HCCL
 * declarations" (tests/acl/real_cann.sh holds them against CANN's). */
void emit_hccl_declarations(StrBuf *o);

/* ---- the target's op names in plans and manifests ---- */

/* The op type of g's op `op` as the static-kernel manifests name it ("MatMulV2";
 * torch.matmul of operands of rank <= 2 is MatMulV2, not BatchMatMulV2):
 * what the driver gives plan_build_with (PlanOptions.op_type) so that the
 * plan's static-kernel keys are the manifests' file stems (acl_ops.c). */
const char *codegen_op_type(const Graph *g, int32_t op);
/* The dtype as the manifests name it ("float" for float32, "?" when
 * unknown): PlanOptions.dtype_name. */
const char *codegen_dtype_name(DType t);

/* ---- static-kernel manifest (manifest.c) ---- */

/* Writes the static-kernel op-info tree under build_dir (docs/plan-format.md); returns
 * 0, or -1 after one error about the entry (its graph's name) in sink. */
int manifest_write(const Plan *self, const char *build_dir, Sink *sink);
/* manifest_write for each of plans[0..n) whose entry asks for static
 * kernels (reduce-overhead with _aclnn_static_shape_kernel), under its
 * build_dir taken from the folder of script; a note when none does,
 * unless quiet. Returns 0, or -1 after the first entry's error. */
int manifest_write_entries(const Plan *plans, size_t n, const char *script, int quiet, Sink *sink);

/* ---- templates (the files of templates/, embedded by the Makefile) ---- */

/* The text of template file name ("bundle.c", "tngc_template.h",
 * "launcher.c"), or NULL. */
const char *template_text(const char *name);

/* Appends template `name` to out with every "tngc_template" replaced by
 * bundle, "TNGC_TEMPLATE" by its upper-case form, and each line that holds
 * a marker "@tngc:KEY@" replaced by the text splice(KEY) returns. */
void template_expand(const char *tpl, const char *bundle,
                     const char *(*splice)(void *ctx, const char *key), void *ctx,
                     StrBuf *out);

/* The fused groups of p's bundle for the CPU target (codegen/fuse.c,
 * without --no-fuse and user kernels), as `tngc plan` prints them:
 * "fused groups (cpu):" then per gear, stream or segment, each group's
 * kind and ops (docs/plan-format.md); nothing when there is none. */
void codegen_fused_text(const Plan *p, StrBuf *out);

/* The same groups as the member ",\n \"fused_groups\":[...]" of an entry
 * of tngc plan --format json (plan_json_with): objects {gear, stream,
 * segment, kind, ops}, stream or segment null, ops the op ids in the
 * group's order; [] when there is none. */
void codegen_fused_json(const Plan *p, StrBuf *out);

#endif
