/*
 * acl_mock.c - a stand-in for AscendCL, so that tests/acl can link and run
 * bundles built with --target acl where there is no NPU: device memory is
 * host memory, copies are memcpy, operators do nothing (their outputs keep
 * what the memory held), and every call that orders work is written to the
 * file $TNGC_ACL_MOCK_LOG, one line each:
 *
 *   stream <id> priority <p>        aclrtCreateStreamWithConfig
 *   event e<id> [sync]              aclrtCreateEvent[ExWithFlag] (sync: ACL_EVENT_SYNC)
 *   record e<id> s<id> / wait e<id> s<id>
 *   op <aclnnXxx> s<id> [capture]   an operator issued (while capturing)
 *   h2d <bytes> / d2h <bytes>       aclrtMemcpy
 *   capture begin s<id> / capture end / replay s<id>
 *   sync s<id>
 *   destroy s<id> / destroy e<id>   aclrtDestroyStream, aclrtDestroyEvent
 *   tensor nz view <d>x<d>.. storage <d>x<d>..   aclCreateTensor in FRACTAL_NZ (29)
 *   repeatable <aclnnXxx>           aclSetAclOpExecutorRepeatable
 *   fail <call> <n>                 the injected failure
 *   misuse <what>                   something AscendCL forbids or that races
 *   getws <aclnnXxx> <n>            at exit: its first phase was called n times
 *   live <streams> <events> <contexts> <blocks> <descriptors>   at exit
 *
 * Environment:
 *   TNGC_ACL_MOCK_FAIL=<call>[:<n>][,...]  the n-th call (default the
 *       first) of that name fails: error 507001 ("mock: injected failure"),
 *       NULL for the descriptor constructors and aclrtGetSocName. Any
 *       AscendCL or aclnn call can fail.
 *   TNGC_ACL_MOCK_CALLS=<file>  every call's name is appended to it, one a
 *       line (what a test loops over to fail each call of a good run).
 *   TNGC_ACL_MOCK_SOC=<name>  what aclrtGetSocName returns (default
 *       Ascend910B1; empty: NULL).
 *
 * It checks what AscendCL forbids or what would race on a device, and logs
 * "misuse" for it: a synchronous copy, a synchronisation or an allocation
 * during a capture; an event recorded in a capture that was not created
 * with ACL_EVENT_SYNC; a wait for an event never recorded; a stream, event,
 * context or model run instance used after its destroy (they are kept as
 * tombstones to tell); device memory used or freed after its free; a
 * synchronous copy while a stream still has queued work; a free of memory
 * that descriptors point into, or of a workspace, while work that may use
 * it is queued; a stream destroyed with queued work; a workspace smaller
 * than asked for; an executor used twice (unless made repeatable) or
 * destroyed twice, or never run nor destroyed (a repeatable one: never
 * destroyed); an FRACTAL_NZ tensor whose storage dims are not its view's
 * NZ layout or pass the end of its block. Work
 * is tracked per stream (tasks issued, tasks known done): synchronising a
 * stream completes its tasks and, through the events it waited for, those
 * of the streams it waited on. Tasks issued while capturing are kept in
 * the capture and are not queued.
 *
 * The operator functions are generated from tests/acl/cann/include/aclnnop
 * by tests/acl/run.sh (acl_mock_ops.c): they call mock_ws and mock_run.
 * This file is C and includes only acl/acl.h (CANN's aclnn headers are C++);
 * it declares the aclnn types as the bundles do.
 */
#include "acl/acl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclTensorList aclTensorList;
typedef int32_t aclnnStatus;

enum { INJECTED = 507001, MISUSE = 507899, BAD_ARG = 100000 };

/* ---- the log, failures, misuse ---- */

static FILE *mock_log_file, *mock_calls_file;
static int calls_opened;
static char recent[256];

static void mock_report(void);

