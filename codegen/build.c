/*
 * build.c - from generated sources to a bundle: the clang driver and the
 * build cache (docs/bundles.md).
 *
 * A build compiles the bundle's translation units in parallel (-j N, a
 * ninja-style "[k/n] CC file" line on a terminal), archives lib<name>.a
 * and links <name>_launcher against libtngcrt. It happens in a temporary
 * directory; only a complete result is renamed into the cache and staged
 * in the output set (bo->out), which the caller commits all at once
 * (support/out.c): a failed or killed build leaves the output directory
 * with the previous bundle or the new one, never a mix.
 *
 * Cache: <cache_dir>/<Class>_<static|dynamic>_<hash>/<rank dir>/<method>/,
 * keyed by everything that changes the result: tngc's version, the
 * target, the compiler and its flags, the runtime (the libtngcrt archive
 * linked and the tngrt*.h headers, by content), the script's content, the
 * generated sources and the user's kernels. An entry holds its products,
 * "products" (each product's size and SHA-256), "key" (the full key) and
 * "tag": an HMAC-SHA-256 of key and products list under the user's secret
 * (support/fs.c, fs_cache_secret), which only this user's tngc can write.
 * The cache may sit in an untrusted checkout (.tngc_cache, a script's
 * cache_dir), so:
 *   - an entry is a hit only when its tag verifies, its key is the build's
 *     and every product matches its line; the products are read once into
 *     memory, checked and staged from there;
 *   - an entry whose tag does not verify (another tngc's, a checkout's, a
 *     planted one), or that belongs to another user, is "foreign": never
 *     installed, never removed; the build runs without the cache;
 *   - an entry whose tag verifies but whose key or products do not match
 *     is this user's and damaged: it is removed and rebuilt;
 *   - every level below the cache folder is opened with O_NOFOLLOW and
 *     must be this user's and writable by no one else (fs_open_below); a
 *     link at any level makes the build skip the cache, and removals go
 *     through directory descriptors (fs_rmtree_at), never a link.
 * The cache directory must belong to the current user, and builds of one
 * entry take a lock (flock on <entry>.lock) so concurrent builds wait for
 * each other.
 *
 * The ACL target (--target acl) compiles against CANN's headers
 * ($ASCEND_TOOLKIT_HOME/include, or --acl-home) with -Wall -Werror, and
 * links <name>_launcher against libtngcrt_core (libtngcrt without the CPU
 * kernels: no OpenBLAS) and CANN's libascendcl, libnnopbase and
 * libopapi (lib64/) only when they are there: with headers alone (the
 * declarations tngc's tests use, or a toolkit without its libraries) the
 * build ends with lib<name>.a, which a program links on a machine with
 * CANN. Where CANN is not found at all, the build is refused.
 */
#define _GNU_SOURCE 1
#include "build.h"

#include "../support/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef TNGC_MPI_LIBS   /* the Makefile's: pkg-config --libs ompi-c */
#define TNGC_MPI_LIBS "-lmpi"
#endif
#ifndef TNGC_SANFLAGS
#define TNGC_SANFLAGS ""
#endif

/* ---- small file helpers ---------------------------------------------------- */

static int build__check_owner(const char *dir, Sink *sink, const char *who);

/* Reports an error of the build of who (the bundle; NULL: the run) in
 * sink; returns -1. */
static int build__fail(Sink *sink, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sink_vreport(sink, SEV_ERROR, who, fmt, ap);
    va_end(ap);
    return -1;
}

