/*
 * tngc_ranks.c - the driver's tensor-parallel part (tngc_ranks.h): with
 * --world-size N > 1 the script runs once per rank, each rank's entries are
 * planned as rank 0's, and each entry's N plans become one bundle.
 */
#include "tngc_ranks.h"
#include "support/support.h"

#include <stdlib.h>
#include <string.h>

int ranks_lower(RankSet *rs, ScanFile *sf, const char *entry, const InterpLimits *limits,
                const InterpResult *rank0, Sink *sink)
{
    int ws = limits->world_size;
    InterpLimits l = *limits;
    rs->world_size = ws;
    rs->v = xcalloc((size_t)ws - 1, sizeof *rs->v);
    for (int r = 1; r < ws; r++) {
        l.rank = r;
        InterpResult *ir = &rs->v[r - 1].ir;
        if (interp_run_limited(sf, entry, &l, ir) != 0)
            return -1;
        int same = ir->nentries == rank0->nentries;
        for (size_t i = 0; same && i < ir->nentries; i++)   /* the launcher is rank 0's */
            same = !strcmp(ir->entries[i]->name, rank0->entries[i]->name) &&
                   ir->entries[i]->inputs.n == rank0->entries[i]->inputs.n &&
                   ir->entries[i]->outputs.n == rank0->entries[i]->outputs.n;
        if (!same) {
            sink_error(sink, "rank %d compiles other entries than rank 0 (or with other inputs or outputs): "
                       "every rank must call the same compiled entries in the same order", r);
            return -1;
        }
    }
    return 0;
}

int ranks_plan(RankSet *rs, const Target *t, const NameList *user_ops, int streams_as_written, DiagList *diags)
{
    for (int r = 1; rs->v && r < rs->world_size; r++)
        for (size_t i = 0; i < rs->v[r - 1].ir.nentries; i++) {
            Plan p;
            PlanOptions popt;
            int at_create = target_plan_options(t, user_ops, streams_as_written, &popt);
            int rc = plan_build_for(&p, rs->v[r - 1].ir.entries[i], &popt, at_create, diags);
            VEC_PUSH(rs->v[r - 1].plans, p);
            if (rc != 0)
                return -1;
        }
    return 0;
}

/* Removes the files of f from `from` on that keep() refuses (arg: the
 * bundle name), keeping the order of the rest. */
static void ranks__filter(GenFiles *f, size_t from, int (*keep)(const char *file, const char *arg), const char *arg)
{
    size_t w = from;
    for (size_t i = from; i < f->n; i++) {
        if (keep(f->v[i].name, arg)) {
            f->v[w++] = f->v[i];
            continue;
        }
        free(f->v[i].name);
        sb_free(&f->v[i].text);
    }
    f->n = w;
}

static int ranks__not_launcher(const char *file, const char *arg)
{
    (void)arg;
    size_t n = strlen(file);
    return n < 11 || strcmp(file + n - 11, "_launcher.c") != 0;
}

/* <arg>.h or <arg>_launcher.c */
static int ranks__header_or_launcher(const char *file, const char *arg)
{
    size_t n = strlen(arg);
    return !strncmp(file, arg, n) && (!strcmp(file + n, ".h") || !strcmp(file + n, "_launcher.c"));
}

int ranks_emit(const RankSet *rs, const Plan *plan0, size_t i, const Target *t, GenOptions *go, GenFiles *files,
               DiagList *diags)
{
    int ws = rs->world_size, rc = 0;
    for (int r = 0; rc == 0 && r < ws; r++) {
        GenOptions g = *go;
        StrBuf rn = {0};
        sb_printf(&rn, "%s_rank%d", go->name, r);
        g.name = rn.s;
        g.fn_prefix = rn.s;
        g.world_size = 0;
        g.dist_name = go->name;
        g.dist_size = ws;
        size_t from = files->n;
        rc = t->emit(r ? &rs->v[r - 1].plans.v[i] : plan0, &g, files, diags);
        ranks__filter(files, from, ranks__not_launcher, NULL);
        sb_free(&rn);
    }
    if (rc == 0) {
        size_t from = files->n;
        go->world_size = ws;
        go->dist_name = go->name;   /* rank 0's plan again: <name>.h and the launcher */
        go->dist_size = ws;
        rc = t->emit(plan0, go, files, diags);
        ranks__filter(files, from, ranks__header_or_launcher, go->name);
        if (rc == 0 && !strcmp(t->name, "acl")) {
            HcclGroups groups = {0};
            for (int r = 0; r < ws; r++)
                emit_hccl_groups(r ? rs->v[r - 1].plans.v[i].g : plan0->g, ws, &groups);
            emit_dist_bundle_acl(go, ws, &groups, files);
            VEC_FREE(groups);
        }
        else if (rc == 0)
            emit_dist_bundle(go, ws, files);
    }
    return rc;
}

const Plan *ranks_plans(const RankSet *rs, int r, const Plan *plans0, size_t n0, size_t *n)
{
    *n = r ? rs->v[r - 1].plans.n : n0;
    return r ? rs->v[r - 1].plans.v : plans0;
}

void ranks_free(RankSet *rs)
{
    for (int r = 1; rs->v && r < rs->world_size; r++) {
        for (size_t i = 0; i < rs->v[r - 1].plans.n; i++)
            plan_free(&rs->v[r - 1].plans.v[i]);
        VEC_FREE(rs->v[r - 1].plans);
        interp_result_free(&rs->v[r - 1].ir);
    }
    free(rs->v);
    rs->v = NULL;
}
