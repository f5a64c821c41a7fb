/*
 * strided.h - matmuls that read their operands' views in place (issue 18):
 * on the CPU target a matmul/bmm whose operand is a permute or expand of
 * another value (or a chain of them: attention's q @ k^T, the decoder's
 * KV cache, a GQA broadcast) reads the original storage through element
 * strides (tngrt_kernel_matmul_strided), and a view op whose every reader
 * reads through it needs no copy. The memory plan keeps the storage such a
 * matmul reads alive until it ran (memory.c); the CPU emitter elides the
 * copies (codegen/emit_cpu.c).
 */
#ifndef TNGC_PLAN_STRIDED_H
#define TNGC_PLAN_STRIDED_H

#include "plan_types.h"

/* The value that operand v of a matmul reads in place (*base: v itself
 * when v is no permute/expand) and, per dim d of v, the dim of *base it
 * walks (map[d]), or -1 where the view broadcasts (stride 0); returns 1
 * when the view is not v itself. */
int plan_mm_view(const Plan *self, int32_t v, int32_t *base, int *map);

/* 1 when matmul op reads an operand through strides: the CPU target
 * (Plan.strided_views), an MM/BMM/MATMUL of float operands of rank >= 2,
 * no constant, no static kernels, an operand a permute/expand chain over
 * storage that no in-place op writes after the value it reads. */
int plan_mm_strided(const Plan *self, int32_t op);

/* Per op (a malloc'd array): 1 for a permute/expand whose every reader is
 * a strided matmul or another such op, whose output is no graph output
 * and no storage of another value: it needs no kernel call. */
unsigned char *plan_views_elided(const Plan *self);

#endif
