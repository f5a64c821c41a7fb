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
               "typedef struct HcclCommConfigDef {\n"
               "    char reserved[24];\n"
               "    uint32_t hcclBufferSize;\n"
               "    uint32_t hcclDeterministic;\n"
               "    char hcclCommName[128];\n"
               "    char hcclUdi[128];\n"
               "    uint32_t hcclOpExpansionMode;\n"
               "    uint32_t hcclRdmaTrafficClass;\n"
               "    uint32_t hcclRdmaServiceLevel;\n"
               "} HcclCommConfig;\n"
               "#endif\n"
               "/* hccl_types.h's constants of HcclCommConfigInit (a C++ inline function of\n"
               " * hccl.h): the bundle fills the configuration itself. */\n"
               "#define TNGC_HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0u\n"
               "#define TNGC_HCCL_COMM_CONFIG_VERSION 5u\n"
               "#define TNGC_HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffu\n"
               "#define TNGC_HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffffu\n"
               "#define TNGC_HCCL_COMM_DEFAULT_OP_EXPANSION_MODE 0u\n"
               "#define TNGC_HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffffu\n"
               "#define TNGC_HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffffu\n"
               "HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);\n"
               "HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,\n"
               "                                   uint64_t subCommId, uint32_t subCommRankId, HcclCommConfig *config,\n"
               "                                   HcclComm *subComm);\n"
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

int64_t emit_collective_group(const Op *op)
{
    return op->kind == OP_ALL_GATHER || op->kind == OP_ALL_TO_ALL ? op->attr[0] : op->attr[1];
}

void emit_hccl_groups(const Graph *g, int world_size, HcclGroups *groups)
{
    int64_t world = ((int64_t)1 << world_size) - 1;
    for (size_t i = 0; i < g->ops.n; i++) {
        if (!(op_info[g->ops.v[i].kind].flags & OPF_COLLECTIVE))
            continue;
        int64_t mask = emit_collective_group(&g->ops.v[i]);
        int seen = mask == world;
        for (size_t k = 0; k < groups->n && !seen; k++)
            seen = groups->v[k] == mask;
        if (!seen)
            VEC_PUSH(*groups, mask);
    }
}

/* The group communicators of the ACL dispatcher: the groups' masks and
 * world ranks, the lookup <n>_hccl_comm(mask), HcclCommConfigInit's
 * defaults, their creation from the world's communicator (every rank in
 * the groups' one order, each only those it belongs to) and the release
 * of every communicator. */
static void dist__acl_groups(StrBuf *o, const char *n, int world_size, const HcclGroups *groups)
{
    size_t ng = groups->n;
    if (ng) {
        sb_printf(o, "/* The process groups other than the world (bit r: world rank r), their ranks,\n"
                     " * and this rank's communicator of each it belongs to. */\n"
                     "static const int64_t %s__group_mask[%zu] = {", n, ng);
        for (size_t g = 0; g < ng; g++)
            sb_printf(o, "%s%lld", g ? ", " : "", (long long)groups->v[g]);
        sb_printf(o, "};\nstatic const char *const %s__group_ranks[%zu] = {", n, ng);
        for (size_t g = 0; g < ng; g++) {
            sb_puts(o, g ? ", \"" : "\"");
            for (int r = 0, k = 0; r < world_size; r++)
                if (groups->v[g] >> r & 1)
                    sb_printf(o, "%s%d", k++ ? "," : "", r);
            sb_putc(o, '"');
        }
        sb_printf(o, "};\nstatic HcclComm %s__group[%zu];\n\n", n, ng);
    }
    sb_printf(o, "/* The communicator of group (its mask) that the ranks' bundles issue its\n"
                 " * collectives on: the world's, or this rank's of a group (NULL: none). */\n"
                 "HcclComm %s_hccl_comm(int64_t group)\n{\n"
                 "    if (group == %lld)\n        return %s__comm;\n", n, (long long)(((int64_t)1 << world_size) - 1), n);
    if (ng)
        sb_printf(o, "    for (int g = 0; g < %zu; g++)\n"
                     "        if (%s__group_mask[g] == group)\n            return %s__group[g];\n", ng, n, n);
    sb_puts(o, "    return NULL;\n}\n\n");
    if (ng) {
        sb_printf(o, "/* What CANN's HcclCommConfigInit (hccl.h, C++ inline) sets: the header's\n"
                     " * size, magic word and version, and every option unset. */\n"
                     "static void %s__config(HcclCommConfig *c)\n{\n"
                     "    struct {\n        size_t size;\n        uint32_t magic, version;\n        uint64_t reserved;\n"
                     "    } h = {sizeof *c, TNGC_HCCL_COMM_CONFIG_MAGIC_WORD, TNGC_HCCL_COMM_CONFIG_VERSION, 0};\n"
                     "    _Static_assert(sizeof h <= sizeof c->reserved, \"the configuration's header\");\n"
                     "    memset(c, 0, sizeof *c);\n    memcpy(c->reserved, &h, sizeof h);\n"
                     "    c->hcclBufferSize = TNGC_HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;\n"
                     "    c->hcclDeterministic = TNGC_HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;\n"
                     "    c->hcclOpExpansionMode = TNGC_HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;\n"
                     "    c->hcclRdmaTrafficClass = TNGC_HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;\n"
                     "    c->hcclRdmaServiceLevel = TNGC_HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;\n}\n\n", n);
        sb_printf(o, "/* Rank r's communicator of each group it belongs to, from the world's (its\n"
                     " * id the group's mask, its rank the place of r among the group's ranks):\n"
                     " * 0, or the failed call's code with *failed the group. */\n"
                     "static int %s__make_groups(int r, int *failed)\n{\n"
                     "    for (int g = 0; g < %zu; g++) {\n"
                     "        uint32_t ids[%d], k = 0, me = 0;\n"
                     "        HcclCommConfig cfg;\n"
                     "        if (!(%s__group_mask[g] >> r & 1))\n            continue;\n"
                     "        for (int w = 0; w < %d; w++)\n"
                     "            if (%s__group_mask[g] >> w & 1) {\n"
                     "                me = w == r ? k : me;\n                ids[k++] = (uint32_t)w;\n            }\n"
                     "        %s__config(&cfg);\n"
                     "        int hr = (int)HcclCreateSubCommConfig(&%s__comm, k, ids, (uint64_t)%s__group_mask[g], me, "
                     "&cfg,\n                                              &%s__group[g]);\n"
                     "        if (hr != 0) {\n            *failed = g;\n            return hr;\n        }\n"
                     "    }\n    return 0;\n}\n\n", n, ng, world_size, n, world_size, n, n, n, n, n);
    }
    sb_printf(o, "/* Destroys this rank's communicators, the groups' before the world's. */\n"
                 "static void %s__free_comms(void)\n{\n", n);
    if (ng)
        sb_printf(o, "    for (int g = 0; g < %zu; g++)\n"
                     "        if (%s__group[g]) {\n            (void)HcclCommDestroy(%s__group[g]);\n"
                     "            %s__group[g] = NULL;\n        }\n", ng, n, n, n);
    sb_printf(o, "    if (%s__comm) {\n        (void)HcclCommDestroy(%s__comm);\n        %s__comm = NULL;\n    }\n}\n\n",
              n, n, n);
}

