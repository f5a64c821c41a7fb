/*
 * acl_mock.c - a stand-in for AscendCL, so that tests/acl/run.sh can link
 * and run bundles built with --target acl where there is no NPU: device
 * memory is host memory, copies are memcpy, operators do nothing (their
 * outputs keep what the memory held), and every call that orders work is
 * written to the file $TNGC_ACL_MOCK_LOG, one line each:
 *
 *   stream <id> priority <p>        aclrtCreateStreamWithConfig
 *   record e<id> s<id> / wait e<id> s<id>
 *   op <aclnnXxx> s<id> [capture]   an operator issued (while capturing)
 *   h2d <bytes> / d2h <bytes>       aclrtMemcpy
 *   capture begin s<id> / capture end / replay s<id>
 *   sync s<id>
 *   live <streams> <events> <contexts> <blocks> <descriptors>   at exit
 *
 * $TNGC_ACL_MOCK_FAIL=<call> makes the first call of that name fail with
 * error 507001 ("mock: injected failure"). It checks what AscendCL forbids:
 * a synchronous copy or a synchronisation during a capture, a workspace
 * smaller than asked for, an executor used twice.
 *
 * The operator functions are generated from tests/acl/cann/include/aclnnop
 * by tests/acl/run.sh (acl_mock_ops.c).
 */
#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct MockObj {
    int id;
} MockObj;

static FILE *mock_log_file;
static int live_streams, live_events, live_ctx, live_blocks, live_desc;
static int n_streams, n_events, initialised, capturing = -1;
static char recent[256];
static int failed;

static void mock_report(void)
{
    if (mock_log_file) {
        fprintf(mock_log_file, "live %d %d %d %d %d\n", live_streams, live_events, live_ctx, live_blocks, live_desc);
        fclose(mock_log_file);
    }
}

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

/* 507001 when call is the one to fail (once). */
static int mock_fail(const char *call)
{
    const char *f = getenv("TNGC_ACL_MOCK_FAIL");
    if (failed || !f || strcmp(f, call) != 0)
        return 0;
    failed = 1;
    snprintf(recent, sizeof recent, "mock: injected failure");
    return 507001;
}

static int mock_misuse(const char *what)
{
    snprintf(recent, sizeof recent, "mock: %s", what);
    mock_log("misuse %s", what);
    return 507899;
}

static int sid(aclrtStream s)
{
    return s ? ((MockObj *)s)->id : -1;
}

aclError aclInit(const char *configPath)
{
    (void)configPath;
    if (initialised)
        return ACL_ERROR_REPEAT_INITIALIZE;
    initialised = 1;
    return mock_fail("aclInit");
}

const char *aclGetRecentErrMsg(void)
{
    return recent;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    mock_log("device %d", deviceId);
    return mock_fail("aclrtSetDevice");
}

aclError aclrtResetDevice(int32_t deviceId)
{
    mock_log("reset %d", deviceId);
    return 0;
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    (void)deviceId;
    int rc = mock_fail("aclrtCreateContext");
    if (rc)
        return rc;
    *context = calloc(1, sizeof(MockObj));
    live_ctx++;
    return 0;
}

aclError aclrtDestroyContext(aclrtContext context)
{
    free(context);
    live_ctx--;
    return 0;
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
    return context ? mock_fail("aclrtSetCurrentContext") : 507000;
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    (void)flag;
    int rc = mock_fail("aclrtCreateStreamWithConfig");
    if (rc)
        return rc;
    MockObj *o = calloc(1, sizeof *o);
    o->id = n_streams++;
    *stream = o;
    live_streams++;
    mock_log("stream %d priority %u", o->id, priority);
    return 0;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    free(stream);
    live_streams--;
    return 0;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    if (capturing >= 0)
        return mock_misuse("aclrtSynchronizeStream during a capture");
    mock_log("sync s%d", sid(stream));
    return mock_fail("aclrtSynchronizeStream");
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
    MockObj *o = calloc(1, sizeof *o);
    o->id = n_events++;
    *event = o;
    live_events++;
    return 0;
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
    free(event);
    live_events--;
    return 0;
}

