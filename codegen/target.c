/*
 * target.c - the code generation targets (codegen.h, Target): the table
 * tngc gen and build look --target up in. Apart from emit.c, which both
 * emitters call, so that nothing the emitters use calls an emitter.
 */
#include "codegen.h"

#include <string.h>

static const Target targets[] = {
    {"cpu", "CPU", emit_cpu, 1},
    {"acl", "Ascend NPU (AscendCL)", emit_acl, 0},
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