static void mock_log(const char *fmt, ...)
{
    va_list ap;
    if (!mock_log_file) {
        const char *p = getenv("TNGC_ACL_MOCK_LOG");
        if (!p || !(mock_log_file = fopen(p, "a")))
            return;
        atexit(mock_report);
    }
    va_start(ap, fmt);
    vfprintf(mock_log_file, fmt, ap);
    va_end(ap);
    fputc('\n', mock_log_file);
    fflush(mock_log_file);
}

/* Every call starts here: its name goes to $TNGC_ACL_MOCK_CALLS; returns
 * 507001 when it is a call $TNGC_ACL_MOCK_FAIL names ("<call>[:<n>]", or
 * several, comma-separated): the n-th of that name (default the first). */
static int mock_call(const char *call)
{
    enum { MAX_FAILS = 8 };
    static long seen[MAX_FAILS];
    const char *f = getenv("TNGC_ACL_MOCK_FAIL");
    if (!calls_opened) {
        const char *p = getenv("TNGC_ACL_MOCK_CALLS");
        calls_opened = 1;
        if (p)
            mock_calls_file = fopen(p, "a");
    }
    if (mock_calls_file) {
        fprintf(mock_calls_file, "%s\n", call);
        fflush(mock_calls_file);
    }
    for (int k = 0; f && *f && k < MAX_FAILS; k++) {
        size_t n = strcspn(f, ":,");
        long nth = f[n] == ':' ? strtol(f + n + 1, NULL, 10) : 1;
        if (strlen(call) == n && !strncmp(f, call, n) && ++seen[k] == nth) {
            snprintf(recent, sizeof recent, "mock: injected failure");
            mock_log("fail %s %ld", call, nth);
            return INJECTED;
        }
        f += strcspn(f, ",");
        f += *f == ',';
    }
    return 0;
}

static int mock_misuse(const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(recent, sizeof recent, "mock: %s", what);
    mock_log("misuse %s", what);
    return MISUSE;
}

/* ---- objects: contexts, streams, events, model run instances ---- */

enum { K_CONTEXT, K_STREAM, K_EVENT, K_RI, K_KINDS };
static const char *const kind_name[K_KINDS] = {"context", "stream", "event", "model run instance"};
static const char kind_letter[K_KINDS] = {'c', 's', 'e', 'r'};

typedef struct MockWait {
    long at;           /* the waiting stream's task */
    int other;         /* ... waits for this stream's task oseq */
    long oseq;
} MockWait;

typedef struct MockObj {
    int kind, id, alive;
    unsigned flags;    /* events: their creation flags */
    long issued, done; /* streams: tasks queued, tasks known complete */
    MockWait *waits;
    int nwaits, capwaits;
    int recorded, rec_stream;   /* events: the last record */
    long rec_seq;
} MockObj;

/* Every object ever created, destroyed ones too (tombstones). */
static MockObj **objs;
static int nobjs, capobjs, n_made[K_KINDS], n_live[K_KINDS];
static int capturing = -1;   /* the stream a capture began on */
static int live_blocks, live_desc, live_exec;

static MockObj *obj_new(int kind)
{
    MockObj *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    if (nobjs == capobjs) {
        MockObj **grown = realloc(objs, (size_t)(capobjs ? 2 * capobjs : 64) * sizeof *objs);
        if (!grown) {
            free(o);
            return NULL;
        }
        objs = grown;
        capobjs = capobjs ? 2 * capobjs : 64;
    }
    objs[nobjs++] = o;
    o->kind = kind;
    o->id = n_made[kind]++;
    o->alive = 1;
    n_live[kind]++;
    return o;
}

/* The live object p of that kind, or NULL after logging the misuse. */
static MockObj *obj_get(const void *p, int kind, const char *call)
{
    for (int i = 0; i < nobjs; i++)
        if (objs[i] == p) {
            MockObj *o = objs[i];
            if (o->kind != kind)
                mock_misuse("%s: a %s passed as a %s", call, kind_name[o->kind], kind_name[kind]);
            else if (!o->alive)
                mock_misuse("%s: %s %c%d used after its destroy", call, kind_name[kind], kind_letter[kind], o->id);
            else
                return o;
            return NULL;
        }
    mock_misuse("%s: an unknown %s", call, kind_name[kind]);
    return NULL;
}