static char *build__path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int build__read(const char *path, StrBuf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(out, buf, n);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

static int build__write(const char *path, const char *data, size_t n, int exec)
{
    return write_file_mode(path, data, n, exec);
}

/* Stages a copy of src as name in the output set (an executable when exec). */
static int build__copy(const char *src, OutSet *out, const char *name, int exec)
{
    StrBuf b = {0};
    int rc = build__read(src, &b);
    if (rc == 0)
        rc = outset_add(out, name, b.s ? b.s : "", b.len, exec);
    sb_free(&b);
    return rc;
}

/* ---- the targets ------------------------------------------------------------- */

/* The toolkit the bundle's target needs, or NULL. */
static const TargetToolkit *build__toolkit(const BuildOptions *bo)
{
    return bo->target ? bo->target->toolkit : NULL;
}

int build_target_ready(BuildOptions *bo, Sink *sink)
{
    const TargetToolkit *tk = build__toolkit(bo);
    if (!tk)
        return 0;
    const char *env = getenv(tk->env);
    const char *home = bo->toolkit_home ? bo->toolkit_home : env && *env ? env : NULL;
    if (!home) {
        return build__fail(sink, NULL, "--target %s needs %s: set %s (or pass %s DIR) to the %s toolkit whose %s "
                           "declares %s", bo->target->name, tk->what, tk->env, tk->option, tk->what, tk->header,
                           tk->declares);
    }
    char *h = build__path(home, tk->header);
    int ok = access(h, R_OK) == 0;
    free(h);
    if (!ok) {
        return build__fail(sink, NULL, "--target %s: %s (%s) has no %s: it is not a %s toolkit", bo->target->name,
                           home, bo->toolkit_home ? tk->option : tk->env, tk->header, tk->what);
    }
    bo->toolkit_home = home;
    return 0;
}

int build_links_launcher(const BuildOptions *bo)
{
    const TargetToolkit *tk = build__toolkit(bo);
    if (!tk)
        return 1;
    char *lib = build__path(bo->toolkit_home, tk->launcher_lib);
    int ok = access(lib, R_OK) == 0;
    free(lib);
    return ok;
}

/* ---- the runtime tngc links bundles against -------------------------------- */

static int build__exists(const char *dir, const char *name)
{
    char *p = build__path(dir, name);
    int ok = access(p, R_OK) == 0;
    free(p);
    return ok;
}

int build_runtime_find(char *inc, char *lib, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    /* in the source tree: build/tngc or build/san/tngc, runtime/ beside build/ */
    static const char *const src_inc[] = {"/../runtime", "/../../runtime"};
    if (build__exists(exe, "libtngcrt.a"))
        for (size_t i = 0; i < 2; i++) {
            snprintf(inc, len, "%s%s", exe, src_inc[i]);
            if (build__exists(inc, "tngrt_bundle.h")) {
                snprintf(lib, len, "%s/libtngcrt.a", exe);
                return 0;
            }
        }
    /* installed: PREFIX/bin/tngc, PREFIX/lib/libtngcrt.a, PREFIX/include/tngc/ */
    snprintf(inc, len, "%s/../include/tngc", exe);
    snprintf(lib, len, "%s/../lib/libtngcrt.a", exe);
    return build__exists(inc, "tngrt_bundle.h") && access(lib, R_OK) == 0 ? 0 : -1;
}

/* ---- processes --------------------------------------------------------------- */

typedef VEC(char *) Argv;

static void argv_push(Argv *a, const char *s)
{
    VEC_PUSH(*a, s ? xstrdup(s) : NULL);
}

/* Appends the words of a flag string ("-O2 -g"). */
static void argv_words(Argv *a, const char *s)
{
    while (s && *s) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        if (e > s) {
            char *w = xstrndup(s, (size_t)(e - s));
            VEC_PUSH(*a, w);
        }
        s = e;
    }
}

static void argv_free(Argv *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    VEC_FREE(*a);
}

static pid_t build__spawn(Argv *a)
{
    argv_push(a, NULL);
    a->n--;
    pid_t pid;
    if (posix_spawnp(&pid, a->v[0], NULL, NULL, a->v, environ) != 0)
        return -1;
    return pid;
}

