/*
 * emit_dist.c - the bundle of a build with --world-size N > 1 (CPU
 * target): one plan per rank, each emitted as the bundle <name>_rank<r>
 * (its own .h/.c, no launcher), and <name>.c, written here, which gives
 * the public API of <name>.h by handing every call to the bundle of this
 * process's MPI rank (tngrt_mpi_rank, libtngcrt_mpi). The launcher is the
 * one of every bundle, with the MPI start and end of emit_splice's
 * prologue (docs/bundles.md, "Tensor parallel over MPI").
 */
#include "emit.h"

void emit_dist_bundle(const GenOptions *opt, int world_size, GenFiles *out)
{
    const char *n = opt->name;
    GenFile *f = emit_file(out, n, ".c", 1);
    StrBuf *o = &f->text;
    emit_banner(opt, o);
    sb_printf(o, "\n/* The bundle of %d ranks: each call goes to the plan of this process's MPI\n"
                 " * rank (<name>_rank<r>); MPI is set up by tngrt_mpi_begin (the launcher). */\n",
              world_size);
    sb_printf(o, "#include \"%s.h\"\n#include \"tngrt_mpi.h\"\n", n);
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "#include \"%s_rank%d.h\"\n", n, r);
    sb_printf(o, "\n#include <stdio.h>\n\nstatic const struct {\n"
                 "    const TngrtBundleDesc *(*desc)(void);\n"
                 "    int (*create)(struct TngrtBundle **out, TngrtError *err);\n"
                 "} %s__ranks[%d] = {\n", n, world_size);
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "    {%s_rank%d_desc, %s_rank%d_create},\n", n, r, n, r);
    sb_printf(o, "};\n\n"
                 "/* This process's rank, or -1 outside a job of %d ranks. */\n"
                 "static int %s__rank(void)\n{\n"
                 "    int r = tngrt_mpi_rank();\n"
                 "    return r >= 0 && r < %d ? r : -1;\n}\n\n", world_size, n, world_size);
    sb_printf(o, "const TngrtBundleDesc *%s_desc(void)\n{\n"
                 "    int r = %s__rank();\n"
                 "    return %s__ranks[r < 0 ? 0 : r].desc();\n}\n\n", n, n, n);
    sb_printf(o, "int %s_create(%s_t **out, TngrtError *err)\n{\n"
                 "    int r = %s__rank();\n"
                 "    if (r < 0) {\n"
                 "        *out = NULL;\n"
                 "        if (err) {\n"
                 "            snprintf(err->msg, sizeof err->msg, \"%s: a bundle of %d ranks: call "
                 "tngrt_mpi_begin first, in a job of %d ranks (mpirun -np %d)\");\n"
                 "            err->kind = TNGRT_ERR_FAILURE;\n"
                 "        }\n"
                 "        return -1;\n"
                 "    }\n"
                 "    return %s__ranks[r].create(out, err);\n}\n\n",
              n, n, n, n, world_size, world_size, world_size, n);
    sb_printf(o, "int %s_load_weights(%s_t *self, const char *path)\n{\n"
                 "    return tngrt_bundle_load_weights(self, path);\n}\n\n", n, n);
    sb_printf(o, "int %s_unused_count(const %s_t *self)\n{\n"
                 "    return tngrt_bundle_unused_count(self);\n}\n\n", n, n);
    sb_printf(o, "const char *%s_unused_name(const %s_t *self, int i)\n{\n"
                 "    return tngrt_bundle_unused_name(self, i);\n}\n\n", n, n);
    sb_printf(o, "int %s_run(%s_t *self, const TngrtTensor *inputs, int ninputs, TngrtTensor *outputs,\n"
                 "        int noutputs)\n{\n"
                 "    return tngrt_bundle_run(self, inputs, ninputs, outputs, noutputs);\n}\n\n", n, n);
    sb_printf(o, "const TngrtBundleDesc *%s_signature(const %s_t *self)\n{\n"
                 "    return tngrt_bundle_desc(self);\n}\n\n", n, n);
    sb_printf(o, "const char *%s_last_error(const %s_t *self)\n{\n"
                 "    return tngrt_bundle_last_error(self);\n}\n\n", n, n);
    sb_printf(o, "void %s_destroy(%s_t *self)\n{\n"
                 "    tngrt_bundle_delete(self);\n}\n", n, n);
}

/* ---- the ACL target: HCCL ---- */