static MockObj *stream_by_id(int id)
{
    for (int i = 0; i < nobjs; i++)
        if (objs[i]->kind == K_STREAM && objs[i]->id == id)
            return objs[i];
    return NULL;
}

static void obj_destroy(MockObj *o)
{
    o->alive = 0;
    n_live[o->kind]--;
}

/* Stream s has run its tasks up to upto, and so the tasks it waited for. */
static void complete(MockObj *s, long upto)
{
    if (!s || upto <= s->done)
        return;
    s->done = upto;
    for (int i = 0; i < s->nwaits; i++)
        if (s->waits[i].at <= upto)
            complete(stream_by_id(s->waits[i].other), s->waits[i].oseq);
}

/* A task queued on s (none while capturing: the capture keeps it). */
static long issue(MockObj *s)
{
    return capturing >= 0 ? 0 : ++s->issued;
}

/* A live stream with queued work, or NULL. */
static MockObj *busy_stream(void)
{
    for (int i = 0; i < nobjs; i++)
        if (objs[i]->kind == K_STREAM && objs[i]->alive && objs[i]->done < objs[i]->issued)
            return objs[i];
    return NULL;
}

/* ---- device memory ---- */

typedef struct MockBlock {
    char *p;
    size_t size;
    int id, alive;
    int shared;        /* descriptors point into it: any stream may use it */
    int ws_stream;     /* the stream it was last a workspace of, or -1 */
    long ws_seq;
} MockBlock;

static MockBlock *blocks;
static int nblocks, capblocks;

/* The block holding [p, p + n): the live one, else a freed one, else NULL. */
static MockBlock *block_at(const void *p, size_t n)
{
    const char *c = p;
    MockBlock *dead = NULL;
    for (int i = nblocks - 1; i >= 0; i--) {
        MockBlock *b = &blocks[i];
        if (c < b->p || c + n > b->p + b->size)
            continue;
        if (b->alive)
            return b;
        if (!dead)
            dead = b;
    }
    return dead;
}

/* Whether [p, p + n) is live device memory (else the misuse is logged). */
static int device_ok(const void *p, size_t n, const char *call)
{
    MockBlock *b = block_at(p, n > 0 ? n : 1);
    if (!b)
        return mock_misuse("%s: an address outside device memory", call), 0;
    if (!b->alive)
        return mock_misuse("%s: block b%d used after its free", call, b->id), 0;
    return 1;
}

/* ---- AscendCL ---- */

static int initialised;
static char soc_name[64];

aclError aclInit(const char *configPath)
{
    (void)configPath;
    int rc = mock_call("aclInit");
    if (rc)
        return rc;
    if (initialised)
        return ACL_ERROR_REPEAT_INITIALIZE;
    initialised = 1;
    return 0;
}

const char *aclGetRecentErrMsg(void)
{
    return recent;
}

const char *aclrtGetSocName(void)
{
    const char *s = getenv("TNGC_ACL_MOCK_SOC");
    if (mock_call("aclrtGetSocName"))
        return NULL;
    if (s && !*s)
        return NULL;
    snprintf(soc_name, sizeof soc_name, "%s", s ? s : "Ascend910B1");
    return soc_name;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    mock_log("device %d", deviceId);
    return mock_call("aclrtSetDevice");
}

aclError aclrtResetDevice(int32_t deviceId)
{
    mock_log("reset %d", deviceId);
    return mock_call("aclrtResetDevice");
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    (void)deviceId;
    int rc = mock_call("aclrtCreateContext");
    if (rc)
        return rc;
    *context = obj_new(K_CONTEXT);
    return *context ? 0 : BAD_ARG;
}