static int build__status_ok(int st)
{
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Runs the jobs (compiles) with at most jobs at once; returns 0 when all
 * succeed. Progress goes to stderr on a terminal. */
static int build__run_jobs(Argv *cmds, const char *const *labels, size_t n, int jobs,
                           Sink *sink, const char *who)
{
    int tty = isatty(2);
    size_t next = 0, done = 0, running = 0;
    int failed = 0;
    pid_t *pids = xcalloc(n + 1, sizeof *pids);
    while (done < n) {
        while (!failed && next < n && running < (size_t)jobs) {
            pids[next] = build__spawn(&cmds[next]);
            if (pids[next] < 0) {
                build__fail(sink, who, "cannot run %s: %s", cmds[next].v[0], strerror(errno));
                failed = 1;
                done += n - next;
                next = n;
                break;
            }
            if (tty)
                fprintf(stderr, "\r[%zu/%zu] CC %s\033[K", next + 1, n, labels[next]);
            next++;
            running++;
        }
        if (running == 0)
            break;
        int st;
        pid_t pid = wait(&st);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (pids[i] == pid) {
                running--;
                done++;
                if (!build__status_ok(st) && !failed) {
                    failed = 1;
                    build__fail(sink, who, "%s failed to compile %s", cmds[i].v[0], labels[i]);
                }
            }
    }
    if (tty)
        fputs("\n", stderr);
    free(pids);
    return failed ? -1 : 0;
}

static int build__run1(Argv *cmd, const char *what, Sink *sink, const char *who)
{
    pid_t pid = build__spawn(cmd);
    if (pid < 0)
        return build__fail(sink, who, "cannot run %s: %s", cmd->v[0], strerror(errno));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return build__fail(sink, who, "%s: %s", what, strerror(errno));
    return build__status_ok(st) ? 0 : build__fail(sink, who, "%s failed (%s)", what, cmd->v[0]);
}

/* ---- compiling in a directory ------------------------------------------------- */

static void build__cc_base(Argv *a, const BuildOptions *bo, const char *inc, const char *dir)
{
    argv_push(a, bo->cc);
    argv_push(a, "-std=c11");
    argv_words(a, bo->opt);
    argv_words(a, TNGC_SANFLAGS);
    argv_push(a, "-D_POSIX_C_SOURCE=200809L");
    StrBuf f = {0};
    sb_printf(&f, "-I%s", inc);
    argv_push(a, f.s);
    f.len = 0;
    sb_printf(&f, "-I%s", dir);
    argv_push(a, f.s);
    if (build__toolkit(bo)) {   /* the toolkit's headers, and no warning let through */
        f.len = 0;
        sb_printf(&f, "-I%s/include", bo->toolkit_home);
        argv_push(a, f.s);
        argv_push(a, "-Wall");
        argv_push(a, "-Werror");
    }
    sb_free(&f);
}

/* The runtime archive the target's launchers link (Target.runtime_lib),
 * beside lib (libtngcrt.a). */
static const char *build__runtime_name(const BuildOptions *bo)
{
    return bo->target ? bo->target->runtime_lib : "libtngcrt.a";
}

static char *build__runtime_lib(const BuildOptions *bo, const char *lib)
{
    const char *slash = strrchr(lib, '/');
    StrBuf p = {0};
    sb_printf(&p, "%.*s%s", slash ? (int)(slash - lib + 1) : 0, lib, build__runtime_name(bo));
    return p.s;
}

/* libtngcrt_mpi.a beside lib (libtngcrt.a): what a launcher of a bundle
 * of several ranks links first. */
static char *build__mpi_lib(const char *lib)
{
    const char *slash = strrchr(lib, '/');
    StrBuf p = {0};
    sb_printf(&p, "%.*slibtngcrt_mpi.a", slash ? (int)(slash - lib + 1) : 0, lib);
    return p.s;
}

/* Compiles every TU of files (and the user's kernels) in dir, archives
 * lib<name>.a and links <name>_launcher. */
static int build__compile(const GenFiles *files, const char *name, const BuildOptions *bo,
                          const char *dir, const char *inc, const char *lib, Sink *sink, const char *who)
{
    size_t n = 0, cap = files->n + 1;   /* the generated TUs (a split bundle has several), the user's kernels */
    Argv *cmds = xcalloc(cap, sizeof *cmds);
    const char **labels = xcalloc(cap, sizeof *labels);
    char **objs = xcalloc(cap, sizeof *objs);
    const char **srcs = xcalloc(cap, sizeof *srcs);
    int link = build_links_launcher(bo);
    for (size_t i = 0; i < files->n; i++) {
        const char *fn = files->v[i].name;
        size_t l = strlen(fn);
        if (l < 2 || strcmp(fn + l - 2, ".c") || strstr(fn, "_kernels_user.c") ||
            (!link && strstr(fn, "_launcher.c")))
            continue;
        srcs[n] = fn;
        labels[n++] = fn;
    }
    size_t ngen = n;
    if (bo->kernels) {   /* compiled where it is, so diagnostics name the user's file */
        srcs[n] = bo->kernels;
        labels[n++] = bo->kernels;
    }
    for (size_t i = 0; i < n; i++) {
        char *src = i < ngen ? build__path(dir, srcs[i]) : xstrdup(srcs[i]);
        objs[i] = i < ngen ? xstrdup(src) : build__path(dir, "user_kernels.c");
        objs[i][strlen(objs[i]) - 1] = 'o';
        build__cc_base(&cmds[i], bo, inc, dir);
        argv_push(&cmds[i], "-c");
        argv_push(&cmds[i], src);
        argv_push(&cmds[i], "-o");
        argv_push(&cmds[i], objs[i]);
        free(src);
    }
    int rc = build__run_jobs(cmds, labels, n, bo->jobs > 0 ? bo->jobs : 1, sink, who);
    for (size_t i = 0; i < n; i++)
        argv_free(&cmds[i]);

    char libname[512], exe[512];
    snprintf(libname, sizeof libname, "%s/lib%s.a", dir, name);
    snprintf(exe, sizeof exe, "%s/%s_launcher", dir, name);
    if (rc == 0) {  /* lib<name>.a: everything but the launcher's main */
        Argv ar = {0};
        argv_push(&ar, "ar");
        argv_push(&ar, "rcsD");
        argv_push(&ar, libname);
        for (size_t i = 0; i < n; i++)
            if (!strstr(objs[i], "_launcher.o"))
                argv_push(&ar, objs[i]);
        rc = build__run1(&ar, "ar", sink, who);
        argv_free(&ar);
    }
    if (rc == 0 && link) {
        Argv ld = {0};
        argv_push(&ld, bo->cc);
        argv_words(&ld, bo->opt);
        argv_words(&ld, TNGC_SANFLAGS);
        argv_push(&ld, "-o");
        argv_push(&ld, exe);
        for (size_t i = 0; i < n; i++)
            if (strstr(objs[i], "_launcher.o"))
                argv_push(&ld, objs[i]);
        argv_push(&ld, libname);
        int mpi = bo->world_size > 1 && !build__toolkit(bo);   /* ACL: HCCL, not MPI */
        if (mpi) {   /* the collectives and MPI (tngrt_mpi.h) */
            char *mpi = build__mpi_lib(lib);
            if (access(mpi, R_OK) != 0)
                rc = build__fail(sink, who, "%s is missing: a bundle of several ranks links it (install "
                                 "libopenmpi-dev, scripts/deps.sh, then make)", mpi);
            argv_push(&ld, mpi);
            free(mpi);
        }
        char *rt = build__runtime_lib(bo, lib);
        argv_push(&ld, rt);
        free(rt);
        const TargetToolkit *tk = build__toolkit(bo);
        if (tk) {   /* the toolkit's libraries, found again at run time */
            StrBuf f = {0};
            sb_printf(&f, "-L%s/lib64", bo->toolkit_home);
            argv_push(&ld, f.s);
            f.len = 0;
            sb_printf(&f, "-Wl,-rpath,%s/lib64", bo->toolkit_home);
            argv_push(&ld, f.s);
            sb_free(&f);
            argv_words(&ld, tk->libs);
            if (bo->world_size > 1)   /* the collectives (HcclAllReduce ...) */
                argv_push(&ld, "-lhccl");
        }
        if (mpi)
            argv_words(&ld, TNGC_MPI_LIBS);
        argv_words(&ld, bo->target ? bo->target->runtime_libs : "-lopenblas -lpthread -lm");
        if (rc == 0)
            rc = build__run1(&ld, "linking the launcher", sink, who);
        argv_free(&ld);
    }
    for (size_t i = 0; i < n; i++) {
        unlink(objs[i]);
        free(objs[i]);
    }
    free(cmds);
    free(labels);
    free(objs);
    free(srcs);
    return rc;
}

/* ---- the cache ------------------------------------------------------------------ */

static uint64_t build__fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* "NAME HASH SIZE" of file path into key (HASH and SIZE 0 and -1 when it
 * cannot be read: the build then fails, or differs, on its own). */
static void build__key_file(StrBuf *key, const char *what, const char *name, const char *path)
{
    StrBuf t = {0};
    int rc = build__read(path, &t);
    uint64_t h = build__fnv(1469598103934665603ull, t.s ? t.s : "", t.len);
    sb_printf(key, "%s %s %016llx %lld\n", what, name, rc ? 0ull : (unsigned long long)h,
              rc ? -1ll : (long long)t.len);
    sb_free(&t);
}

/* The runtime the build compiles and links against: the library it links
 * (libtngcrt.a, or libtngcrt_core.a for ACL) and every tngrt*.h header of
 * its include directory (the kernels' inline bodies among them), by
 * content, so that a cache entry built against another libtngcrt (a
 * rebuilt tree, an upgrade that kept tngc's version) is not reused. */
static void build__key_runtime(const BuildOptions *bo, StrBuf *key)
{
    char inc[4096], lib[4096];
    if (build_runtime_find(inc, lib, sizeof inc) != 0) {
        sb_puts(key, "runtime none\n");   /* the build fails on it */
        return;
    }
    char *rt = build__runtime_lib(bo, lib);
    build__key_file(key, "runtime", build__runtime_name(bo), rt);
    free(rt);
    if (bo->world_size > 1) {
        char *mpi = build__mpi_lib(lib);
        build__key_file(key, "runtime", "libtngcrt_mpi.a", mpi);
        sb_printf(key, "mpi %s\n", TNGC_MPI_LIBS);
        free(mpi);
    }
    size_t n = 0;
    char **names = fs_names(inc, "tngrt", ".h", &n);
    for (size_t i = 0; i < n; i++) {
        char *path = build__path(inc, names[i]);
        build__key_file(key, "header", names[i], path);
        free(path);
    }
    fs_names_free(names, n);
}

/* The key: every input of the build, as text (stored in the entry). */
static void build__key(const GenFiles *files, const GenOptions *go, const BuildOptions *bo,
                       const StrBuf *script, StrBuf *key)
{
    sb_printf(key, "tngc %s\ntarget %s\ncc %s\nopt %s\nsan %s\n", go->version, bo->target ? bo->target->name : "cpu",
              bo->cc, bo->opt ? bo->opt : "", TNGC_SANFLAGS);
    if (build__toolkit(bo))
        sb_printf(key, "%s %s\nlauncher %d\n", bo->target->name, bo->toolkit_home, build_links_launcher(bo));
    build__key_runtime(bo, key);
    uint64_t h = build__fnv(1469598103934665603ull, script->s ? script->s : "", script->len);
    sb_printf(key, "script %016llx %zu\n", (unsigned long long)h, script->len);
    for (size_t i = 0; i < bo->nmodules; i++) {   /* the modules it imports: path and contents */
        StrBuf m = {0};
        int rc = build__read(bo->modules[i], &m);
        h = build__fnv(1469598103934665603ull, m.s ? m.s : "", m.len);
        sb_printf(key, "module %zu %s %016llx %zu %d\n", strlen(bo->modules[i]), bo->modules[i],
                  (unsigned long long)h, m.len, rc);
        sb_free(&m);
    }
    for (size_t i = 0; i < files->n; i++) {
        const StrBuf *t = &files->v[i].text;
        h = build__fnv(1469598103934665603ull, t->s ? t->s : "", t->len);
        sb_printf(key, "file %s %016llx %zu\n", files->v[i].name, (unsigned long long)h, t->len);
    }
    if (bo->kernels) {
        StrBuf k = {0};
        build__read(bo->kernels, &k);
        h = build__fnv(1469598103934665603ull, k.s ? k.s : "", k.len);
        sb_printf(key, "kernels %016llx %zu\n", (unsigned long long)h, k.len);
        sb_free(&k);
    }
}


/* The names of a build's products in dir: the generated files, lib<name>.a
 * and, when it links, <name>_launcher (last). Owned by the caller, the
 * strings by files and by lib/exe (512 bytes each). */
static void build__product_names(const GenFiles *files, const char *name, int link, NameList *names, char *lib,
                                 char *exe)
{
    for (size_t i = 0; i < files->n; i++)
        VEC_PUSH(*names, files->v[i].name);
    snprintf(lib, 512, "lib%s.a", name);
    snprintf(exe, 512, "%s_launcher", name);
    VEC_PUSH(*names, lib);
    if (link)
        VEC_PUSH(*names, exe);
}

/* One line "NAME SIZE SHA256" of the products list. */
static void build__product_line(StrBuf *out, const char *name, const StrBuf *data)
{
    unsigned char d[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];
    sha256(data->s ? data->s : "", data->len, d);
    digest_hex(d, hex);
    sb_printf(out, "%s %zu %s\n", name, data->len, hex);
}

/* "NAME SIZE SHA256" of every product of a build in dir, one per line. */
static int build__products(const char *dir, const GenFiles *files, const char *name, int link, StrBuf *out)
{
    NameList names = {0};
    char lib[512], exe[512];
    build__product_names(files, name, link, &names, lib, exe);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        StrBuf b = {0};
        char *p = build__path(dir, names.v[i]);
        rc = build__read(p, &b);
        build__product_line(out, names.v[i], &b);
        sb_free(&b);
        free(p);
    }
    VEC_FREE(names);
    return rc;
}

