/*
 * hccl.c - HCCL in aclsim (tests only): the collectives of a bundle built
 * with `tngc build --target acl --world-size N`, across N processes, one
 * per rank, as Ascend launch scripts start them (RANK_ID and
 * RANK_TABLE_FILE set for each).
 *
 *   communicator  HcclCommInitClusterInfo reads the rank table file (JSON:
 *                 one "rank_id" per device of the cluster; their number is
 *                 the number of ranks) and takes the file's directory as
 *                 the job's rendezvous directory; a process's world
 *                 communicators are numbered in the order it creates them
 *                 (every rank creates them in one order);
 *   groups        HcclCreateSubCommConfig makes the communicator of
 *                 rankNum ranks of a world communicator, called by those
 *                 ranks only: rankIds are their world ranks (distinct),
 *                 subCommRankId the caller's place in rankIds (HCCL's
 *                 numbering: rankIds[subCommRankId] is the caller's world
 *                 rank), subCommId names it, the same on every member; the
 *                 configuration must carry HcclCommConfigInit's header
 *                 (size, magic word, version). Its files are named by the
 *                 world communicator's number and subCommId, its ranks by
 *                 their place in rankIds;
 *   collectives   HcclAllReduce, HcclAllGather, HcclReduceScatter,
 *                 HcclBroadcast and HcclAlltoAllV are operators of aclsim
 *                 (sim_issue): a task on the stream they are issued to,
 *                 with their buffers as operands, so the checker sees them
 *                 as it sees an aclnn operator (a collective that reads
 *                 bytes another stream writes with no event between them is
 *                 a race), and a capture keeps them for its replays;
 *   exchange      when the stream's thread reaches collective k of a
 *                 communicator, the rank writes what it sends to
 *                 DIR/aclsim_hccl.<comm>.<k>.<rank> (a temporary name, then
 *                 a rename: a file is whole once it exists), waits until
 *                 every rank's file of collective k exists, reads them and
 *                 writes its result. A rank that sees every file of
 *                 collective k knows that every rank has read collective
 *                 k - 1's files (each writes k only after it read k - 1),
 *                 so it removes its own file of k - 1 then.
 *
 * A rank that waits longer than $ACLSIM_HCCL_TIMEOUT seconds (default 60)
 * for the others fails the collective naming the ranks missing (the
 * stream's error, so the run fails and the process exits 70): never a
 * hang. The rendezvous directory must hold no files of an earlier job.
 * Reductions are computed in long double and rounded once to the dtype.
 */
#include "aclsim.h"
#include "hccl/hccl.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { HCCL__MAX_COMMS = 64, HCCL__MAX_RANKS = 64 };

typedef struct SimComm {
    int id, rank, size, alive;
    int world;                 /* the number of its world communicator (a group's parent, or its own) */
    long seq;                  /* collectives run so far (in stream order) */
    char key[48];              /* the files' name: "<world>" or "<world>-<subCommId>" */
    char dir[PATH_MAX - 64];
} SimComm;

static SimComm hccl__comms[HCCL__MAX_COMMS];
static int hccl__ncomms, hccl__nworlds;
static pthread_mutex_t hccl__mu = PTHREAD_MUTEX_INITIALIZER;

/* A new communicator (a copy of parent's when it is not NULL) where this
 * process is rank of size, or NULL after a failure of call. */
static SimComm *hccl__new(const char *call, const SimComm *parent, int rank, int size)
{
    if (hccl__ncomms == HCCL__MAX_COMMS) {
        sim_fail("%s: more than %d communicators", call, HCCL__MAX_COMMS);
        return NULL;
    }
    SimComm *c = &hccl__comms[hccl__ncomms];
    if (parent)
        *c = *parent;
    c->id = hccl__ncomms++;
    c->rank = rank;
    c->size = size;
    c->alive = 1;
    c->seq = 0;
    return c;
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    char buf[1 << 16];
    size_t n;
    int size = 0;
    FILE *f = clusterInfo ? fopen(clusterInfo, "r") : NULL;
    if (!f) {
        sim_fail("HcclCommInitClusterInfo: cannot open the rank table '%s': %s", clusterInfo ? clusterInfo : "(null)",
                 strerror(errno));
        return HCCL_E_OPEN_FILE_FAILURE;
    }
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (const char *p = buf; (p = strstr(p, "\"rank_id\"")) != NULL; p++)
        size++;
    if (size < 1 || size > HCCL__MAX_RANKS || rank >= (uint32_t)size) {
        sim_fail("HcclCommInitClusterInfo: the rank table '%s' has %d ranks (\"rank_id\" entries): rank %u is not "
                 "one of them", clusterInfo, size, rank);
        return HCCL_E_PARA;
    }
    SimComm *c = hccl__new("HcclCommInitClusterInfo", NULL, (int)rank, size);
    if (!c)
        return HCCL_E_MEMORY;
    c->world = hccl__nworlds++;
    snprintf(c->key, sizeof c->key, "%d", c->world);
    const char *slash = strrchr(clusterInfo, '/');
    if (!slash)
        snprintf(c->dir, sizeof c->dir, ".");
    else
        snprintf(c->dir, sizeof c->dir, "%.*s", (int)(slash - clusterInfo), clusterInfo);
    *comm = c;
    return HCCL_SUCCESS;
}

