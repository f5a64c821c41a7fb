/*
 * mpi.c - libtngcrt_mpi.a (tngrt_mpi.h): the launcher's MPI set-up and
 * end, and the collectives' kernels (tngrt_kernels.h) over MPI.
 *
 * Each collective is started non-blocking and waited for by polling, so
 * that a rank never waits past tngrt_mpi_timeout(): a peer that failed
 * (it aborts the job itself, tngrt_mpi_end) or stopped makes this rank
 * print one line and abort every rank. A group other than the world is
 * an MPI communicator made once per group (MPI_Comm_create_group: only
 * the group's ranks take part), kept until MPI_Finalize.
 *
 * Threads. A collective runs on the thread of its stream (a collective
 * inside npu_stream_switch on that stream's worker), so MPI is called from
 * several threads, but never from two at once: the planner orders every
 * collective after the one before it in program order (planner/streams.c),
 * an event between threads where they are on different streams, and a
 * collective's MPI calls (start, polls, a group's communicator) all happen
 * inside its kernel. MPI_THREAD_SERIALIZED is therefore the level asked
 * for; Open MPI 4.1 gives it (it gives MPI_THREAD_MULTIPLE too, whose
 * locks the bundle does not need).
 */
#include "tngrt_mpi.h"
#include "tngrt_kernels.h"
#include "tngrt_rank.h"

#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MPI__MAX_GROUPS 64

/* The communicators of the groups used so far (mask -> comm). */
static struct {
    int64_t mask;
    MPI_Comm comm;
} mpi__groups[MPI__MAX_GROUPS];
static int mpi__ngroups;
static int mpi__rank = -1, mpi__size;

static double mpi__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double tngrt_mpi_timeout(void)
{
    const char *s = getenv("TNGRT_MPI_TIMEOUT");
    char *end = NULL;
    double t = s ? strtod(s, &end) : 0;
    return s && end != s && *end == 0 && t > 0 ? t : 60.0;
}

int tngrt_mpi_rank(void)
{
    return mpi__rank;
}

/* One line on stderr, then every rank is stopped. */
static void mpi__abort(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tngrt: rank %d: ", mpi__rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);   /* MPI_Abort does not return */
}

/* Waits for req within the timeout; past it, aborts the job. */
static int mpi__wait(MPI_Request *req, const char *what)
{
    double limit = tngrt_mpi_timeout(), t0 = mpi__now();
    long polls = 0;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        if (done)
            return MPI_SUCCESS;
        if (++polls < 1000) {
            sched_yield();
            continue;
        }
        if (mpi__now() - t0 > limit)
            mpi__abort(1, "%s did not complete within %g s (TNGRT_MPI_TIMEOUT): another rank failed or "
                          "stopped; aborting every rank", what, limit);
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
}

int tngrt_mpi_begin(int *argc, char ***argv, int world_size, const char *prog)
{
    int provided = 0, init = 0;
    MPI_Initialized(&init);
    if (!init && MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI cannot be initialised\n", prog);
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi__rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi__size);
    if (!init && provided < MPI_THREAD_SERIALIZED && mpi__rank == 0)
        fprintf(stderr, "%s: warning: MPI gives thread level %d, not MPI_THREAD_SERIALIZED: keep collectives on "
                "the default stream\n", prog, provided);
    if (mpi__size != world_size) {
        if (mpi__rank == 0)
            fprintf(stderr, "%s: the bundle was built for %d ranks (--world-size) and the job has %d: run it "
                    "with mpirun -np %d\n", prog, world_size, mpi__size, world_size);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    for (int i = 1; i < *argc; i++)
        (*argv)[i] = tngrt_rank_subst((*argv)[i], mpi__rank);
    return 0;
}

int tngrt_mpi_end(int rc, const char *prog)
{
    if (mpi__rank < 0)
        return rc;
    if (rc != 0) {   /* the launcher has closed stdout */
        fprintf(stderr, "%s: rank %d failed (exit status %d): aborting every rank\n", prog, mpi__rank, rc);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, rc);
        return rc;
    }
    MPI_Request req;
    if (MPI_Ibarrier(MPI_COMM_WORLD, &req) == MPI_SUCCESS)
        mpi__wait(&req, "the final barrier");
    for (int i = 0; i < mpi__ngroups; i++)
        MPI_Comm_free(&mpi__groups[i].comm);
    mpi__ngroups = 0;
    MPI_Finalize();
    return 0;
}

/* ---- the kernels ---- */

static int mpi__fail(TngrtError *err, const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    snprintf(err->msg, sizeof err->msg, "%s: MPI: %s", what, s);
    err->kind = TNGRT_ERR_FAILURE;
    return -1;
}