/* The entry's tag: HMAC-SHA-256, under the user's secret, of its key and
 * its products list, as 64 hex digits. Only a tngc holding the secret (this
 * user's) can write a tag that verifies, so an entry that came with a
 * checkout, or that another user planted, is never taken for a hit. */
static void build__tag(const unsigned char *secret, const StrBuf *key, const StrBuf *products,
                       char hex[2 * SHA256_LEN + 1])
{
    Hmac256 h;
    char head[64];
    int hn = snprintf(head, sizeof head, "tngc cache entry 1\nkey %zu\n", key->len);
    hmac256_init(&h, secret, 32);
    hmac256_update(&h, head, (size_t)hn);
    hmac256_update(&h, key->s ? key->s : "", key->len);
    hmac256_update(&h, products->s ? products->s : "", products->len);
    unsigned char d[SHA256_LEN];
    hmac256_final(&h, d);
    digest_hex(d, hex);
}

/* The largest file a cache entry may hold (a launcher or an archive): a
 * hostile entry cannot make tngc read without bound. */
#define BUILD_MAX_PRODUCT ((size_t)1 << 31)

/* What a cache entry holds, read once into memory: what is checked is what
 * is installed. */
typedef struct Entry {
    NameList names;
    StrBuf *data;
} Entry;

