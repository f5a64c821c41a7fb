/*
 * segments.c - super-kernel segments: which ops of a super_kernel scope are
 * dispatched together as one launch.
 *
 * TorchAir fuses the ops of a scope in program order; an op that cannot be
 * fused closes the current segment, runs on its own, and a new segment
 * starts after it. A segment is therefore a maximal run of
 * consecutive ops (program order) of one scope (Op.sk) in which every op
 * can be fused. Graph inputs and weights run nothing and are skipped. Views
 * (OPF_ALIAS) inside a run belong to the segment without a kernel.
 *
 * An op cannot be fused when
 *   - its kind is OPF_NOFUSE (format_cast: a layout change between
 *     kernels, which the fused binary cannot express);
 *   - it writes in place into a graph input or weight: memory the caller
 *     owns is updated at a segment boundary, ordered against everything
 *     else that reads it;
 *   - one of its outputs has a dim no gear binds: a super kernel is
 *     compiled for static shapes only.
 * With stream-fusion=0 (the default) a segment spans at most two streams:
 * an op on a third stream closes the segment and opens the next one.
 * A segment runs on its first op's stream. PlanSegment.split says why each
 * segment ended.
 */
#include "passes.h"
#include "plan.h"
#include "values.h"

#include <ctype.h>
#include <string.h>

/* Value of option key in "k=v:k=v" (spaces around items ignored), or NULL. */
static const char *segments__option(Arena *arena, const char *opts, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = opts; p && *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && isspace((unsigned char)*p))
            p++, n--;
        while (n && isspace((unsigned char)p[n - 1]))
            n--;
        if (n > klen && !strncmp(p, key, klen) && p[klen] == '=')
            return arena_strndup(arena, p + klen + 1, n - klen - 1);
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

/* 1 when scope sk allows any number of streams (stream-fusion=1). */
static int segments__any_streams(Plan *self, int sk)
{
    const char *v = segments__option(&self->arena, self->g->sks.v[sk].options, "stream-fusion");
    return v && !strcmp(v, "1");
}

/* 1 when an output of op has a dim some gear leaves unbound. */
static int segments__dynamic(const Plan *self, const Op *op)
{
    for (uint32_t k = 0; k < op->nout; k++)
        for (size_t gi = 0; gi < self->gears.n; gi++)
            if (plan_val_numel(self, (int)gi, op->out + (int32_t)k) < 0)
                return 1;
    return 0;
}

/* Why op cannot be inside a segment, or NULL. */
static const char *segments__unfusable(Plan *self, const Op *op)
{
    const char *name = op_info[op->kind].name;
    unsigned flags = op_info[op->kind].flags;
    if (flags & OPF_NOFUSE)
        return arena_printf(&self->arena, "%s cannot be fused", name);
    if ((flags & OPF_INPLACE) && op->nin > 0 && op->in[0] >= 0) {
        const char *dst = plan_caller_storage(self, op->in[0]);
        if (dst)
            return arena_printf(&self->arena, "%s writes into %s", name, dst);
    }
    if (segments__dynamic(self, op))
        return arena_printf(&self->arena, "%s has a dynamic shape", name);
    return NULL;
}

/* The segment being built. */
typedef struct OpenSeg {
    int sk;                /* -1: none open */
    VEC(int32_t) ops;
    int streams[2];
    int nstreams;
} OpenSeg;

static void segments__close(Plan *self, OpenSeg *cur, const char *why)
{
    if (cur->sk < 0)
        return;
    PlanSegment seg = {.sk = cur->sk, .nops = cur->ops.n, .split = why};
    seg.ops = arena_alloc(&self->arena, cur->ops.n * sizeof *seg.ops);
    memcpy(seg.ops, cur->ops.v, cur->ops.n * sizeof *seg.ops);
    seg.stream = self->g->ops.v[cur->ops.v[0]].stream;
    VEC_PUSH(self->segs, seg);
    cur->sk = -1;
    cur->ops.n = 0;
    cur->nstreams = 0;
}

/* 1 when adding an op on stream s would bring a third stream. */
static int segments__third_stream(Plan *self, const OpenSeg *cur, int s)
{
    if (cur->sk < 0 || cur->nstreams < 2 || segments__any_streams(self, cur->sk))
        return 0;
    return cur->streams[0] != s && cur->streams[1] != s;
}

static void segments__add(OpenSeg *cur, int sk, int32_t op, int stream)
{
    cur->sk = sk;
    VEC_PUSH(cur->ops, op);
    for (int i = 0; i < cur->nstreams; i++)
        if (cur->streams[i] == stream)
            return;
    if (cur->nstreams < 2)
        cur->streams[cur->nstreams++] = stream;
}

void plan_segments(Plan *self, DiagList *diags)
{
    (void)diags;  /* TNG116 (a third stream) is lint's; here it only splits */
    const Graph *g = self->g;
    OpenSeg cur = {.sk = -1};
    for (size_t i = 0; i < g->ops.n; i++) {
        const Op *op = &g->ops.v[i];
        if ((op_info[op->kind].flags & OPF_SOURCE) || plan_is_const(self, (int32_t)i))
            continue;   /* a constant runs at create, in no segment */
        TNGC_ASSERT(op->sk < (int)g->sks.n);
        if (op->sk != cur.sk)
            segments__close(self, &cur, "end of scope");
        if (op->sk < 0)
            continue;
        const char *why = segments__unfusable(self, op);
        if (why) {
            segments__close(self, &cur, why);
            continue;
        }
        if (segments__third_stream(self, &cur, op->stream))
            segments__close(self, &cur, "third stream");
        segments__add(&cur, op->sk, (int32_t)i, op->stream);
    }
    segments__close(self, &cur, "end of scope");
    VEC_FREE(cur.ops);
}