aclError aclrtDestroyContext(aclrtContext context)
{
    MockObj *o = obj_get(context, K_CONTEXT, "aclrtDestroyContext");
    int rc = mock_call("aclrtDestroyContext");
    if (!o)
        return MISUSE;
    if (rc)
        return rc;
    obj_destroy(o);
    return 0;
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
    int rc = mock_call("aclrtSetCurrentContext");
    if (!obj_get(context, K_CONTEXT, "aclrtSetCurrentContext"))
        return MISUSE;
    return rc;
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    (void)flag;
    int rc = mock_call("aclrtCreateStreamWithConfig");
    MockObj *o;
    if (rc)
        return rc;
    if (!(o = obj_new(K_STREAM)))
        return BAD_ARG;
    *stream = o;
    mock_log("stream %d priority %u", o->id, priority);
    return 0;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    MockObj *o = obj_get(stream, K_STREAM, "aclrtDestroyStream");
    int rc = mock_call("aclrtDestroyStream");
    if (!o)
        return MISUSE;
    if (rc)
        return rc;
    if (o->done < o->issued)
        mock_misuse("aclrtDestroyStream: s%d destroyed with work queued (not synchronised)", o->id);
    mock_log("destroy s%d", o->id);
    obj_destroy(o);
    return 0;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    MockObj *o = obj_get(stream, K_STREAM, "aclrtSynchronizeStream");
    int rc = mock_call("aclrtSynchronizeStream");
    if (!o)
        return MISUSE;
    if (capturing >= 0)
        return mock_misuse("aclrtSynchronizeStream during a capture");
    mock_log("sync s%d", o->id);
    complete(o, o->issued);   /* also when it fails: the stream's work has ended, in error */
    return rc;
}

static aclError event_new(aclrtEvent *event, unsigned flags, const char *call)
{
    int rc = mock_call(call);
    MockObj *o;
    if (rc)
        return rc;
    if (!(o = obj_new(K_EVENT)))
        return BAD_ARG;
    o->flags = flags;
    *event = o;
    mock_log("event e%d%s", o->id, flags & ACL_EVENT_SYNC ? " sync" : "");
    return 0;
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
    return event_new(event, 0, "aclrtCreateEvent");
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return event_new(event, flag, "aclrtCreateEventExWithFlag");
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
    MockObj *o = obj_get(event, K_EVENT, "aclrtDestroyEvent");
    int rc = mock_call("aclrtDestroyEvent");
    if (!o)
        return MISUSE;
    if (rc)
        return rc;
    mock_log("destroy e%d", o->id);
    obj_destroy(o);
    return 0;
}

/* Events are numbered in creation order: a bundle creates the plan's
 * events first, so e<k> in the log is the plan's event k. */
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    MockObj *e = obj_get(event, K_EVENT, "aclrtRecordEvent"), *s = obj_get(stream, K_STREAM, "aclrtRecordEvent");
    int rc = mock_call("aclrtRecordEvent");
    if (!e || !s)
        return MISUSE;
    if (rc)
        return rc;
    mock_log("record e%d s%d", e->id, s->id);
    if (capturing >= 0 && !(e->flags & ACL_EVENT_SYNC))
        mock_misuse("aclrtRecordEvent: e%d recorded in a capture was not created with ACL_EVENT_SYNC", e->id);
    e->recorded = 1;
    e->rec_stream = s->id;
    e->rec_seq = capturing >= 0 ? 0 : issue(s);
    return 0;
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    MockObj *e = obj_get(event, K_EVENT, "aclrtStreamWaitEvent"), *s = obj_get(stream, K_STREAM, "aclrtStreamWaitEvent");
    int rc = mock_call("aclrtStreamWaitEvent");
    long at;
    if (!e || !s)
        return MISUSE;
    if (rc)
        return rc;
    mock_log("wait e%d s%d", e->id, s->id);
    if (!e->recorded)
        return mock_misuse("aclrtStreamWaitEvent: s%d waits for e%d, never recorded", s->id, e->id);
    if ((at = issue(s)) == 0)
        return 0;
    if (s->nwaits == s->capwaits) {
        MockWait *grown = realloc(s->waits, (size_t)(s->capwaits ? 2 * s->capwaits : 16) * sizeof *grown);
        if (!grown)
            return BAD_ARG;
        s->waits = grown;
        s->capwaits = s->capwaits ? 2 * s->capwaits : 16;
    }
    s->waits[s->nwaits++] = (MockWait){at, e->rec_stream, e->rec_seq};
    return 0;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)policy;
    int rc = mock_call("aclrtMalloc");
    void *p;
    if (rc)
        return rc;
    if (capturing >= 0)
        return mock_misuse("aclrtMalloc during a capture");
    if (size == 0 || !(p = calloc(1, size)))
        return 207001;
    if (nblocks == capblocks) {
        MockBlock *grown = realloc(blocks, (size_t)(capblocks ? 2 * capblocks : 64) * sizeof *blocks);
        if (!grown) {
            free(p);
            return 207001;
        }
        blocks = grown;
        capblocks = capblocks ? 2 * capblocks : 64;
    }
    blocks[nblocks] = (MockBlock){p, size, nblocks, 1, 0, -1, 0};
    nblocks++;
    live_blocks++;
    *devPtr = p;
    return 0;
}