static void build__entry_free(Entry *e)
{
    for (size_t i = 0; i < e->names.n; i++)
        sb_free(&e->data[i]);
    free(e->data);
    VEC_FREE(e->names);
}


/* Reads and checks the entry open at efd: BUILD_ENTRY_OK (its tag verifies, its
 * key is key and every product has the size and hash it lists; e holds
 * them), BUILD_ENTRY_BROKEN (written by this user's tngc but damaged or for
 * another key: it may be replaced), or BUILD_ENTRY_FOREIGN (no tag that
 * verifies: not this user's tngc's, neither used nor removed). */
static int build__entry_load(int efd, const unsigned char *secret, const StrBuf *key, const GenFiles *files,
                             const char *name, int link, Entry *e, char *lib, char *exe)
{
    StrBuf tag = {0}, k = {0}, prod = {0}, got = {0};
    int verdict = BUILD_ENTRY_FOREIGN;
    if (fs_read_at(efd, "tag", 256, &tag) == 0 && fs_read_at(efd, "key", (size_t)1 << 26, &k) == 0 &&
        fs_read_at(efd, "products", (size_t)1 << 24, &prod) == 0) {
        char want[2 * SHA256_LEN + 1];
        build__tag(secret, &k, &prod, want);
        if (tag.len == 2 * SHA256_LEN + 1 && tag.s[2 * SHA256_LEN] == '\n' &&
            !digest_differs(tag.s, want, 2 * SHA256_LEN))
            verdict = BUILD_ENTRY_BROKEN;
    }
    if (verdict == BUILD_ENTRY_BROKEN && k.len == key->len && !memcmp(k.s, key->s, key->len)) {
        build__product_names(files, name, link, &e->names, lib, exe);
        e->data = xcalloc(e->names.n + 1, sizeof *e->data);
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < e->names.n; i++) {
            rc = fs_read_at(efd, e->names.v[i], BUILD_MAX_PRODUCT, &e->data[i]);
            build__product_line(&got, e->names.v[i], &e->data[i]);
        }
        if (rc == 0 && got.len == prod.len && !memcmp(got.s, prod.s, got.len))
            verdict = BUILD_ENTRY_OK;
        else
            build__entry_free(e);
    }
    sb_free(&tag);
    sb_free(&k);
    sb_free(&prod);
    sb_free(&got);
    return verdict;
}

