/*
 * checker.c - drives aclsim's checker directly, one scenario per run
 * (tests/aclsim/run.sh runs each and reads its status and stderr): two
 * streams, device buffers x, y, z of 64 floats, aclnnAdds(x, 1) -> y on
 * stream 0 and aclnnAdds(y, 1) -> z on stream 1.
 *
 *   ordered     an event recorded after the first and waited before the
 *               second: no report, z = x + 2 after synchronising;
 *   race        no event: the second reads y, which the first writes;
 *   free        y freed while the first may not have run;
 *   after-free  y freed after synchronising stream 0, then the second
 *               launched over it;
 *   workspace   both launched with one workspace and no event between them;
 *   twice       a non-repeatable executor launched a second time.
 *
 * usage: checker SCENARIO     (linked against DIR/lib64/libascendcl.so)
 */
#include "acl/acl.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef int32_t aclnnStatus;

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData);
aclScalar *aclCreateScalar(void *value, aclDataType dataType);
aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other, const aclScalar *alpha,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAdds(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

enum { N = 64 };

static aclTensor *tensor(void *p)
{
    int64_t dims[1] = {N};
    return aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, p);
}

/* out = in + 1 on stream s with workspace ws (NULL: one of its own);
 * returns the launch's status, the executor in *ex */
static int adds(void *in, void *out, aclrtStream s, void *ws, aclOpExecutor **ex)
{
    double one = 1.0;
    uint64_t n = 0;
    void *own = NULL;
    aclScalar *c = aclCreateScalar(&one, ACL_DOUBLE), *alpha = aclCreateScalar(&one, ACL_DOUBLE);
    if (aclnnAddsGetWorkspaceSize(tensor(in), c, alpha, tensor(out), &n, ex) != 0)
        return -1;
    if (!ws && n && aclrtMalloc(&own, n, ACL_MEM_MALLOC_HUGE_FIRST) != 0)
        return -1;
    return aclnnAdds(ws ? ws : own, n, *ex, s);
}

int main(int argc, char **argv)
{
    const char *sc = argc > 1 ? argv[1] : "";
    aclrtStream s0, s1;
    aclrtEvent e;
    aclOpExecutor *ex;
    void *x, *y, *z, *ws;
    float host[N];
    int rc = 0;
    if (aclInit(NULL) || aclrtCreateStreamWithConfig(&s0, 0, 0) || aclrtCreateStreamWithConfig(&s1, 0, 0) ||
        aclrtCreateEvent(&e) || aclrtMalloc(&x, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&y, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&z, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&ws, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST))
        return 2;
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    if (aclrtMemcpy(x, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE))
        return 2;
    if (!strcmp(sc, "workspace")) {
        rc |= adds(x, y, s0, ws, &ex);
        rc |= adds(x, z, s1, ws, &ex);
    } else {
        rc |= adds(x, y, s0, NULL, &ex);
        if (!strcmp(sc, "twice"))
            rc |= aclnnAdds(NULL, 0, ex, s0) != 0 ? 1 : 0;
        if (!strcmp(sc, "ordered"))
            rc |= aclrtRecordEvent(e, s0) || aclrtStreamWaitEvent(s1, e);
        if (!strcmp(sc, "after-free"))
            rc |= aclrtSynchronizeStream(s0) != 0;
        if (!strcmp(sc, "free") || !strcmp(sc, "after-free"))
            rc |= aclrtFree(y) != 0;
        if (strcmp(sc, "free") != 0)
            rc |= adds(y, z, s1, NULL, &ex);
    }
    rc |= aclrtSynchronizeStream(s0) || aclrtSynchronizeStream(s1);
    if (!strcmp(sc, "ordered")) {
        rc |= aclrtMemcpy(host, sizeof host, z, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST);
        for (int i = 0; i < N; i++)
            rc |= host[i] != (float)i + 2;
    }
    printf("%s: %s\n", sc, rc ? "failed" : "ran");
    return rc ? 1 : 0;
}