static SimComm *hccl__comm(HcclComm comm, const char *call)
{
    for (int i = 0; i < hccl__ncomms; i++)
        if (comm == &hccl__comms[i]) {
            if (!hccl__comms[i].alive)
                return sim_fail("%s: a communicator used after HcclCommDestroy", call), NULL;
            return &hccl__comms[i];
        }
    sim_fail("%s: an unknown communicator", call);
    return NULL;
}

HcclResult HcclCommDestroy(HcclComm comm)
{
    SimComm *c = hccl__comm(comm, "HcclCommDestroy");
    if (!c)
        return HCCL_E_PARA;
    c->alive = 0;
    return HCCL_SUCCESS;
}

/* The checks of HcclCreateSubCommConfig's arguments against parent p: NULL,
 * or what is wrong. */
static const char *hccl__sub_why(const SimComm *p, uint32_t rankNum, const uint32_t *rankIds,
                                 uint32_t subCommRankId, const HcclCommConfig *config)
{
    size_t size;
    uint32_t magic, version;
    if (!rankIds || !config || rankNum < 1 || rankNum > (uint32_t)p->size)
        return "rankNum must be 1.. the world's size, with rankIds and a configuration";
    memcpy(&size, config->reserved, sizeof size);
    memcpy(&magic, config->reserved + sizeof size, sizeof magic);
    memcpy(&version, config->reserved + sizeof size + sizeof magic, sizeof version);
    if (size != sizeof *config || magic != HCCL_COMM_CONFIG_MAGIC_WORD || version != HCCL_COMM_CONFIG_VERSION)
        return "the configuration lacks HcclCommConfigInit's header (size, magic word, version)";
    if (subCommRankId >= rankNum || rankIds[subCommRankId] != (uint32_t)p->rank)
        return "rankIds[subCommRankId] is not the caller's world rank";
    for (uint32_t i = 0; i < rankNum; i++) {
        if (rankIds[i] >= (uint32_t)p->size)
            return "a rank id is not a rank of the world";
        for (uint32_t j = 0; j < i; j++)
            if (rankIds[j] == rankIds[i])
                return "a rank id is listed twice";
    }
    return NULL;
}

HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds, uint64_t subCommId,
                                   uint32_t subCommRankId, HcclCommConfig *config, HcclComm *subComm)
{
    SimComm *p = comm ? hccl__comm(*comm, "HcclCreateSubCommConfig") : NULL;
    if (!p || !subComm)
        return HCCL_E_PARA;
    const char *why = hccl__sub_why(p, rankNum, rankIds, subCommRankId, config);
    if (why) {
        sim_fail("HcclCreateSubCommConfig: %s", why);
        return HCCL_E_PARA;
    }
    SimComm *c = hccl__new("HcclCreateSubCommConfig", p, (int)subCommRankId, (int)rankNum);
    if (!c)
        return HCCL_E_MEMORY;
    snprintf(c->key, sizeof c->key, "%d-%llu", p->world, (unsigned long long)subCommId);
    *subComm = c;
    return HCCL_SUCCESS;
}

/* ---- the collectives as aclsim operators ---- */

static aclDataType hccl__dt(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return ACL_INT8;
    case HCCL_DATA_TYPE_INT32: return ACL_INT32;
    case HCCL_DATA_TYPE_FP16: return ACL_FLOAT16;
    case HCCL_DATA_TYPE_FP32: return ACL_FLOAT;
    case HCCL_DATA_TYPE_INT64: return ACL_INT64;
    case HCCL_DATA_TYPE_BFP16: return ACL_BF16;
    default: return ACL_DT_UNDEFINED;
    }
}

/* Issues collective name: a[0] what it reads, a[1] what it writes (1-D
 * tensors of count elements over the buffers), then its numbers. */
