/*
 * build.h - the clang driver and the build cache (build.c), and the
 * libclang check of user kernels (usercheck.c).
 */
#ifndef TNGC_BUILD_H
#define TNGC_BUILD_H

#include "codegen.h"

typedef struct BuildOptions {
    const char *cc;          /* the C compiler: "clang" */
    const char *opt;         /* its optimisation flags: "-O2" */
    int jobs;                /* translation units compiled at once */
    const char *cache_dir;   /* the cache (ignored with no_cache) */
    int cache_dir_from_script; /* cache_dir is cache_compile's: no '..' unless absolute */
    int no_cache;
    const char *kernels;     /* the user's kernels (C file), or NULL */
    const char *outdir;      /* where the bundle's files go */
    OutSet *out;             /* the files of outdir, committed by the caller */
    const Target *target;    /* what the bundle is for (NULL: the CPU) */
    const char *toolkit_home; /* the target's toolkit (Target.toolkit): the option's value,
                               * then build_target_ready's */
    char *entry_out;         /* filled with the cache entry's path, or NULL */
    size_t entry_out_len;
    const char *const *modules;  /* the files the script imports (their contents are in
                                  * the cache key, as the script's), or NULL */
    size_t nmodules;
    int world_size;          /* --world-size N > 1: the launcher links libtngcrt_mpi.a and MPI */
} BuildOptions;

/*
 * Builds p's bundle from its generated files: compiles, archives and links
 * in a temporary directory (through the cache unless no_cache), then stages
 * the sources, lib<name>.a and <name>_launcher in bo->out (the caller
 * commits them with outset_commit, all or nothing).
 * *cache_hit is 1 when nothing was compiled. Returns 0, or -1 (the build
 * failed) or -2 (the cache cannot be used: I/O, ownership, locking) after
 * one error about the bundle (go->name) in sink; what it does about the
 * cache on the way is said as warnings there.
 */
int build_bundle(const Plan *p, const GenOptions *go, const GenFiles *files, const BuildOptions *bo,
                 int *cache_hit, Sink *sink);

/* What a cache entry is to a build (build.c says how it is decided):
 * BUILD_ENTRY_OK, a hit; BUILD_ENTRY_BROKEN, this user's but damaged or of
 * another key; BUILD_ENTRY_FOREIGN, not written by a tngc holding secret.
 * build_entry_check judges the entry open at efd for a build of files
 * (name, link as for build_bundle) with the key text key; build_entry_tag
 * writes the tag (64 hex digits and a NUL) of a key and a products list.
 * For the tests and the fuzzer; build_bundle uses the same code. */
enum { BUILD_ENTRY_FOREIGN = -1, BUILD_ENTRY_BROKEN = 0, BUILD_ENTRY_OK = 1 };
int build_entry_check(int efd, const unsigned char *secret, const StrBuf *key, const GenFiles *files,
                      const char *name, int link);
void build_entry_tag(const unsigned char *secret, const StrBuf *key, const StrBuf *products, char *hex);

/* Checks a cache dir before anything is created: a script's (from_script)
 * relative cache_dir must have no '..' component (TNG153), and an existing
 * one must be a directory of the current user. Returns 0, or -1 after one
 * error in sink. */
int build_cache_check(const char *dir, int from_script, Sink *sink);

/* Checks that the target can be built here: for a target with a toolkit
 * (acl: CANN), finds it through its option (bo->toolkit_home, --acl-home)
 * or its environment variable ($ASCEND_TOOLKIT_HOME) and records it in
 * bo->toolkit_home. Returns 0, or -1 after one error in sink. */
int build_target_ready(BuildOptions *bo, Sink *sink);

/* Whether a build of bo links <name>_launcher: always for cpu; for acl
 * when CANN's lib64/libascendcl.so is there (else lib<name>.a only). */
int build_links_launcher(const BuildOptions *bo);

/* Finds the runtime's headers (inc) and libtngcrt.a (lib): beside tngc in
 * the source tree, or under its install prefix; returns 0, or -1. */
int build_runtime_find(char *inc, char *lib, size_t len);

/*
 * Checks with libclang that the C file `path` defines every function in
 * fns with the type emit_user_kernel_type (headers from inc); returns 0,
 * or -1 with a TNG215 diagnostic per problem (located in `path`) appended
 * to diags, or, when libclang cannot read the file at all, an error about
 * path in sink.
 */
int usercheck_kernels(const char *path, const char *inc, const NameList *fns, DiagList *diags, Sink *sink);

#endif
