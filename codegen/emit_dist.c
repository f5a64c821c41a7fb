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