static HcclResult hccl__issue(const char *name, void *in, int64_t nin, void *out, int64_t nout, HcclDataType t,
                              SimArg *num, int nnum, aclrtStream stream)
{
    aclDataType dt = hccl__dt(t);
    if (dt == ACL_DT_UNDEFINED) {
        sim_fail("%s: HcclDataType %d is not one aclsim's HCCL moves", name, (int)t);
        return HCCL_E_NOT_SUPPORT;
    }
    int64_t one = 1;
    aclTensor *ti = aclCreateTensor(&nin, 1, dt, &one, 0, ACL_FORMAT_ND, &nin, 1, in);
    aclTensor *to = aclCreateTensor(&nout, 1, dt, &one, 0, ACL_FORMAT_ND, &nout, 1, out);
    SimArg a[SIM_MAX_ARGS];
    memset(a, 0, sizeof a);
    a[0] = (SimArg){SA_T, 0, ti, 0, 0};
    a[1] = (SimArg){SA_T, 1, to, 0, 0};
    for (int k = 0; k < nnum; k++)
        a[2 + k] = num[k];
    int rc = ti && to ? sim_issue(name, 2 + nnum, a, stream) : -1;
    if (ti)
        aclDestroyTensor(ti);
    if (to)
        aclDestroyTensor(to);
    return rc == 0 ? HCCL_SUCCESS : HCCL_E_INTERNAL;
}

#define HCCL__NUM(v) ((SimArg){SA_I, 0, NULL, (int64_t)(v), 0})

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         HcclComm comm, aclrtStream stream)
{
    SimComm *c = hccl__comm(comm, "HcclAllReduce");
    if (!c)
        return HCCL_E_PARA;
    SimArg num[] = {HCCL__NUM(c->id), HCCL__NUM(op)};
    return hccl__issue("HcclAllReduce", sendBuf, (int64_t)count, recvBuf, (int64_t)count, dataType, num, 2, stream);
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                         aclrtStream stream)
{
    SimComm *c = hccl__comm(comm, "HcclBroadcast");
    if (!c)
        return HCCL_E_PARA;
    SimArg num[] = {HCCL__NUM(c->id), HCCL__NUM(root)};
    return hccl__issue("HcclBroadcast", buf, (int64_t)count, buf, (int64_t)count, dataType, num, 2, stream);
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                             HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    SimComm *c = hccl__comm(comm, "HcclReduceScatter");
    if (!c)
        return HCCL_E_PARA;
    SimArg num[] = {HCCL__NUM(c->id), HCCL__NUM(op)};
    return hccl__issue("HcclReduceScatter", sendBuf, (int64_t)recvCount * c->size, recvBuf, (int64_t)recvCount,
                       dataType, num, 2, stream);
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                         aclrtStream stream)
{
    SimComm *c = hccl__comm(comm, "HcclAllGather");
    if (!c)
        return HCCL_E_PARA;
    SimArg num[] = {HCCL__NUM(c->id), HCCL__NUM(0)};
    return hccl__issue("HcclAllGather", sendBuf, (int64_t)sendCount, recvBuf, (int64_t)sendCount * c->size,
                       dataType, num, 2, stream);
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts, const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream)
{
    SimComm *c = hccl__comm(comm, "HcclAlltoAllV");
    if (!c)
        return HCCL_E_PARA;
    if (sendType != recvType) {
        sim_fail("HcclAlltoAllV: send type %d and receive type %d differ", (int)sendType, (int)recvType);
        return HCCL_E_PARA;
    }
    /* the host arrays are read now, as CANN reads them at the call */
    const uint64_t *sc = sendCounts, *sd = sdispls, *rc = recvCounts, *rd = rdispls;
    int64_t v[4 * HCCL__MAX_RANKS], nin = 0, nout = 0;
    for (int r = 0; r < c->size; r++) {
        v[r] = (int64_t)sc[r];
        v[c->size + r] = (int64_t)sd[r];
        v[2 * c->size + r] = (int64_t)rc[r];
        v[3 * c->size + r] = (int64_t)rd[r];
        if ((int64_t)(sc[r] + sd[r]) > nin)
            nin = (int64_t)(sc[r] + sd[r]);
        if ((int64_t)(rc[r] + rd[r]) > nout)
            nout = (int64_t)(rc[r] + rd[r]);
    }
    aclIntArray *ia = aclCreateIntArray(v, (uint64_t)(4 * c->size));
    SimArg num[] = {HCCL__NUM(c->id), HCCL__NUM(0), {SA_IA, 0, ia, 0, 0}};
    HcclResult res = ia ? hccl__issue("HcclAlltoAllV", (void *)sendBuf, nin ? nin : 1, (void *)recvBuf,
                                      nout ? nout : 1, sendType, num, 3, stream)
                        : HCCL_E_MEMORY;
    if (ia)
        aclDestroyIntArray(ia);
    return res;
}