void emit_hccl_declarations(StrBuf *o)
{
    sb_puts(o, "/* ---- HCCL: CANN 8.1.RC1's declarations ---- */\n"
               "/* CANN's hccl/hccl.h and hccl/hccl_types.h are C++ (nullptr, const array\n"
               " * bounds), and this file is C: it declares the HCCL types and calls it uses\n"
               " * as they declare them (extern \"C\" there). The types only where CANN's\n"
               " * hccl_types.h is not included (its include guard): tests/acl/real_cann.sh\n"
               " * includes it first and holds the calls against CANN's declarations. */\n"
               "#ifndef HCCL_TYPES_H_\n"
               "typedef enum { HCCL_SUCCESS = 0, HCCL_E_RESERVED = 23 } HcclResult;\n"
               "typedef void *HcclComm;\n"
               "typedef enum {\n"
               "    HCCL_REDUCE_SUM = 0, HCCL_REDUCE_PROD = 1, HCCL_REDUCE_MAX = 2, HCCL_REDUCE_MIN = 3,\n"
               "    HCCL_REDUCE_RESERVED = 255\n"
               "} HcclReduceOp;\n"
               "typedef enum {\n"
               "    HCCL_DATA_TYPE_INT8 = 0, HCCL_DATA_TYPE_INT32 = 2, HCCL_DATA_TYPE_FP16 = 3,\n"
               "    HCCL_DATA_TYPE_FP32 = 4, HCCL_DATA_TYPE_INT64 = 5, HCCL_DATA_TYPE_BFP16 = 11,\n"
               "    HCCL_DATA_TYPE_RESERVED = 255\n"
               "} HcclDataType;\n"
               "#endif\n"
               "HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);\n"
               "HcclResult HcclCommDestroy(HcclComm comm);\n"
               "HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,\n"
               "                         HcclReduceOp op, HcclComm comm, aclrtStream stream);\n"
               "HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,\n"
               "                         HcclComm comm, aclrtStream stream);\n"
               "HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,\n"
               "                             HcclReduceOp op, HcclComm comm, aclrtStream stream);\n"
               "HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,\n"
               "                         HcclComm comm, aclrtStream stream);\n"
               "HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,\n"
               "                         HcclDataType sendType, const void *recvBuf, const void *recvCounts,\n"
               "                         const void *rdispls, HcclDataType recvType, HcclComm comm,\n"
               "                         aclrtStream stream);\n"
               "/* ---- end of HCCL declarations ---- */\n");
}

/* `switch (self->rank) { case r: <n>_rank<r>_<call>; ... }` with each
 * rank's handle as h (fmt: the call, %s the bundle name twice). */
static void dist__switch(StrBuf *o, const char *n, int world_size, const char *fmt)
{
    sb_puts(o, "    switch (self->rank) {\n");
    for (int r = 0; r < world_size; r++) {
        sb_printf(o, "    case %d: {\n        %s_rank%d_t *h = self->b;\n        ", r, n, r);
        StrBuf rn = {0};
        sb_printf(&rn, "%s_rank%d", n, r);
        sb_printf(o, fmt, rn.s);
        sb_puts(o, "\n    }\n");
        sb_free(&rn);
    }
    sb_puts(o, "    default:\n        break;\n    }\n");
}