/* The communicator of group (a rank mask; 0: the world) in *comm. */
static int mpi__comm(int64_t group, MPI_Comm *comm, TngrtError *err, const char *what)
{
    if (mpi__rank < 0) {
        snprintf(err->msg, sizeof err->msg, "%s: MPI is not initialised (tngrt_mpi_begin; run under mpirun)", what);
        err->kind = TNGRT_ERR_FAILURE;
        return -1;
    }
    int64_t all = (int64_t)(((uint64_t)1 << (mpi__size < 63 ? mpi__size : 63)) - 1);
    if (group == 0 || group == all) {
        *comm = MPI_COMM_WORLD;
        return 0;
    }
    for (int i = 0; i < mpi__ngroups; i++)
        if (mpi__groups[i].mask == group) {
            *comm = mpi__groups[i].comm;
            return 0;
        }
    if (mpi__ngroups == MPI__MAX_GROUPS) {
        snprintf(err->msg, sizeof err->msg, "%s: more than %d process groups", what, MPI__MAX_GROUPS);
        err->kind = TNGRT_ERR_FAILURE;
        return -1;
    }
    int ranks[64], n = 0;
    for (int r = 0; r < mpi__size && r < 63; r++)
        if (group >> r & 1)
            ranks[n++] = r;
    MPI_Group world, sub;
    MPI_Comm c;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &sub);
    int rc = MPI_Comm_create_group(MPI_COMM_WORLD, sub, (int)(group & 0x7fff), &c);
    MPI_Group_free(&sub);
    MPI_Group_free(&world);
    if (rc != MPI_SUCCESS)
        return mpi__fail(err, what, rc);
    mpi__groups[mpi__ngroups].mask = group;
    mpi__groups[mpi__ngroups++].comm = c;
    *comm = c;
    return 0;
}

static int64_t mpi__numel(const TngrtArg *a)
{
    int64_t n = 1;
    for (int d = 0; d < a->ndim; d++)
        n *= a->shape[d];
    return n;
}

static int mpi__is_half(TngrtDType dt)
{
    return dt == TNGRT_F16 || dt == TNGRT_BF16;
}

/* The MPI type of elements of dt as the collectives move them (halves
 * widened to float first). */
static MPI_Datatype mpi__type(TngrtDType dt)
{
    switch (dt) {
    case TNGRT_I64: return MPI_INT64_T;
    case TNGRT_I32: return MPI_INT32_T;
    case TNGRT_I8: return MPI_INT8_T;
    case TNGRT_BOOL: return MPI_UINT8_T;
    default: return MPI_FLOAT;
    }
}

static MPI_Op mpi__op(int64_t op)
{
    switch (op) {
    case 2: return MPI_PROD;
    case 3: return MPI_MIN;
    case 4: return MPI_MAX;
    default: return MPI_SUM;
    }
}

/* A float32 copy of a half tensor's n elements (NULL: out of memory). */
static float *mpi__widen(const TngrtArg *a, int64_t n)
{
    float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
    if (f)
        tngrt_half_to_f32(a->dtype, a->data, f, (size_t)n);
    return f;
}

static int mpi__oom(TngrtError *err, const char *what)
{
    snprintf(err->msg, sizeof err->msg, "%s: out of memory", what);
    err->kind = TNGRT_ERR_FAILURE;
    return -1;
}

/* AVG: the sum divided by the group's size n. */
static void mpi__average(void *data, TngrtDType dt, int64_t count, int n)
{
    if (dt == TNGRT_I64)
        for (int64_t i = 0; i < count; i++)
            ((int64_t *)data)[i] /= n;
    else if (dt == TNGRT_I32)
        for (int64_t i = 0; i < count; i++)
            ((int32_t *)data)[i] /= n;
    else
        for (int64_t i = 0; i < count; i++)
            ((float *)data)[i] /= (float)n;
}

int tngrt_kernel_all_reduce(const TngrtArg *out, const TngrtArg *x, int64_t op, int64_t group,
                            TngrtError *err)
{
    const char *what = "all_reduce";
    MPI_Comm comm;
    if (mpi__comm(group, &comm, err, what) != 0)
        return -1;
    int64_t n = mpi__numel(x);
    int half = mpi__is_half(x->dtype), size = 1, rc;
    MPI_Comm_size(comm, &size);
    float *buf = half ? mpi__widen(x, n) : NULL;
    if (half && !buf)
        return mpi__oom(err, what);
    void *dst = half ? buf : out->data;
    if (!half && out->data != x->data)
        memcpy(out->data, x->data, (size_t)n * tngrt_dtype_size(x->dtype));
    MPI_Request req;
    rc = MPI_Iallreduce(MPI_IN_PLACE, dst, (int)n, mpi__type(x->dtype), mpi__op(op), comm, &req);
    if (rc == MPI_SUCCESS)
        rc = mpi__wait(&req, what);
    if (rc == MPI_SUCCESS && op == 1)
        mpi__average(dst, half ? TNGRT_F32 : x->dtype, n, size);
    if (rc == MPI_SUCCESS && half)
        tngrt_half_from_f32(out->dtype, buf, out->data, (size_t)n);
    free(buf);
    return rc == MPI_SUCCESS ? 0 : mpi__fail(err, what, rc);
}