/* ---- the exchange (the stream's thread) ---- */

static double hccl__timeout(void)
{
    const char *s = getenv("ACLSIM_HCCL_TIMEOUT");
    double t = s ? strtod(s, NULL) : 0;
    return t > 0 ? t : 60;
}

static void hccl__path(char *out, size_t n, const SimComm *c, long seq, int rank)
{
    snprintf(out, n, "%s/aclsim_hccl.%s.%ld.%d", c->dir, c->key, seq, rank);
}

/* Publishes n bytes of p as this rank's file of collective seq. */
static int hccl__put(const SimComm *c, long seq, const void *p, size_t n, char *err, size_t errlen)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    hccl__path(path, sizeof path, c, seq, c->rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int ok = f && (n == 0 || fwrite(p, 1, n, f) == n);
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Waits until every rank's file of collective seq exists. */
static int hccl__gather(const SimComm *c, long seq, char *err, size_t errlen)
{
    double limit = hccl__timeout(), waited = 0;
    struct timespec nap = {0, 500000};
    char path[PATH_MAX];
    for (;;) {
        int missing = -1;
        for (int r = 0; r < c->size && missing < 0; r++) {
            hccl__path(path, sizeof path, c, seq, r);
            if (access(path, F_OK) != 0)
                missing = r;
        }
        if (missing < 0)
            return 0;
        if (waited > limit) {
            snprintf(err, errlen, "rank %d: rank %d did not reach collective %ld of communicator %s within %g s "
                     "(ACLSIM_HCCL_TIMEOUT): another rank failed or stopped", c->rank, missing, seq, c->key, limit);
            return -1;
        }
        nanosleep(&nap, NULL);
        waited += 0.0005;
    }
}

/* Rank r's file of collective seq, read whole into *out (malloc'd). */
static int hccl__get(const SimComm *c, long seq, int r, char **out, size_t *n, char *err, size_t errlen)
{
    char path[PATH_MAX];
    hccl__path(path, sizeof path, c, seq, r);
    FILE *f = fopen(path, "rb");
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        len = ftell(f);
    *out = NULL;
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (*out = malloc((size_t)len + 1)) != NULL &&
        fread(*out, 1, (size_t)len, f) == (size_t)len) {
        fclose(f);
        *n = (size_t)len;
        return 0;
    }
    if (f)
        fclose(f);
    free(*out);
    snprintf(err, errlen, "cannot read %s", path);
    return -1;
}

static long double hccl__reduce(int64_t op, long double a, long double b)
{
    switch (op) {
    case HCCL_REDUCE_PROD: return a * b;
    case HCCL_REDUCE_MAX: return a > b ? a : b;
    case HCCL_REDUCE_MIN: return a < b ? a : b;
    default: return a + b;
    }
}

/* A 1-D view of n elements of t's dtype over p. */
static SimTensor hccl__flat(const SimTensor *like, void *p, int64_t n)
{
    SimTensor t = *like;
    t.nd = t.snd = 1;
    t.dims[0] = t.sdims[0] = n;
    t.strides[0] = 1;
    t.offset = 0;
    t.data = p;
    return t;
}