aclError aclrtFree(void *devPtr)
{
    int rc = mock_call("aclrtFree");
    MockBlock *b = block_at(devPtr, 1);
    MockObj *busy = busy_stream(), *ws;
    if (!b || b->p != devPtr)
        return mock_misuse("aclrtFree: not the start of a device block");
    if (!b->alive)
        return mock_misuse("aclrtFree: block b%d freed twice", b->id);
    if (rc)
        return rc;
    if (b->shared && busy)
        mock_misuse("aclrtFree: block b%d, which descriptors point into, freed while s%d has work queued", b->id,
                    busy->id);
    ws = b->ws_stream >= 0 ? stream_by_id(b->ws_stream) : NULL;
    if (ws && ws->done < b->ws_seq)
        mock_misuse("aclrtFree: block b%d, the workspace of work still queued on s%d, freed", b->id, ws->id);
    free(b->p);
    b->alive = 0;
    live_blocks--;
    return 0;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    int rc = mock_call("aclrtMemset");
    if (rc)
        return rc;
    if (count > maxCount)
        return mock_misuse("aclrtMemset past maxCount");
    if (!device_ok(devPtr, count, "aclrtMemset"))
        return MISUSE;
    memset(devPtr, value, count);
    return 0;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    int rc = mock_call("aclrtMemcpy");
    MockObj *busy = busy_stream();
    if (capturing >= 0)
        return mock_misuse("aclrtMemcpy during a capture");
    if (count > destMax)
        return mock_misuse("aclrtMemcpy past destMax");
    if ((kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE) && !device_ok(dst, count, "aclrtMemcpy"))
        return MISUSE;
    if ((kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE) && !device_ok(src, count, "aclrtMemcpy"))
        return MISUSE;
    if (busy)
        mock_misuse("aclrtMemcpy: a synchronous copy while s%d has work queued", busy->id);
    if (rc)
        return rc;
    memcpy(dst, src, count);
    mock_log("%s %zu", kind == ACL_MEMCPY_HOST_TO_DEVICE ? "h2d" : kind == ACL_MEMCPY_DEVICE_TO_HOST ? "d2h" : "copy",
             count);
    /* TNGC_ACL_MOCK_H2D=file: every host-to-device copy appended as an
     * 8-byte little-endian size and the bytes (tests read layouts back) */
    const char *dump = getenv("TNGC_ACL_MOCK_H2D");
    if (dump && *dump && kind == ACL_MEMCPY_HOST_TO_DEVICE) {
        FILE *f = fopen(dump, "ab");
        if (f) {
            unsigned char len[8];
            for (int k = 0; k < 8; k++)
                len[k] = (unsigned char)((uint64_t)count >> (8 * k));
            fwrite(len, 1, 8, f);
            fwrite(src, 1, count, f);
            fclose(f);
        }
    }
    return 0;
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    (void)mode;
    MockObj *s = obj_get(stream, K_STREAM, "aclmdlRICaptureBegin");
    int rc = mock_call("aclmdlRICaptureBegin");
    if (!s)
        return MISUSE;
    if (rc)
        return rc;
    if (capturing >= 0)
        return mock_misuse("aclmdlRICaptureBegin during a capture");
    capturing = s->id;
    mock_log("capture begin s%d", capturing);
    return 0;
}