int tngrt_kernel_all_gather(const TngrtArg *out, const TngrtArg *x, int64_t group, TngrtError *err)
{
    const char *what = "all_gather";
    MPI_Comm comm;
    if (mpi__comm(group, &comm, err, what) != 0)
        return -1;
    int64_t n = mpi__numel(x);
    int size = 1, rc;
    MPI_Comm_size(comm, &size);
    int esize = (int)tngrt_dtype_size(x->dtype);
    MPI_Request req;
    /* moved as bytes: nothing is computed */
    rc = MPI_Iallgather(x->data, (int)(n * esize), MPI_BYTE, out->data, (int)(n * esize), MPI_BYTE, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = mpi__wait(&req, what);
    return rc == MPI_SUCCESS ? 0 : mpi__fail(err, what, rc);
}

int tngrt_kernel_reduce_scatter(const TngrtArg *out, const TngrtArg *x, int64_t op, int64_t group,
                                TngrtError *err)
{
    const char *what = "reduce_scatter";
    MPI_Comm comm;
    if (mpi__comm(group, &comm, err, what) != 0)
        return -1;
    int64_t n = mpi__numel(out), total = mpi__numel(x);
    int half = mpi__is_half(x->dtype), size = 1, rc;
    MPI_Comm_size(comm, &size);
    float *in = half ? mpi__widen(x, total) : NULL;
    float *res = half ? malloc((size_t)(n ? n : 1) * sizeof *res) : NULL;
    if (half && (!in || !res)) {
        free(in);
        free(res);
        return mpi__oom(err, what);
    }
    void *dst = half ? (void *)res : out->data;
    MPI_Request req;
    rc = MPI_Ireduce_scatter_block(half ? (void *)in : x->data, dst, (int)n, mpi__type(x->dtype), mpi__op(op), comm,
                                   &req);
    if (rc == MPI_SUCCESS)
        rc = mpi__wait(&req, what);
    if (rc == MPI_SUCCESS && op == 1)
        mpi__average(dst, half ? TNGRT_F32 : x->dtype, n, size);
    if (rc == MPI_SUCCESS && half)
        tngrt_half_from_f32(out->dtype, res, out->data, (size_t)n);
    free(in);
    free(res);
    return rc == MPI_SUCCESS ? 0 : mpi__fail(err, what, rc);
}

int tngrt_kernel_broadcast(const TngrtArg *out, const TngrtArg *x, int64_t src, int64_t group,
                           TngrtError *err)
{
    const char *what = "broadcast";
    MPI_Comm comm;
    if (mpi__comm(group, &comm, err, what) != 0)
        return -1;
    int root = (int)src;
    if (comm != MPI_COMM_WORLD) {   /* src's place in the group */
        root = 0;
        for (int r = 0; r < src; r++)
            root += (int)(group >> r & 1);
    }
    int64_t nbytes = mpi__numel(x) * (int64_t)tngrt_dtype_size(x->dtype);
    if (out->data != x->data)
        memcpy(out->data, x->data, (size_t)nbytes);
    MPI_Request req;
    int rc = MPI_Ibcast(out->data, (int)nbytes, MPI_BYTE, root, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = mpi__wait(&req, what);
    return rc == MPI_SUCCESS ? 0 : mpi__fail(err, what, rc);
}

int tngrt_kernel_all_to_all(const TngrtArg *out, const TngrtArg *x, const int64_t *attr, int64_t nattr,
                            TngrtError *err)
{
    const char *what = "all_to_all";
    MPI_Comm comm;
    if (mpi__comm(attr[0], &comm, err, what) != 0)
        return -1;
    int n = (int)attr[1], rc;
    int64_t rows = x->ndim ? x->shape[0] : 1;
    int64_t row = rows ? mpi__numel(x) / rows * (int64_t)tngrt_dtype_size(x->dtype) : 0;   /* bytes */
    MPI_Request req;
    if (nattr == 2) {   /* moved as bytes: nothing is computed */
        int block = (int)(rows / (n ? n : 1) * row);
        rc = MPI_Ialltoall(x->data, block, MPI_BYTE, out->data, block, MPI_BYTE, comm, &req);
    } else {
        int *v = malloc(4 * (size_t)n * sizeof *v);
        if (!v)
            return mpi__oom(err, what);
        for (int j = 0, sd = 0, rd = 0; j < n; j++) {
            v[j] = (int)(attr[2 + j] * row);
            v[n + j] = sd;
            v[2 * n + j] = (int)(attr[2 + n + j] * row);
            v[3 * n + j] = rd;
            sd += v[j];
            rd += v[2 * n + j];
        }
        rc = MPI_Ialltoallv(x->data, v, v + n, MPI_BYTE, out->data, v + 2 * n, v + 3 * n, MPI_BYTE, comm, &req);
        if (rc == MPI_SUCCESS)
            rc = mpi__wait(&req, what);
        free(v);
        return rc == MPI_SUCCESS ? 0 : mpi__fail(err, what, rc);
    }
    if (rc == MPI_SUCCESS)
        rc = mpi__wait(&req, what);
    return rc == MPI_SUCCESS ? 0 : mpi__fail(err, what, rc);
}