/* Events are numbered in creation order: a bundle creates the plan's
 * events first, so e<k> in the log is the plan's event k. */
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    mock_log("record e%d s%d", ((MockObj *)event)->id, sid(stream));
    return mock_fail("aclrtRecordEvent");
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    mock_log("wait e%d s%d", ((MockObj *)event)->id, sid(stream));
    return mock_fail("aclrtStreamWaitEvent");
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)policy;
    int rc = mock_fail("aclrtMalloc");
    if (rc)
        return rc;
    if (capturing >= 0)
        return mock_misuse("aclrtMalloc during a capture");
    if (size == 0 || !(*devPtr = calloc(1, size)))
        return 207001;
    live_blocks++;
    return 0;
}

aclError aclrtFree(void *devPtr)
{
    free(devPtr);
    live_blocks--;
    return 0;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    if (count > maxCount)
        return mock_misuse("aclrtMemset past maxCount");
    memset(devPtr, value, count);
    return 0;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (capturing >= 0)
        return mock_misuse("aclrtMemcpy during a capture");
    if (count > destMax)
        return mock_misuse("aclrtMemcpy past destMax");
    int rc = mock_fail("aclrtMemcpy");
    if (rc)
        return rc;
    memcpy(dst, src, count);
    mock_log("%s %zu", kind == ACL_MEMCPY_HOST_TO_DEVICE ? "h2d" : kind == ACL_MEMCPY_DEVICE_TO_HOST ? "d2h" : "copy",
             count);
    return 0;
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    (void)mode;
    capturing = sid(stream);
    mock_log("capture begin s%d", capturing);
    return mock_fail("aclmdlRICaptureBegin");
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    if (sid(stream) != capturing)
        return mock_misuse("aclmdlRICaptureEnd on another stream");
    capturing = -1;
    *modelRI = calloc(1, sizeof(MockObj));
    live_desc++;
    mock_log("capture end");
    return mock_fail("aclmdlRICaptureEnd");
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    (void)modelRI;
    mock_log("replay s%d", sid(stream));
    return mock_fail("aclmdlRIExecuteAsync");
}

aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    free(modelRI);
    live_desc--;
    return 0;
}

/* ---- aclnn operands ---- */

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                           uint64_t storageDimsNum, void *tensorData)
{
    (void)viewDims, (void)viewDimsNum, (void)dataType, (void)stride, (void)offset, (void)format;
    (void)storageDims, (void)storageDimsNum;
    if (mock_fail("aclCreateTensor") || !tensorData || (viewDimsNum && !viewDims) || viewDimsNum > 8)
        return NULL;
    live_desc++;
    return calloc(1, 8);
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    (void)dataType;
    if (!value)
        return NULL;
    live_desc++;
    return calloc(1, 8);
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    if (!value && size)
        return NULL;
    live_desc++;
    return calloc(1, 8);
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    (void)value;
    live_desc -= (int)size;   /* the list owns its tensors */
    live_desc++;
    return calloc(1, 8);
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    free((void *)tensor);
    live_desc--;
    return 0;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    free((void *)scalar);
    live_desc--;
    return 0;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    free((void *)array);
    live_desc--;
    return 0;
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    free((void *)array);
    live_desc--;
    return 0;
}

/* ---- what the generated operator functions call ---- */

typedef struct MockExec {
    const char *op;
    uint64_t ws;
} MockExec;

aclnnStatus mock_ws(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus mock_run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);

aclnnStatus mock_ws(const char *op, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    char name[128];
    snprintf(name, sizeof name, "%sGetWorkspaceSize", op);
    int rc = mock_fail(name);
    if (rc)
        return rc;
    MockExec *e = calloc(1, sizeof *e);
    e->op = op;
    e->ws = strlen(op) * 64;   /* some workspace, op-dependent */
    *workspaceSize = e->ws;
    *executor = (aclOpExecutor *)e;
    return 0;
}

aclnnStatus mock_run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream)
{
    MockExec *e = (MockExec *)executor;
    if (!e || strcmp(e->op, op) != 0)
        return mock_misuse("an executor of another operator");
    if (workspaceSize < e->ws || (e->ws && !workspace))
        return mock_misuse("a workspace smaller than asked for");
    free(e);   /* one run per executor */
    mock_log("op %s s%d%s", op, sid(stream), capturing >= 0 ? " capture" : "");
    return mock_fail(op);
}
