/*
 * state.c - tensor attributes a compiled method writes in place: state.
 *
 * A plain tensor attribute of a module (`self.cache_k = torch.zeros(...)`
 * in __init__: neither a parameter nor a buffer, so not in state_dict), or
 * a non-persistent buffer (`register_buffer(..., persistent=False)`, not
 * in state_dict either), is
 * a constant of the trace while the method only reads it (obj.c replays
 * the ops that compute it). When the method writes into it in place
 * (`self.cache_k[:bsz, pos:pos + n] = xk`, a KV cache), PyTorch keeps the
 * written values in the attribute for the next call: it is state, as a
 * persistent buffer updated in place is. At its first write, before any op
 * has read it, the attribute becomes a buffer of the entry named by its
 * attribute path (GraphWeight.is_buffer GRAPH_STATE, `state` in the plan): the bundle
 * holds it between runs and the weights file provides its first value, as
 * for a persistent buffer. An attribute whose data tngc does not know
 * (`torch.empty(...)`, as mistral-src's caches) is a weight of the entry
 * from its first read (obj.c): written in place, directly or through a
 * view, that weight becomes state the same way (reads before the write read
 * the state the call starts from). What this cannot make exact is refused:
 *   - an attribute read before its first write in the method, or written
 *     through a view taken before the write (its value was already used
 *     as a constant): TNG211 at the end of the trace (obj.c);
 *   - the same attribute kept as state by one compiled entry and read by
 *     another traced before it (which took it as a constant or a weight
 *     of its own: TNG211 at the write). An entry traced after the one that
 *     keeps it holds it as state too, shared with that entry
 *     (GraphWeight.share_entry, obj.c): the program binds the two bundles
 *     to one copy (tngrt_bundle_share_state), so each sees the other's
 *     writes, as the one attribute does in PyTorch;
 *   - a view of the attribute made outside the method (host code that ran
 *     the model eagerly keeps such views) read in the trace (TNG211); views
 *     host code holds but the trace does not read do not stop the write;
 * and host code that reads the attribute after a call of the entry reads
 * data tngc does not know. The checks made when a trace reads a host
 * tensor (interp_state_note, interp_state_check, interp_state_view_check)
 * are obj.c's, beside the read: state.c calls obj.c, never the other way.
 */
#include "obj.h"

#include <string.h>

/* The shadow whose entry tensor is t, or NULL. */
static Shadow *state__shadow(Interp *I, const TensorObj *t)
{
    for (size_t i = 0; i < I->shadows.n; i++)
        if (I->shadows.v[i].obj && I->shadows.v[i].obj->kind == O_TENSOR && I->shadows.v[i].obj->t == t)
            return &I->shadows.v[i];
    return NULL;
}

/* 1 when some op of the current graph reads value v. */
static int state__read(const Graph *g, int32_t v)
{
    int32_t from = g->vals.v[v].op;
    for (size_t o = (size_t)from + 1; o < g->ops.n; o++)
        for (uint32_t k = 0; k < g->ops.v[o].nin; k++)
            if (g->ops.v[o].in[k] == v)
                return 1;
    return 0;
}

/* Whether host tensor host holds zeros as far as PyTorch specifies it: a
 * FULL of 0 of host code (torch.zeros), or torch.empty's (its contents
 * unspecified; host_unspec), written by nothing since. */
static int state__zeros(const Interp *I, const TensorObj *host)
{
    if (!host || host->g != &I->host || host->base || host->value < 0)
        return 0;
    const Graph *hg = host->g;
    int32_t op = hg->vals.v[host->value].op;
    if (op < 0 || hg->ops.v[op].kind != OP_FULL || hg->ops.v[op].fattr[0] != 0.0)
        return 0;
    int inexact = 0, unspec = 0;
    for (size_t i = 0; i < I->host_inexact.n; i++)
        inexact |= I->host_inexact.v[i] == host->value;
    for (size_t i = 0; i < I->host_unspec.n; i++)
        unspec |= I->host_unspec.v[i] == host->value;
    return !inexact || unspec;
}

/* A plain tensor attribute whose data tngc does not know (torch.empty,
 * torch.randn, ...: a weight from the first read on, obj.c) written in
 * place, its shadow s: its weight becomes state. Reads before the write
 * read the weight, the state at the start of the call: exact. */
static int state__adopt_weight(Interp *I, Shadow *s)
{
    TensorObj *host = s->host;
    if (!host || host->is_param || (host->is_buffer && !host->nonpersistent))
        return 0;
    const char *name = strmap_get(&I->weight_names, interp_ptr_key(I, host));
    GraphWeight *w = &I->g->weights.v[s->weight];
    if (!name || !w->name || strcmp(w->name, name) != 0)
        return 0;   /* a tensor with no attribute path (a module-level one) */
    if (w->is_buffer != GRAPH_STATE) {
        w->is_buffer = GRAPH_STATE;
        w->zeros = state__zeros(I, host);
        StateAttr a = {host, I->g, name};
        VEC_PUSH(I->states, a);
    }
    return 1;
}