void emit_dist_bundle_acl(const GenOptions *opt, int world_size, const HcclGroups *groups, GenFiles *out)
{
    const char *n = opt->name;
    GenFile *f = emit_file(out, n, ".c", 1);
    StrBuf *o = &f->text;
    emit_banner(opt, o);
    sb_printf(o, "\n/* The bundle of %d ranks on Ascend NPUs: one process per rank, as Ascend\n"
                 " * launch scripts start them, $RANK_ID its rank (0..%d) and $RANK_TABLE_FILE the\n"
                 " * cluster's rank table. Each call goes to the plan of the rank\n"
                 " * (<name>_rank<r>); the HCCL communicators of the ranks' collectives are made\n"
                 " * here after the first create set the device up (the world's by\n"
                 " * HcclCommInitClusterInfo, then one per process group of the rank by\n"
                 " * HcclCreateSubCommConfig), and destroyed (HcclCommDestroy) before the last\n"
                 " * destroy resets it. */\n",
              world_size, world_size - 1);
    sb_printf(o, "#include \"%s.h\"\n", n);
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "#include \"%s_rank%d.h\"\n", n, r);
    sb_puts(o, "\n#include \"acl/acl.h\"\n\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
               "#include <string.h>\n\n");
    emit_hccl_declarations(o);
    sb_printf(o, "\nHcclComm %s_hccl_comm(int64_t group);\nvoid %s_set_trace(%s_t *self, TngrtTrace *trace);\n", n, n, n);
    for (int r = 0; r < world_size; r++)
        sb_printf(o, "void %s_rank%d_set_trace(%s_rank%d_t *self, TngrtTrace *trace);\n", n, r, n, r);
    sb_printf(o, "\n"
                 "struct %s_acl {\n    int rank;\n    void *b;   /* the rank's bundle */\n};\n\n"
                 "static HcclComm %s__comm;   /* the world's */\nstatic int %s__users;   /* bundles alive */\n\n",
              n, n, n);
    dist__acl_groups(o, n, world_size, groups);
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
                 "        }\n",
              n, n, n, n, n, world_size, n, n);
    if (groups->n)
        sb_printf(o, "        int g = 0;\n"
                     "        if ((hr = %s__make_groups(r, &g)) != 0) {\n"
                     "            %s__free_comms();\n            %s_destroy(self);\n"
                     "            return %s__fail(err, \"%s: HcclCreateSubCommConfig(the group of ranks %%s) failed: "
                     "error %%d\",\n                            %s__group_ranks[g], hr);\n"
                     "        }\n",
                  n, n, n, n, n, n);
    sb_printf(o, "    }\n    %s__users++;\n    *out = self;\n    return 0;\n}\n\n", n);
    sb_printf(o, "void %s_destroy(%s_t *self)\n{\n    if (!self)\n        return;\n"
                 "    if (%s__users > 0 && --%s__users == 0)\n        %s__free_comms();\n",
              n, n, n, n, n);
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
        {"int %1$s_own_state(%1$s_t *self)", "return %s_own_state(h);", "return -1;"},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        sb_printf(o, fns[i].sig, n);
        sb_puts(o, "\n{\n");
        dist__switch(o, n, world_size, fns[i].call);
        sb_printf(o, "    %s\n}\n\n", fns[i].dflt);
    }
}