void emit_dist_bundle_acl(const GenOptions *opt, int world_size, GenFiles *out)
{
    const char *n = opt->name;
    GenFile *f = emit_file(out, n, ".c", 1);
    StrBuf *o = &f->text;
    emit_banner(opt, o);
    sb_printf(o, "\n/* The bundle of %d ranks on Ascend NPUs: one process per rank, as Ascend\n"
                 " * launch scripts start them, $RANK_ID its rank (0..%d) and $RANK_TABLE_FILE the\n"
                 " * cluster's rank table. Each call goes to the plan of the rank\n"
                 " * (<name>_rank<r>); the HCCL communicator of the ranks' collectives is made\n"
                 " * here (HcclCommInitClusterInfo) after the first create set the device up,\n"
                 " * and destroyed (HcclCommDestroy) before the last destroy resets it. */\n",
              world_size, world_size - 1);
    sb_printf(o, "#include \"%s.h\"\n", n);
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "#include \"%s_rank%d.h\"\n", n, r);
    sb_puts(o, "\n#include \"acl/acl.h\"\n\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n");
    emit_hccl_declarations(o);
    sb_printf(o, "\nHcclComm %s_hccl_comm(void);\nvoid %s_set_trace(%s_t *self, TngrtTrace *trace);\n", n, n, n);
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "void %s_rank%d_set_trace(%s_rank%d_t *self, TngrtTrace *trace);\n", n, r, n, r);
    sb_printf(o, "\n"
                 "struct %s_acl {\n    int rank;\n    void *b;   /* the rank's bundle */\n};\n\n"
                 "static HcclComm %s__comm;\nstatic int %s__users;   /* bundles alive */\n\n"
                 "/* The communicator the ranks' bundles issue their collectives on. */\n"
                 "HcclComm %s_hccl_comm(void)\n{\n    return %s__comm;\n}\n\n",
              n, n, n, n, n);
    sb_printf(o, "/* $RANK_ID, or -1 when it is not a rank of %d. */\n"
                 "static int %s__rank(void)\n{\n"
                 "    const char *s = getenv(\"RANK_ID\");\n    char *end;\n"
                 "    long v = s && *s ? strtol(s, &end, 10) : -1;\n"
                 "    return v >= 0 && v < %d && !*end ? (int)v : -1;\n}\n\n", world_size, n, world_size);
    sb_printf(o, "const TngrtBundleDesc *%s_desc(void)\n{\n    switch (%s__rank()) {\n", n, n);
    for (int r = 1; r < world_size; r++)
        sb_printf(o, "    case %d:\n        return %s_rank%d_desc();\n", r, n, r);
    sb_printf(o, "    default:\n        return %s_rank0_desc();\n    }\n}\n\n", n);
    sb_printf(o, "static int %s__fail(TngrtError *err, const char *msg, const char *arg, int code)\n{\n"
                 "    if (err) {\n"
                 "        snprintf(err->msg, sizeof err->msg, msg, arg, code);\n"
                 "        err->kind = TNGRT_ERR_FAILURE;\n    }\n    return -1;\n}\n\n", n);
    sb_printf(o, "int %s_create(%s_t **out, TngrtError *err)\n{\n"
                 "    %s_t *self;\n    int rc = -1, r = %s__rank();\n    *out = NULL;\n"
                 "    if (r < 0)\n"
                 "        return %s__fail(err, \"%s: a bundle of %d ranks: RANK_ID='%%s' is not a rank of 0..%d "
                 "(each rank's process sets it)\",\n"
                 "                        getenv(\"RANK_ID\") ? getenv(\"RANK_ID\") : \"\", 0);\n"
                 "    if (!(self = calloc(1, sizeof *self)))\n"
                 "        return %s__fail(err, \"%s: out of memory%%s\", \"\", 0);\n"
                 "    self->rank = r;\n",
              n, n, n, n, n, n, world_size, world_size - 1, n, n);
    sb_puts(o, "    switch (r) {\n");
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "    case %d: {\n        %s_rank%d_t *h = NULL;\n        rc = %s_rank%d_create(&h, err);\n"
                     "        self->b = h;\n        break;\n    }\n", r, n, r, n, r);
    sb_puts(o, "    default:\n        break;\n    }\n");
    sb_printf(o, "    if (rc != 0) {\n        free(self);\n        return -1;\n    }\n"
                 "    if (%s__users == 0) {   /* after the device is set */\n"
                 "        const char *table = getenv(\"RANK_TABLE_FILE\");\n"
                 "        int hr = table && *table\n"
                 "                     ? (int)HcclCommInitClusterInfo(table, (uint32_t)r, &%s__comm) : -1;\n"
                 "        if (hr != 0) {\n"
                 "            %s_destroy(self);\n"
                 "            if (!table || !*table)\n"
                 "                return %s__fail(err, \"%s: a bundle of %d ranks: RANK_TABLE_FILE names no rank table "
                 "(the cluster's JSON)%%s\", \"\", 0);\n"
                 "            return %s__fail(err, \"%s: HcclCommInitClusterInfo(%%s) failed: error %%d\",\n"
                 "                            table, hr);\n"
                 "        }\n    }\n"
                 "    %s__users++;\n    *out = self;\n    return 0;\n}\n\n",
              n, n, n, n, n, world_size, n, n, n);
    sb_printf(o, "void %s_destroy(%s_t *self)\n{\n    if (!self)\n        return;\n"
                 "    if (%s__users > 0 && --%s__users == 0 && %s__comm) {\n"
                 "        (void)HcclCommDestroy(%s__comm);\n        %s__comm = NULL;\n    }\n",
              n, n, n, n, n, n, n);
    dist__switch(o, n, world_size, "%s_destroy(h);\n        break;");
    sb_puts(o, "    free(self);\n}\n\n");
    struct { const char *sig, *call, *dflt; } fns[] = {
        {"int %1$s_load_weights(%1$s_t *self, const char *path)", "return %s_load_weights(h, path);", "return -1;"},
        {"int %1$s_unused_count(const %1$s_t *self)", "return %s_unused_count(h);", "return 0;"},
        {"const char *%1$s_unused_name(const %1$s_t *self, int i)", "return %s_unused_name(h, i);", "return NULL;"},
        {"int %1$s_run(%1$s_t *self, const TngrtTensor *inputs, int ninputs, TngrtTensor *outputs,\n"
         "        int noutputs)", "return %s_run(h, inputs, ninputs, outputs, noutputs);", "return -1;"},
        {"const TngrtBundleDesc *%1$s_signature(const %1$s_t *self)", "return %s_signature(h);", "return NULL;"},
        {"const char *%1$s_last_error(const %1$s_t *self)", "return %s_last_error(h);", "return \"\";"},
        {"void %1$s_set_trace(%1$s_t *self, TngrtTrace *trace)", "%s_set_trace(h, trace);\n        return;",
         "return;"},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        sb_printf(o, fns[i].sig, n);
        sb_puts(o, "\n{\n");
        dist__switch(o, n, world_size, fns[i].call);
        sb_printf(o, "    %s\n}\n\n", fns[i].dflt);
    }
}