/* 1 when entry graph g keeps host as state (its own, or shared). */
static int state__kept(const Interp *I, const TensorObj *host, const Graph *g)
{
    for (size_t i = 0; i < I->states.n; i++)
        if (I->states.v[i].host == host && I->states.v[i].g == g)
            return 1;
    return 0;
}

/* An error when another entry read host before this one writes it as
 * state, as a constant or a weight of its own: its bundle holds a copy
 * that would not see the writes. */
static void state__read_elsewhere(Interp *I, const TensorObj *host, const char *name, int32_t node)
{
    for (size_t i = 0; i < I->state_reads.n; i++)
        if (I->state_reads.v[i].host == host && I->state_reads.v[i].g != I->g &&
            !state__kept(I, host, I->state_reads.v[i].g)) {
            interp_diag(I, node, RULE_TNG211, "this entry writes the tensor attribute '%s' in place, which "
                        "keeps it as state, and the compiled entry %s, called before it, read it as a value "
                        "of its own: that bundle would not see these writes (call this entry first, so that "
                        "the other holds it as state shared with this one; or register it as a buffer and "
                        "pass it as an input)", name, I->state_reads.v[i].g->name);
            return;
        }
}

int interp_state_adopt(Interp *I, TensorObj *t, int32_t node)
{
    if (!I->tracing || !t || t->g != I->g)
        return 0;
    Shadow *s = state__shadow(I, t->base ? t->base : t);
    if (s && s->input < 0 && s->weight >= 0) {
        int was = I->g->weights.v[s->weight].is_buffer == GRAPH_STATE;
        int r = state__adopt_weight(I, s);
        if (r && !was)
            state__read_elsewhere(I, s->host, I->g->weights.v[s->weight].name, node);
        return r;
    }
    if (t->base || t->nviews)
        return 0;
    if (!s || s->input >= 0 || s->weight >= 0 || s->initial < 0 || t->value != s->initial)
        return 0;
    TensorObj *host = s->host;
    if (!host || host->is_param || (host->is_buffer && !host->nonpersistent) || host->base || host->nviews)
        return 0;
    const char *name = strmap_get(&I->weight_names, interp_ptr_key(I, host));
    if (!name)
        return 0;   /* a module-level tensor: no attribute of the module */
    for (size_t i = 0; i < I->shadows.n; i++)
        if (&I->shadows.v[i] != s && I->shadows.v[i].initial == s->initial)
            return 0;   /* another host tensor replayed to the same value */
    Graph *g = I->g;
    if (state__read(g, s->initial))
        return 0;
    const Val *cv = &g->vals.v[s->initial];
    int64_t dims[GRAPH_MAX_DIMS];
    for (int d = 0; d < cv->ndim; d++)
        if (!graph_dim_const_value(g, cv->dims[d], &dims[d]))
            return 0;
    int fmt = cv->format, nd = cv->ndim;
    DType dt = cv->dtype;
    int32_t v = graph_add_weight(g, name, dt, nd, dims, GRAPH_STATE);
    if (v < 0)
        return 0;
    g->vals.v[v].format = (uint8_t)fmt;
    g->weights.v[g->weights.n - 1].zeros = state__zeros(I, host);
    s->weight = (int)g->weights.n - 1;
    s->initial = v;
    t->value = v;
    StateAttr a = {host, g, name};
    VEC_PUSH(I->states, a);
    state__read_elsewhere(I, host, name, node);
    return 1;
}

void interp_state_write(Interp *I, Obj *x, const char *method, int32_t node)
{
    if (!I->tracing || !x || x->kind != O_TENSOR)
        return;
    if (method) {
        size_t n = strlen(method);
        if (n < 2 || method[n - 1] != '_' || method[n - 2] == '_')
            return;
    }
    Obj *t = x->t->g == I->g ? x : interp_trace_in(I, x, node);
    if (t && t->kind == O_TENSOR && t->t->g == I->g)
        interp_state_adopt(I, t->t, node);
}

int interp_state_alone(Interp *I, const TensorObj *host)
{
    if (!host || host->base)
        return 0;
    int kept = 0;
    for (size_t i = 0; i < I->states.n && !kept; i++)
        kept = I->states.v[i].host == host && I->states.v[i].g == I->g;
    if (!kept)
        return 0;
    for (size_t i = 0; i < I->shadows.n; i++)
        if (I->shadows.v[i].host && I->shadows.v[i].host->base == host)
            return 0;
    return 1;
}

void interp_state_after_call(Interp *I, const Graph *g)
{
    for (size_t i = 0; i < I->states.n; i++)
        if (I->states.v[i].g == g && I->states.v[i].host->g == &I->host)
            VEC_PUSH(I->host_inexact, I->states.v[i].host->value);
}
