/*
 * manifest.c - the op-info tree of TorchAir's static-kernel compilation:
 *
 *   <build_dir>/aclnn_static_shape_kernel_outputs/
 *       <timestamp>_<pid>_outputs/
 *           <pid>/<key>.json          one per selected static kernel
 *           <pid>_debug/<key>.json    one per static kernel, views included
 *
 * Each file describes one kernel instance: ACL op type, op name, input and
 * output dtypes/formats/shapes in the gear where it first occurs, the op's
 * attributes and its source location. The compiled kernel package that
 * TorchAir writes next to these folders (static_kernel_<datetime>.run) is
 * produced by the code generator's build step, not here.
 *
 * The timestamp is the current UTC time (%Y%m%d%H%M%S) and pid the
 * process id, unless SOURCE_DATE_EPOCH is set: then the timestamp comes
 * from it and pid is 0, so that the tree is reproducible.
 * docs/plan-format.md describes the tree and the JSON fields.
 */
#include "codegen.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reports an error of the manifests of who (the entry) in sink. */
static void manifest__err(Sink *sink, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sink_vreport(sink, SEV_ERROR, who, fmt, ap);
    va_end(ap);
}

/* 1 when path has ".." as a component. */
static int manifest__has_dotdot(const char *path)
{
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
        p += *p == '/';
    }
    return 0;
}

