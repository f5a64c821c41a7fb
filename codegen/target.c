/*
 * target.c - the code generation targets (codegen.h, Target): the table
 * tngc gen and build look --target up in. Apart from emit.c, which both
 * emitters call, so that nothing the emitters use calls an emitter.
 */
#include "codegen.h"

#include <string.h>

/* The CPU target's user matmul kernels take dense operands. */
static const char *const target__cpu_dense[] = {"mm", "bmm", "matmul", NULL};

/* The CPU target (the default; tngc plan shows its plan) keeps branches too
 * small for a thread hand-off on stream 0 and computes constants once at
 * create; ACL runs them in every call. */
/* AscendCL and aclnn, from CANN; an ACL launcher links libtngcrt without
 * the CPU kernels, hence without OpenBLAS. */
static const TargetToolkit target__cann = {
    "CANN", "--acl-home", "ASCEND_TOOLKIT_HOME", "include/acl/acl.h", "AscendCL", "lib64/libascendcl.so",
    "-lascendcl -lnnopbase -lopapi",
};

static const Target targets[] = {
    {"cpu", "CPU", emit_cpu, 1, 1, PLAN_HANDOFF_NS, target__cpu_dense, "libtngcrt.a", "-lopenblas -lpthread -lm",
     NULL},
    {"acl", "Ascend NPU (AscendCL)", emit_acl, 0, 0, 0, NULL, "libtngcrt_core.a", "-lpthread -lm", &target__cann},
};

const Target *target_find(const char *name)
{
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(targets[i].name, name))
            return &targets[i];
    return NULL;
}

const char *target_names(void)
{
    return "cpu, acl";
}

int target_plan_options(const Target *self, const NameList *user_ops, int streams_as_written, PlanOptions *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->op_type = codegen_op_type;        /* static kernels are named as the manifests name them */
    opt->dtype_name = codegen_dtype_name;
    if (!self)
        return 0;
    if (!streams_as_written)
        opt->handoff_ns = self->handoff_ns;
    for (size_t u = 0; u < user_ops->n; u++)
        for (size_t k = 0; user_ops->v[u] && self->dense_user_ops && self->dense_user_ops[k]; k++)
            if (!strcmp(user_ops->v[u], self->dense_user_ops[k]))
                opt->dense_matmuls = 1;
    return self->consts_at_create;
}