int build_entry_check(int efd, const unsigned char *secret, const StrBuf *key, const GenFiles *files,
                      const char *name, int link)
{
    Entry e = {0};
    char lib[512], exe[512];
    int v = build__entry_load(efd, secret, key, files, name, link, &e, lib, exe);
    if (v == BUILD_ENTRY_OK)
        build__entry_free(&e);
    return v;
}

void build_entry_tag(const unsigned char *secret, const StrBuf *key, const StrBuf *products, char *hex)
{
    build__tag(secret, key, products, hex);
}

/* Stages what the entry holds in the output set (committed by the caller,
 * all at once); the launcher is the executable. */
static int build__entry_install(const Entry *e, int link, OutSet *out, Sink *sink, const char *who)
{
    for (size_t i = 0; i < e->names.n; i++)
        if (outset_add(out, e->names.v[i], e->data[i].s ? e->data[i].s : "", e->data[i].len,
                       link && i + 1 == e->names.n) != 0)
            return build__fail(sink, who, "cannot write %s/%s: %s", out->dir, e->names.v[i], strerror(errno));
    return 0;
}

/* Stages the products in dir (a build of this process) in the output set. */
static int build__install(const char *dir, const GenFiles *files, const char *name, int link,
                          OutSet *out, Sink *sink, const char *who)
{
    NameList names = {0};
    char lib[512], exe[512];
    build__product_names(files, name, link, &names, lib, exe);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        char *s = build__path(dir, names.v[i]), *d = build__path(out->dir, names.v[i]);
        if (build__copy(s, out, names.v[i], link && i + 1 == names.n) != 0)
            rc = build__fail(sink, who, "cannot write %s: %s", d, strerror(errno));
        free(s);
        free(d);
    }
    VEC_FREE(names);
    return rc;
}

static int build__cache_check(const char *dir, int from_script, Sink *sink, const char *who)
{
    if (from_script && dir[0] != '/' && path_escapes(dir, strlen(dir)))
        return build__fail(sink, who, "the script's cache_dir '%s' has a '..' component: it must stay below the "
                           "working directory, or be absolute [TNG153]", dir);
    struct stat st;
    if (stat(dir, &st) != 0 && errno == ENOENT)
        return 0;   /* created by the build */
    return build__check_owner(dir, sink, who);
}

int build_cache_check(const char *dir, int from_script, Sink *sink)
{
    return build__cache_check(dir, from_script, sink, NULL);
}

static int build__check_owner(const char *dir, Sink *sink, const char *who)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return build__fail(sink, who, "cache dir %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return build__fail(sink, who, "cache dir %s is not a directory", dir);
    if (st.st_uid != geteuid())
        return build__fail(sink, who, "cache dir %s belongs to another user (uid %u): refusing to use it",
                           dir, (unsigned)st.st_uid);
    return 0;
}

/* Builds into a fresh temporary directory under parent; returns its path.
 * With a secret, the directory is a complete cache entry: its products
 * list, key and tag beside the products. */
