/*
 * strided.h - matmuls that read their operands' views in place:
 * on the CPU target a matmul/bmm whose operand is a permute or expand of
 * another value (or a chain of them: attention's q @ k^T, the decoder's
 * KV cache, a GQA broadcast) reads the original storage through element
 * strides (tngrt_kernel_matmul_strided), and a view op whose every reader
 * reads through it needs no copy. Slices and dim-splitting reshapes are
 * walked too: attention's q, k, v sliced from one projection are read
 * where the projection wrote them. The memory plan keeps the storage such a
 * matmul reads alive until it ran (memory.c); the CPU emitter elides the
 * copies (codegen/emit_cpu.c).
 */
#ifndef TNGC_PLAN_STRIDED_H
#define TNGC_PLAN_STRIDED_H

#include "plan_types.h"

/* How operand v of a matmul is read in place: from the storage of base
 * (v itself when v is no view the walk takes) at element offset
 * sum_k off[k] * st(k), plus ix[0] * st(ixdim) where ix >= 0, and along
 * dim d of v with stride coef[d] * st(map[d]), where st(k) is base's dense
 * stride along its dim k (the product of its later dims); map[d] -1 where
 * the view broadcasts (stride 0). rep[d] > 1: index i along dim d reads
 * i / rep[d] there (a broadcast dim of rep[d] merged into it: repeat_kv's
 * expand then reshape). The walk takes permutes, expands, contiguous,
 * slices of a constant range (x[..., a:b:s], the q, k, v of a fused
 * projection), reshapes that split dims of constant size (q.view(B, T, H,
 * D)) or merge a dim with a broadcast one after it, and an index by one
 * integer tensor of one element of a value that is no such view (a KV
 * cache's cache[slot_ids], ix the index tensor; its value is checked where
 * the index op runs). */
typedef struct PlanView {
    int32_t base;
    int32_t ix;
    int ixdim;
    int map[GRAPH_MAX_DIMS];
    int64_t coef[GRAPH_MAX_DIMS];
    int64_t off[GRAPH_MAX_DIMS];
    int64_t rep[GRAPH_MAX_DIMS];
} PlanView;

/* Fills *pv for operand v; returns 1 when the view is not v itself. */
int plan_mm_view(const Plan *self, int32_t v, PlanView *pv);

/* 1 when op is a view plan_mm_view walks through (to its input 0). */
int plan_mm_view_op(const Plan *self, int32_t op);

/* 1 when matmul op reads an operand through strides: the CPU target
 * (Plan.strided_views), an MM/BMM/MATMUL of float operands of rank >= 2,
 * no constant, no static kernels, an operand a permute/expand chain over
 * storage that no in-place op writes after the value it reads (an index
 * tensor it reads through neither), a repeated dim plan_mm_rep takes. */
int plan_mm_strided(const Plan *self, int32_t op);

/* 1 when strided matmul op reads an operand with a repeated dim
 * (PlanView.rep): *dim, a batch dim of the output, and *rep; the kernel's
 * call splits that dim into (size / rep, rep) in the output and both
 * operands, the repeated operand's stride 0 along the second. */
int plan_mm_rep(const Plan *self, int32_t op, int *dim, int64_t *rep);

/* Per op (a malloc'd array): 1 for a view op (plan_mm_view_op) whose every
 * reader is a strided matmul or another such op, whose output is no graph
 * output and no storage of a value other ops than such views read: it
 * needs no kernel call (a slice or permute) and no buffer. All 0 but on
 * the CPU target (Plan.strided_views). */
unsigned char *plan_views_elided(const Plan *self);

#endif