/* build_dir must be given, free of "..", an existing writable directory. */
static int manifest__check_dir(const char *dir, Sink *sink, const char *who)
{
    struct stat st;
    if (!dir || !*dir) {
        manifest__err(sink, who, "static kernel build dir is empty");
        return -1;
    }
    if (manifest__has_dotdot(dir)) {
        manifest__err(sink, who, "static kernel build dir '%s' contains '..'", dir);
        return -1;
    }
    if (stat(dir, &st) != 0) {
        manifest__err(sink, who, "static kernel build dir '%s' does not exist", dir);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        manifest__err(sink, who, "static kernel build dir '%s' is not a directory", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        manifest__err(sink, who, "static kernel build dir '%s' is not writable", dir);
        return -1;
    }
    return 0;
}

/* Keys become file names: they must be plain names. */
static int manifest__check_keys(const Plan *p, Sink *sink, const char *who)
{
    for (size_t i = 0; i < p->kernels.n; i++) {
        const char *k = p->kernels.v[i].key;
        TNGC_ASSERT(p->kernels.v[i].op >= 0 && (size_t)p->kernels.v[i].op < p->g->ops.n);
        if (!k || !*k || strchr(k, '/') || !strcmp(k, ".") || !strcmp(k, "..")) {
            manifest__err(sink, who, "static kernel %s has no usable file name", k ? k : "(null)");
            return -1;
        }
    }
    return 0;
}

/* SOURCE_DATE_EPOCH: -1 when unset or empty, -2 when not a non-negative
 * integer, else its value. */
static long long manifest__source_date_epoch(void)
{
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (!s || !*s)
        return -1;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
            return -2;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* "<timestamp>" into stamp and the pid to use. */
static int manifest__stamp(char *stamp, size_t n, long *pid, Sink *sink, const char *who)
{
    long long epoch = manifest__source_date_epoch();
    if (epoch == -2) {
        manifest__err(sink, who, "SOURCE_DATE_EPOCH '%s' is not a non-negative integer",
                      getenv("SOURCE_DATE_EPOCH"));
        return -1;
    }
    time_t t = epoch >= 0 ? (time_t)epoch : time(NULL);
    struct tm tm;
    if ((epoch >= 0 && (long long)t != epoch) || !gmtime_r(&t, &tm) ||
        strftime(stamp, n, "%Y%m%d%H%M%S", &tm) == 0) {
        manifest__err(sink, who, "cannot format the timestamp of the static kernel outputs");
        return -1;
    }
    *pid = epoch >= 0 ? 0 : (long)getpid();
    return 0;
}

/* mkdir 0755; an existing directory is fine. */
static int manifest__mkdir(const char *path, Sink *sink, const char *who)
{
    struct stat st;
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        manifest__err(sink, who, "cannot create directory '%s'", path);
        return -1;
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        manifest__err(sink, who, "'%s' exists and is not a directory", path);
        return -1;
    }
    return 0;
}

/* {"dtype":"float","format":"ND","shape":[1,2048]}: dims of the gear, -1
 * where a dim does not evaluate. */
static void manifest__tensor(const Graph *g, int32_t v, const int64_t *symval, StrBuf *out)
{
    const Val *val = &g->vals.v[v];
    sb_printf(out, "{\"dtype\":\"%s\",\"format\":\"%s\",\"shape\":[", codegen_dtype_name(val->dtype),
              format_name(val->format));
    for (uint8_t d = 0; d < val->ndim; d++) {
        int64_t c;
        if (!symval || graph_dim_eval(g, val->dims[d], symval, &c) != 0)
            if (!graph_dim_const_value(g, val->dims[d], &c))
                c = -1;
        sb_printf(out, d ? ",%lld" : "%lld", (long long)c);
    }
    sb_puts(out, "]}");
}

static void manifest__tensors(const Graph *g, const Op *op, const int64_t *symval, StrBuf *out)
{
    int n = 0;
    sb_puts(out, "\"inputs\":[");
    for (uint32_t i = 0; i < op->nin; i++) {
        if (op->in[i] < 0)
            continue;
        sb_puts(out, n++ ? ",\n    " : "\n    ");
        manifest__tensor(g, op->in[i], symval, out);
    }
    sb_puts(out, "],\n  \"outputs\":[");
    for (uint32_t k = 0; k < op->nout; k++) {
        sb_puts(out, k ? ",\n    " : "\n    ");
        manifest__tensor(g, op->out + (int32_t)k, symval, out);
    }
    sb_puts(out, "],\n");
}

/* The JSON of one static kernel. */
static void manifest__kernel_json(const Plan *p, const StaticKernel *k, StrBuf *out)
{
    const Graph *g = p->g;
    const Op *op = &g->ops.v[k->op];
    const int64_t *symval = k->gear >= 0 && (size_t)k->gear < p->gears.n ? p->gears.v[k->gear].symval : NULL;
    sb_printf(out, "{\n  \"op_type\":\"%s\",\n  \"op_name\":\"%s_%d\",\n  ", codegen_op_type(g, k->op),
              op_info[op->kind].name, (int)k->op);
    manifest__tensors(g, op, symval, out);
    sb_puts(out, "  \"attrs\":");
    plan_op_attrs_json(g, k->op, out);
    sb_printf(out, ",\n  \"source\":{\"line\":%u,\"col\":%u}\n}\n", op->line, op->col);
}

/* Writes <dir>/<key>.json atomically. */
static int manifest__write_one(const char *dir, const char *key, const StrBuf *json, Sink *sink, const char *who)
{
    StrBuf path = {0};
    sb_printf(&path, "%s/%s.json", dir, key);
    int rc = write_file_atomic(path.s, json->s, json->len);
    if (rc != 0)
        manifest__err(sink, who, "cannot write '%s'", path.s);
    sb_free(&path);
    return rc;
}

static int manifest__write_kernels(const Plan *p, const char *sel, const char *dbg, Sink *sink, const char *who)
{
    for (size_t i = 0; i < p->kernels.n; i++) {
        const StaticKernel *k = &p->kernels.v[i];
        StrBuf json = {0};
        manifest__kernel_json(p, k, &json);
        int rc = manifest__write_one(dbg, k->key, &json, sink, who);
        if (rc == 0 && k->selected)
            rc = manifest__write_one(sel, k->key, &json, sink, who);
        sb_free(&json);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The four directories of the tree, created in order. */
typedef struct ManifestDirs {
    StrBuf root, run, sel, dbg;
} ManifestDirs;

static void manifest__dirs(ManifestDirs *d, const char *build_dir, const char *stamp, long pid)
{
    size_t n = strlen(build_dir);
    while (n > 1 && build_dir[n - 1] == '/')
        n--;
    sb_putn(&d->root, build_dir, n);
    sb_puts(&d->root, n == 1 && build_dir[0] == '/' ? "" : "/");
    sb_puts(&d->root, "aclnn_static_shape_kernel_outputs");
    sb_printf(&d->run, "%s/%s_%ld_outputs", d->root.s, stamp, pid);
    sb_printf(&d->sel, "%s/%ld", d->run.s, pid);
    sb_printf(&d->dbg, "%s/%ld_debug", d->run.s, pid);
}

static void manifest__dirs_free(ManifestDirs *d)
{
    sb_free(&d->root);
    sb_free(&d->run);
    sb_free(&d->sel);
    sb_free(&d->dbg);
}

int manifest_write(const Plan *self, const char *build_dir, Sink *sink)
{
    const char *who = self->g->name;
    char stamp[64];
    long pid;
    if (manifest__check_dir(build_dir, sink, who) != 0 || manifest__check_keys(self, sink, who) != 0 ||
        manifest__stamp(stamp, sizeof stamp, &pid, sink, who) != 0)
        return -1;
    ManifestDirs d = {{0}, {0}, {0}, {0}};
    manifest__dirs(&d, build_dir, stamp, pid);
    int rc = -1;
    if (manifest__mkdir(d.root.s, sink, who) == 0 && manifest__mkdir(d.run.s, sink, who) == 0 &&
        manifest__mkdir(d.sel.s, sink, who) == 0 && manifest__mkdir(d.dbg.s, sink, who) == 0)
        rc = manifest__write_kernels(self, d.sel.s, d.dbg.s, sink, who);
    manifest__dirs_free(&d);
    return rc;
}

int manifest_write_entries(const Plan *plans, size_t n, const char *script, int quiet, Sink *sink)
{
    int written = 0;
    for (size_t i = 0; i < n; i++) {
        const EntryConfig *c = &plans[i].g->cfg;
        if (!c->static_kernel || !c->mode || strcmp(c->mode, "reduce-overhead") != 0)
            continue;
        char *dir = path_dir(script);
        char *build = NULL;
        if (!c->build_dir)
            build = xstrdup(dir);
        else if (c->build_dir[0] == '/' || !strcmp(dir, "."))
            build = xstrdup(c->build_dir);
        else {
            StrBuf sb = {0};
            sb_printf(&sb, "%s/%s", dir, c->build_dir);
            build = sb.s;
        }
        int rc = manifest_write(&plans[i], build, sink);
        free(dir);
        free(build);
        if (rc != 0)
            return -1;
        written++;
    }
    if (!written && !quiet)
        sink_note(sink, "no entry runs in reduce-overhead mode with _aclnn_static_shape_kernel = True: no manifest written");
    return 0;
}