static char *build__in_temp(const GenFiles *files, const char *name, const BuildOptions *bo, const char *parent,
                            const StrBuf *key, const unsigned char *secret, Sink *sink, const char *who)
{
    char inc[4096], lib[4096];
    if (build_runtime_find(inc, lib, sizeof inc) != 0) {
        build__fail(sink, who, "cannot find libtngcrt.a and its headers next to tngc (build it with make, or install it)");
        return NULL;
    }
    /* named after this process, so that a later build can tell the
     * leftovers of a killed one from a build in progress */
    if (fs_sweep_dead(parent, ".tngc-build-") > 0)
        sink_warning(sink, "removed what a killed build left in %s", parent);
    char tname[64];
    snprintf(tname, sizeof tname, ".tngc-build-%ld-XXXXXX", (long)getpid());
    char *tmpl = build__path(parent, tname);
    if (!mkdtemp(tmpl)) {
        build__fail(sink, who, "cannot create a build directory in %s: %s", parent, strerror(errno));
        free(tmpl);
        return NULL;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < files->n; i++) {
        char *p = build__path(tmpl, files->v[i].name);
        if (build__write(p, files->v[i].text.s ? files->v[i].text.s : "", files->v[i].text.len, 0) != 0)
            rc = build__fail(sink, who, "cannot write %s: %s", p, strerror(errno));
        free(p);
    }
    if (rc == 0)
        rc = build__compile(files, name, bo, tmpl, inc, lib, sink, who);
    if (rc == 0 && secret) {
        StrBuf prod = {0};
        char tag[2 * SHA256_LEN + 2];
        if (build__products(tmpl, files, name, build_links_launcher(bo), &prod) != 0)
            rc = build__fail(sink, who, "cannot read what was built in %s: %s", tmpl, strerror(errno));
        build__tag(secret, key, &prod, tag);
        strcat(tag, "\n");
        static const char *const meta[] = {"products", "key", "tag"};
        for (size_t i = 0; rc == 0 && i < 3; i++) {
            char *mp = build__path(tmpl, meta[i]);
            const StrBuf *b = i == 0 ? &prod : key;
            if (build__write(mp, i == 2 ? tag : b->s ? b->s : "", i == 2 ? strlen(tag) : b->len, 0) != 0)
                rc = build__fail(sink, who, "cannot write %s: %s", mp, strerror(errno));
            free(mp);
        }
        sb_free(&prod);
    }
    if (rc != 0) {
        fs_rmtree(tmpl);
        free(tmpl);
        return NULL;
    }
    return tmpl;
}

/* "<Class>_<static|dynamic>_<hash>/world1global_rank0tp_rank0pp_rank0/<method>" */
static char *build__entry_rel(const Plan *p, const StrBuf *key)
{
    const char *dot = strrchr(p->g->name, '.');
    size_t cl = dot ? (size_t)(dot - p->g->name) : strlen(p->g->name);
    const char *method = dot ? dot + 1 : "forward";
    uint64_t h = build__fnv(1469598103934665603ull, key->s, key->len);
    StrBuf r = {0};
    sb_putn(&r, p->g->name, cl);
    sb_printf(&r, "_%s_%016llx/world1global_rank0tp_rank0pp_rank0/%s", p->g->cfg.dynamic == 1 ? "dynamic" : "static",
              (unsigned long long)h, method);
    for (size_t i = 0; i < r.len; i++)
        if (!(r.s[i] == '/' || r.s[i] == '_' || r.s[i] == '-' || (r.s[i] >= '0' && r.s[i] <= '9') ||
              (r.s[i] >= 'a' && r.s[i] <= 'z') || (r.s[i] >= 'A' && r.s[i] <= 'Z')))
            r.s[i] = '_';
    return r.s;
}

/* Builds without the cache: in a temporary directory in the output
 * directory, staged, then removed. */
static int build__uncached(const GenFiles *files, const GenOptions *go, const BuildOptions *bo, const StrBuf *key,
                           Sink *sink, const char *who)
{
    char *tmp = build__in_temp(files, go->name, bo, bo->outdir, key, NULL, sink, who);
    int rc = tmp ? build__install(tmp, files, go->name, build_links_launcher(bo), bo->out, sink, who) : -1;
    if (tmp)
        fs_rmtree(tmp);
    free(tmp);
    return rc;
}