/* Ends the capture also when it fails (and then returns no instance). */
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    MockObj *s = obj_get(stream, K_STREAM, "aclmdlRICaptureEnd"), *ri;
    int rc = mock_call("aclmdlRICaptureEnd");
    if (!s)
        return MISUSE;
    if (s->id != capturing)
        return mock_misuse("aclmdlRICaptureEnd on another stream");
    capturing = -1;
    mock_log("capture end");
    if (rc)
        return rc;
    if (!(ri = obj_new(K_RI)))
        return BAD_ARG;
    *modelRI = ri;
    return 0;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    MockObj *ri = obj_get(modelRI, K_RI, "aclmdlRIExecuteAsync"), *s = obj_get(stream, K_STREAM, "aclmdlRIExecuteAsync");
    int rc = mock_call("aclmdlRIExecuteAsync");
    if (!ri || !s)
        return MISUSE;
    if (rc)
        return rc;
    mock_log("replay s%d", s->id);
    issue(s);
    return 0;
}

aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    MockObj *ri = obj_get(modelRI, K_RI, "aclmdlRIDestroy");
    int rc = mock_call("aclmdlRIDestroy");
    if (!ri)
        return MISUSE;
    if (rc)
        return rc;
    obj_destroy(ri);
    return 0;
}

/* ---- aclnn operands ---- */

static size_t dtype_bytes(aclDataType t)
{
    switch (t) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: return 2;
    case ACL_INT64: case ACL_DOUBLE: return 8;
    default: return 4;
    }
}

/* An FRACTAL_NZ tensor: logged; its storage dims must be the NZ layout of
 * its view ([..., h, w] -> [..., ceil(w/w0), ceil(h/16), 16, w0], w0 = 32
 * bytes' worth of 1-byte elements, else 16; of a transposed 2-D view, of
 * the untransposed matrix) and lie within its block. */
static int nz_ok(const int64_t *v, uint64_t nv, aclDataType dt, const int64_t *sd, uint64_t ns, void *data)
{
    char line[256];
    size_t at = 0;
    int64_t w0 = dtype_bytes(dt) == 1 ? 32 : 16, n = (int64_t)dtype_bytes(dt), h, w;
    at += (size_t)snprintf(line + at, sizeof line - at, "tensor nz view");
    for (uint64_t k = 0; k < nv && at < sizeof line; k++)
        at += (size_t)snprintf(line + at, sizeof line - at, "%s%lld", k ? "x" : " ", (long long)v[k]);
    at += at < sizeof line ? (size_t)snprintf(line + at, sizeof line - at, " storage") : 0;
    for (uint64_t k = 0; sd && k < ns && at < sizeof line; k++)
        at += (size_t)snprintf(line + at, sizeof line - at, "%s%lld", k ? "x" : " ", (long long)sd[k]);
    mock_log("%s", line);
    if (nv < 1 || !sd || ns != (nv > 2 ? nv - 2 : 0) + 4)
        return mock_misuse("aclCreateTensor: FRACTAL_NZ storage of %llu dims for a view of %llu",
                           (unsigned long long)ns, (unsigned long long)nv), 0;
    h = nv >= 2 ? v[nv - 2] : 1;
    w = v[nv - 1];
    for (uint64_t k = 0; k < ns; k++)
        n *= sd[k];
    if (sd[ns - 1] != w0 || sd[ns - 2] != 16 ||
        !((sd[ns - 4] == (w + w0 - 1) / w0 && sd[ns - 3] == (h + 15) / 16) ||
          (nv == 2 && sd[ns - 4] == (h + w0 - 1) / w0 && sd[ns - 3] == (w + 15) / 16)))
        return mock_misuse("aclCreateTensor: FRACTAL_NZ storage dims not the NZ layout of the view"), 0;
    if (!device_ok(data, (size_t)n, "aclCreateTensor (FRACTAL_NZ storage)"))
        return 0;
    return 1;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                           uint64_t storageDimsNum, void *tensorData)
{
    (void)stride, (void)offset;
    MockBlock *b;
    void *t;
    if (mock_call("aclCreateTensor") || !tensorData || (viewDimsNum && !viewDims) || viewDimsNum > 8)
        return NULL;
    if (!device_ok(tensorData, 1, "aclCreateTensor"))
        return NULL;
    if (format == ACL_FORMAT_FRACTAL_NZ &&
        !nz_ok(viewDims, viewDimsNum, dataType, storageDims, storageDimsNum, tensorData))
        return NULL;
    b = block_at(tensorData, 1);
    b->shared = 1;
    if ((t = calloc(1, 8)))
        live_desc++;
    return t;
}