static int hccl__kernel(const SimOp *op, char *err, size_t errlen)
{
    const SimTensor *in = &op->a[0].t, *out = &op->a[1].t;
    int64_t arg = op->a[3].i;
    pthread_mutex_lock(&hccl__mu);
    SimComm *c = &hccl__comms[op->a[2].i];
    long seq = c->seq++;
    pthread_mutex_unlock(&hccl__mu);
    size_t eb = sim_dtype_bytes(in->dt);
    int64_t nin = sim_numel(in), nout = sim_numel(out);
    char *in_at = in->data + in->offset * (int64_t)eb;
    char *out_at = out->data + out->offset * (int64_t)eb;
    int all2all = !strcmp(op->name, "HcclAlltoAllV");
    const int64_t *v = all2all ? op->a[4].ia : NULL;
    int R = c->size;
    char *blob = NULL;
    size_t blen = 0;
    if (all2all) {   /* the counts for each rank j, then the blocks in rank order */
        size_t hdr = (size_t)R * sizeof(int64_t);
        blen = hdr;
        for (int j = 0; j < R; j++)
            blen += (size_t)v[j] * eb;
        if (!(blob = malloc(blen + 1)))
            return snprintf(err, errlen, "out of memory"), -1;
        memcpy(blob, v, hdr);
        for (int j = 0, at = (int)hdr; j < R; j++) {
            memcpy(blob + at, in_at + v[R + j] * (int64_t)eb, (size_t)v[j] * eb);
            at += (int)((size_t)v[j] * eb);
        }
    }
    if (hccl__put(c, seq, all2all ? blob : in_at, all2all ? blen : (size_t)nin * eb, err, errlen) != 0 ||
        hccl__gather(c, seq, err, errlen) != 0) {
        free(blob);
        return -1;
    }
    free(blob);
    if (seq > 0) {   /* every rank has read collective seq - 1 */
        char path[PATH_MAX];
        hccl__path(path, sizeof path, c, seq - 1, c->rank);
        unlink(path);
    }
    char *got[HCCL__MAX_RANKS] = {0};
    size_t n[HCCL__MAX_RANKS] = {0};
    int rc = 0;
    for (int r = 0; r < R && rc == 0; r++)
        rc = hccl__get(c, seq, r, &got[r], &n[r], err, errlen);
    int64_t i0[1];
    if (rc != 0) {
    } else if (!strcmp(op->name, "HcclAllReduce") || !strcmp(op->name, "HcclReduceScatter")) {
        int64_t from = !strcmp(op->name, "HcclReduceScatter") ? nout * c->rank : 0;
        for (int r = 0; r < R && rc == 0; r++)
            if (n[r] < (size_t)(from + nout) * eb)
                rc = (snprintf(err, errlen, "rank %d sent %zu bytes, %lld needed", r, n[r],
                               (long long)((from + nout) * (int64_t)eb)), -1);
        SimTensor dst = hccl__flat(out, out_at, nout);
        for (int64_t e = 0; rc == 0 && e < nout; e++) {
            long double acc = 0;
            for (int r = 0; r < R; r++) {
                SimTensor src = hccl__flat(in, got[r], from + nout);
                i0[0] = from + e;
                long double x = sim_rd(&src, i0, 1);
                acc = r ? hccl__reduce(arg, acc, x) : x;
            }
            i0[0] = e;
            sim_wr(&dst, i0, acc);
        }
    } else if (!strcmp(op->name, "HcclAllGather")) {
        for (int r = 0; r < R; r++)
            memcpy(out_at + (size_t)r * (size_t)nin * eb, got[r], n[r] < (size_t)nin * eb ? n[r] : (size_t)nin * eb);
    } else if (!strcmp(op->name, "HcclBroadcast")) {
        if (arg < 0 || arg >= R)
            rc = (snprintf(err, errlen, "root %lld is not a rank", (long long)arg), -1);
        else
            memcpy(out_at, got[arg], n[arg] < (size_t)nout * eb ? n[arg] : (size_t)nout * eb);
    } else {   /* HcclAlltoAllV: rank r's block for this rank, to rdispls[r] */
        for (int r = 0; r < R && rc == 0; r++) {
            const int64_t *cnt = (const int64_t *)(void *)got[r];
            size_t at = (size_t)R * sizeof(int64_t);
            if (n[r] < at) {
                rc = (snprintf(err, errlen, "rank %d's file of collective %ld is short", r, seq), -1);
                break;
            }
            for (int j = 0; j < c->rank; j++)
                at += (size_t)cnt[j] * eb;
            if (cnt[c->rank] != v[2 * R + r] || at + (size_t)cnt[c->rank] * eb > n[r])
                rc = (snprintf(err, errlen, "rank %d sends %lld elements to rank %d, which expects %lld", r,
                               (long long)cnt[c->rank], c->rank, (long long)v[2 * R + r]), -1);
            else
                memcpy(out_at + v[3 * R + r] * (int64_t)eb, got[r] + at, (size_t)cnt[c->rank] * eb);
        }
    }
    for (int r = 0; r < R; r++)
        free(got[r]);
    return rc;
}

SimKernel sim_hccl_kernel(const char *name)
{
    if (!strcmp(name, "HcclAllReduce") || !strcmp(name, "HcclAllGather") || !strcmp(name, "HcclReduceScatter") ||
        !strcmp(name, "HcclBroadcast") || !strcmp(name, "HcclAlltoAllV"))
        return hccl__kernel;
    return NULL;
}