int build_bundle(const Plan *p, const GenOptions *go, const GenFiles *files, const BuildOptions *bo,
                 int *cache_hit, Sink *sink)
{
    const char *who = go->name;
    *cache_hit = 0;
    StrBuf script = {0}, key = {0};
    if (build__read(go->script, &script) != 0) {
        sb_free(&script);
        return build__fail(sink, who, "cannot read %s: %s", go->script, strerror(errno));
    }
    build__key(files, go, bo, &script, &key);
    sb_free(&script);
    int rc, link = build_links_launcher(bo);
    unsigned char secret[32];
    Sink why;   /* the secret's problem, said as a warning here */
    sink_init(&why, NULL);
    int secret_rc = bo->no_cache ? 0 : fs_cache_secret(secret, &why);
    if (secret_rc != 0) {
        StrBuf text = {0};
        sink_quote(&why, &text);
        sink_warning(sink, "building without the cache: %s", text.s);
        sb_free(&text);
    }
    sink_free(&why);
    if (secret_rc != 0 || bo->no_cache) {
        rc = build__uncached(files, go, bo, &key, sink, who);
        sb_free(&key);
        return rc;
    }
    const char *cdir = bo->cache_dir;
    if (build__cache_check(cdir, bo->cache_dir_from_script, sink, who) != 0) {
        sb_free(&key);
        return -2;
    }
    if (fs_mkdirs(cdir, 1) != 0 && errno != EEXIST) {
        build__fail(sink, who, "cannot create cache dir %s: %s", cdir, strerror(errno));
        sb_free(&key);
        return -2;
    }
    if (build__check_owner(cdir, sink, who) != 0) {
        sb_free(&key);
        return -2;
    }
    char *rel = build__entry_rel(p, &key);
    char *entry = build__path(cdir, rel);
    char *slash = strrchr(rel, '/');
    *slash = 0;
    const char *method = slash + 1;
    /* every level below the cache folder is opened without following a
     * link and must be this user's: nothing is read, written or removed
     * through a link a checkout shipped or another user planted */
    int pfd = fs_open_below(cdir, rel, 1);
    if (pfd < 0) {
        sink_warning(sink, "not using the cache entry %s: %s/%s is %s; building without the cache",
                entry, cdir, rel,
                errno == ELOOP ? "or passes through a symbolic link"
                : errno == EPERM ? "or holds a folder of another user, or one others may write"
                : strerror(errno));
        rc = build__uncached(files, go, bo, &key, sink, who);
        goto done;
    }
    char *parent = build__path(cdir, rel);
    fs_sweep_dead_at(pfd, ".tngc-build-");   /* what killed builds left, on a hit as on a miss */
    char lockname[512];
    snprintf(lockname, sizeof lockname, "%s.lock", method);
    int lfd = openat(pfd, lockname, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat lst;
    if (lfd >= 0 && (fstat(lfd, &lst) != 0 || !S_ISREG(lst.st_mode))) {
        close(lfd);
        lfd = -1;
        errno = EINVAL;
    }
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        build__fail(sink, who, "cannot lock %s.lock: %s", entry, strerror(errno));
        rc = -2;
        goto unlock;
    }
    Entry e = {0};
    char lib[512], exe[512];
    int efd = openat(pfd, method, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int verdict = BUILD_ENTRY_BROKEN;   /* nothing there: built in place */
    struct stat est;
    if (efd < 0 && errno != ENOENT)
        verdict = BUILD_ENTRY_FOREIGN;   /* a link, a file: not the cache's */
    else if (efd >= 0 && (fstat(efd, &est) != 0 || est.st_uid != geteuid() || (est.st_mode & 022)))
        verdict = BUILD_ENTRY_FOREIGN;
    else if (efd >= 0)
        verdict = build__entry_load(efd, secret, &key, files, go->name, link, &e, lib, exe);
    if (efd >= 0)
        close(efd);
    if (verdict == BUILD_ENTRY_OK) {
        *cache_hit = 1;
        rc = build__entry_install(&e, link, bo->out, sink, who);
        build__entry_free(&e);
    } else if (verdict == BUILD_ENTRY_FOREIGN) {
        sink_warning(sink, "ignoring the cache entry %s: it was not written by this user's tngc "
                     "(left as it is: remove it to cache this build); building without the cache", entry);
        rc = build__uncached(files, go, bo, &key, sink, who);
    } else {
        if (efd >= 0) {
            sink_warning(sink, "removing the broken cache entry %s (its products changed)", entry);
            fs_rmtree_at(pfd, method);
        }
        char *tmp = build__in_temp(files, go->name, bo, parent, &key, secret, sink, who);
        const char *tbase = tmp ? strrchr(tmp, '/') + 1 : NULL;
        if (!tmp)
            rc = -1;
        else if (renameat(pfd, tbase, pfd, method) != 0)
            rc = build__fail(sink, who, "cannot move the build into %s: %s", entry, strerror(errno));
        else {
            int nfd = openat(pfd, method, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc = nfd >= 0 && build__entry_load(nfd, secret, &key, files, go->name, link, &e, lib, exe) == BUILD_ENTRY_OK
                     ? build__entry_install(&e, link, bo->out, sink, who)
                     : build__fail(sink, who, "the cache entry %s changed while it was written", entry);
            build__entry_free(&e);
            if (nfd >= 0)
                close(nfd);
        }
        if (tmp && rc != 0)
            fs_rmtree_at(pfd, tbase);
        free(tmp);
    }
unlock:
    if (lfd >= 0)
        close(lfd);
    close(pfd);
    free(parent);
    if (rc == 0 && bo->entry_out)
        snprintf(bo->entry_out, bo->entry_out_len, "%s", entry);
done:
    free(rel);
    free(entry);
    sb_free(&key);
    return rc;
}