static void *desc_new(const char *call, int ok)
{
    void *d;
    if (mock_call(call) || !ok || !(d = calloc(1, 8)))
        return NULL;
    live_desc++;
    return d;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    (void)dataType;
    return desc_new("aclCreateScalar", value != NULL);
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return desc_new("aclCreateIntArray", value || !size);
}

/* A tensor list owns its tensors: destroying it destroys them. */
typedef struct MockList {
    uint64_t n;
    const aclTensor **t;
} MockList;

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    MockList *l;
    if (mock_call("aclCreateTensorList") || (size && !value) || !(l = calloc(1, sizeof *l)))
        return NULL;
    if (size && !(l->t = calloc(size, sizeof *l->t))) {
        free(l);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++)
        l->t[i] = value[i];
    l->n = size;
    live_desc -= (int)size - 1;
    return (aclTensorList *)l;
}

/* A descriptor whose destroy failed stays the runtime's (reachable, so
 * that a sanitizer's leak check blames no one). */
static const void *kept[64];
static int nkept;

static aclnnStatus desc_destroy(const char *call, const void *d)
{
    int rc = mock_call(call);
    if (rc) {
        if (nkept < 64)
            kept[nkept++] = d;
        return rc;
    }
    free((void *)d);
    live_desc--;
    return 0;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    return desc_destroy("aclDestroyTensor", tensor);
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    return desc_destroy("aclDestroyScalar", scalar);
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    return desc_destroy("aclDestroyIntArray", array);
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    MockList *l = (MockList *)array;
    int rc = mock_call("aclDestroyTensorList");
    if (rc) {
        if (nkept < 64)
            kept[nkept++] = array;
        return rc;
    }
    live_desc--;   /* its tensors left the count when it took them */
    for (uint64_t i = 0; i < l->n; i++)
        free((void *)l->t[i]);
    free(l->t);
    free(l);
    return 0;
}

/* ---- what the generated operator functions call ---- */

typedef struct MockExec {
    const char *op;
    uint64_t ws;
    int repeatable, spent;
    int kept;          /* its destroy failed: the runtime's, not a leak */
} MockExec;

/* Every executor ever made (spent ones kept, to tell a reuse), and each
 * operator's first-phase calls. */
static MockExec **execs;
static int nexecs, capexecs;
static struct { const char *op; int n; } getws[128];
static int ngetws;

