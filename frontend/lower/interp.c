/*
 * interp.c - running a script: sets up a run (its budget, the host graph,
 * the shared strings and literals), has the evaluator run the module-level
 * code (which traces every compiled entry the script calls), reports the
 * entries never called, and hands the entry graphs back.
 */
#include "interp.h"
#include "eval.h"
#include "imports.h"

#include <string.h>
#include <time.h>

int interp_run(ScanFile *sf, const char *entry, InterpResult *out)
{
    return interp_run_limited(sf, entry, NULL, out);
}

int interp_run_limited(ScanFile *sf, const char *entry, const InterpLimits *limits, InterpResult *out)
{
    Interp *I = xcalloc(1, sizeof *I);
    I->sf = sf;
    I->ast = &sf->ast;
    I->only_entry = entry;
    size_t mb = limits && limits->max_mb ? limits->max_mb : INTERP_DEFAULT_MAX_MB;
    I->max_bytes = mb > SIZE_MAX >> 20 ? SIZE_MAX : mb << 20;
    I->max_seconds = limits && limits->max_seconds > 0 ? limits->max_seconds : INTERP_DEFAULT_MAX_SECONDS;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &I->start);   /* the budget is CPU time: load does not shorten it */
    size_t nnodes = I->ast->n ? I->ast->n : 1;
    I->node_strs = xcalloc(nnodes, sizeof *I->node_strs);
    I->literals = xcalloc(nnodes, sizeof *I->literals);
    /* the script's syntax tree, and per node its text and literal */
    interp_charge(I, nnodes * (sizeof(Node) + sizeof *I->node_strs + sizeof *I->literals));
    graph_init(&I->host, "<host>", sf->src.path);
    I->g = &I->host;
    I->sk = -1;
    I->world_size = limits && limits->world_size > 1 ? limits->world_size : 1;
    I->rank = limits && limits->world_size > 1 ? limits->rank : 0;
    eval_init(I);
    imports_init(I, sf->src.path, limits ? limits->path : NULL, limits ? limits->npath : 0,
                 eval_import_hooks(), I->globals);
    size_t ndiag = sf->diags.n;

    eval_module(I);

    entry_finish(I, entry);
    int errors = 0;
    for (size_t i = ndiag; i < sf->diags.n; i++)
        errors |= sf->diags.v[i].severity == SEV_ERROR;

    /* --entry selects what is planned and emitted, not what runs: every
     * entry was traced (its results feed the script's later code as they
     * do without --entry); the others are dropped here */
    if (entry) {
        size_t kept = 0;
        for (size_t i = 0; i < I->entries.n; i++) {
            if (strcmp(I->entries.v[i]->name, entry) == 0) {
                I->entries.v[kept++] = I->entries.v[i];
            } else {
                graph_free(I->entries.v[i]);
                free(I->entries.v[i]);
            }
        }
        I->entries.n = kept;
    }
    out->entries = I->entries.v;
    out->nentries = I->entries.n;
    memset(&I->entries, 0, sizeof I->entries);
    graph_free(&I->host);
    strmap_free(&I->weight_names);
    strmap_free(&I->lib_training);
    entry_free(I);
    imports_finish(I, &out->modules, &out->nmodules);
    VEC_FREE(I->shadows);
    VEC_FREE(I->host_inexact);
    VEC_FREE(I->host_unspec);
    VEC_FREE(I->weight_vals);
    VEC_FREE(I->weight_aliases);
    VEC_FREE(I->state_keys);
    VEC_FREE(I->states);
    VEC_FREE(I->state_reads);
    free(I->const_map);
    VEC_FREE(I->waits);
    free(I->war_last);
    VEC_FREE(I->war_reads);
    VEC_FREE(I->war_edges);
    VEC_FREE(I->stale_host);
    VEC_FREE(I->stale_entry);
    VEC_FREE(I->cows);
    VEC_FREE(I->layout_unknown);
    rowsel_free(I);
    eval_free(I);
    strmap_free(&I->builtins);
    free(I->node_strs);
    free(I->literals);
    out->arena = xmalloc(sizeof *out->arena);
    *out->arena = I->arena;   /* names in the graphs point into it */
    free(I);
    return errors ? -1 : 0;
}

void interp_result_free(InterpResult *self)
{
    for (size_t i = 0; i < self->nentries; i++) {
        graph_free(self->entries[i]);
        free(self->entries[i]);
    }
    free(self->entries);
    self->entries = NULL;
    for (size_t i = 0; i < self->nmodules; i++) {
        scanfile_free(self->modules[i]);
        free(self->modules[i]);
    }
    free(self->modules);
    self->modules = NULL;
    self->nmodules = 0;
    self->nentries = 0;
    if (self->arena) {
        arena_free(self->arena);
        free(self->arena);
        self->arena = NULL;
    }
}
