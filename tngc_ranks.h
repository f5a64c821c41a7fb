/*
 * tngc_ranks.h - the driver's tensor-parallel part (--world-size N > 1):
 * ranks 1..N-1 of a script, each lowered and planned as rank 0 is, and the
 * emission of one entry's N plans as one bundle (docs/bundles.md, "Tensor
 * parallel over MPI"). Rank 0's graphs and plans stay the script's own
 * (tngc.c); a RankSet holds the others.
 */
#ifndef TNGC_RANKS_H
#define TNGC_RANKS_H

#include "frontend/lower/interp.h"
#include "planner/plan.h"
#include "codegen/codegen.h"
#include "support/sink.h"

/* Ranks 1..world_size-1: v[r - 1] is rank r's; v is NULL before LOWER. */
typedef struct RankSet {
    int world_size;
    struct RankPlans {
        InterpResult ir;
        VEC(Plan) plans;
    } *v;
} RankSet;

/* LOWER of ranks 1..limits->world_size-1 (rank0: rank 0's result, which
 * each must match entry for entry: the launcher is rank 0's). 0, or -1
 * after a diagnostic of sf or an error in sink. */
int ranks_lower(RankSet *rs, ScanFile *sf, const char *entry, const InterpLimits *limits,
                const InterpResult *rank0, Sink *sink);
/* PLAN of each rank's entries with the options target_plan_options gives
 * (as rank 0's); 0, or -1 at the first plan that fails. */
int ranks_plan(RankSet *rs, const Target *t, const NameList *user_ops, int streams_as_written, DiagList *diags);
/* EMIT of entry i: each rank's plan as the bundle <name>_rank<r> without
 * its launcher, then <name>.h and the launcher from rank 0's plan (plan0)
 * with the MPI start, and <name>.c, which hands each call to the rank's
 * bundle (emit_dist.c). 0, or the emitter's failure. */
int ranks_emit(const RankSet *rs, const Plan *plan0, size_t i, const Target *t, GenOptions *go, GenFiles *files,
               DiagList *diags);
/* Rank r's plans (rank 0: plans0, n0); their number in *n. */
const Plan *ranks_plans(const RankSet *rs, int r, const Plan *plans0, size_t n0, size_t *n);
void ranks_free(RankSet *rs);

#endif