aclnnStatus mock_ws(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus mock_run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

static void count_getws(const char *op)
{
    int i = 0;
    while (i < ngetws && strcmp(getws[i].op, op) != 0)
        i++;
    if (i == ngetws && ngetws < 128)
        getws[ngetws++].op = op;
    if (i < ngetws)
        getws[i].n++;
}

/* The live executor p, or NULL after logging the misuse. */
static MockExec *exec_get(const void *p, const char *call)
{
    for (int i = 0; i < nexecs; i++)
        if (execs[i] == p) {
            if (execs[i]->spent)
                return mock_misuse("%s: an executor of %s used again after its run or destroy%s", call,
                                   execs[i]->op, execs[i]->repeatable ? "" : " (not repeatable)"), NULL;
            return execs[i];
        }
    mock_misuse("%s: an unknown executor", call);
    return NULL;
}

aclnnStatus mock_ws(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char name[128];
    snprintf(name, sizeof name, "%sGetWorkspaceSize", op);
    int rc = mock_call(name);
    if (rc)
        return rc;
    count_getws(op);
    MockExec *e = calloc(1, sizeof *e);
    if (!e)
        return BAD_ARG;
    if (nexecs == capexecs) {
        MockExec **grown = realloc(execs, (size_t)(capexecs ? 2 * capexecs : 64) * sizeof *execs);
        if (!grown) {
            free(e);
            return BAD_ARG;
        }
        execs = grown;
        capexecs = capexecs ? 2 * capexecs : 64;
    }
    execs[nexecs++] = e;
    e->op = op;
    e->ws = strlen(op) * 64;   /* some workspace, op-dependent */
    *workspaceSize = e->ws;
    *executor = (aclOpExecutor *)e;
    live_exec++;
    return 0;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    MockExec *e = exec_get(executor, "aclSetAclOpExecutorRepeatable");
    int rc = mock_call("aclSetAclOpExecutorRepeatable");
    if (!e)
        return MISUSE;
    if (rc)
        return rc;
    e->repeatable = 1;
    mock_log("repeatable %s", e->op);
    return 0;
}

/* The operator's second phase: a plain executor is spent, also when it
 * fails; a repeatable one stays until its destroy. */
aclnnStatus mock_run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream)
{
    MockExec *e = exec_get(executor, op);
    MockObj *s = obj_get(stream, K_STREAM, op);
    MockBlock *b;
    uint64_t asked;
    int rc = mock_call(op);
    if (!e)
        return MISUSE;
    if (strcmp(e->op, op) != 0)
        return mock_misuse("an executor of another operator");
    asked = e->ws;
    if (!e->repeatable) {
        e->spent = 1;   /* one run per executor */
        live_exec--;
    }
    if (!s)
        return MISUSE;
    if (workspaceSize < asked || (asked && !workspace))
        return mock_misuse("a workspace smaller than asked for");
    if (workspace && !device_ok(workspace, workspaceSize, op))
        return MISUSE;
    if (rc)
        return rc;
    mock_log("op %s s%d%s", op, s->id, capturing >= 0 ? " capture" : "");
    if (workspace && capturing < 0) {
        b = block_at(workspace, workspaceSize);
        b->ws_stream = s->id;
        b->ws_seq = issue(s);
    } else {
        issue(s);
    }
    return 0;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    MockExec *e = exec_get(executor, "aclDestroyAclOpExecutor");
    int rc = mock_call("aclDestroyAclOpExecutor");
    if (!e)
        return MISUSE;
    if (rc) {
        e->kept = 1;
        return rc;
    }
    e->spent = 1;
    live_exec--;
    return 0;
}

/* At exit: what was never released, and the executors never spent. */
static void mock_report(void)
{
    if (!mock_log_file)
        return;
    for (int i = 0; i < nexecs; i++)
        live_exec -= !execs[i]->spent && execs[i]->kept;
    if (live_exec)
        mock_log("misuse %d executor%s neither run nor destroyed", live_exec, live_exec == 1 ? "" : "s");
    for (int i = 0; i < ngetws; i++)
        fprintf(mock_log_file, "getws %s %d\n", getws[i].op, getws[i].n);
    fprintf(mock_log_file, "live %d %d %d %d %d\n", n_live[K_STREAM], n_live[K_EVENT], n_live[K_CONTEXT], live_blocks,
            live_desc + n_live[K_RI]);
    fclose(mock_log_file);
    mock_log_file = NULL;
    if (mock_calls_file)
        fclose(mock_calls_file);
    mock_calls_file = NULL;
    for (int i = 0; i < nexecs; i++)
        free(execs[i]);
    free(execs);
    execs = NULL;
    nexecs = capexecs = 0;
}
