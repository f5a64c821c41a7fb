/*
 * dimgears.h - a comparison of dynamic dims decided by the gears
 * (dimgears.c): `if seqlen > 1:` on a geared length takes the branch every
 * gear takes. Part of the object layer (pyops.c calls it).
 */
#ifndef TNGC_LOWER_DIMGEARS_H
#define TNGC_LOWER_DIMGEARS_H

#include "obj.h"

/* l op r (op one of <, <=, >, >=, ==, !=) where l or r is a dynamic dim of
 * the current graph: 1 with *res its value when it is the same for every
 * value the dims' symbols take in any gear (each symbol's set_dim_gears
 * values and its example size, all combinations); 0 after a TNG204 at node
 * that names the condition and, where gears differ on it, two values that
 * decide it differently. */
int dimgears_compare(Interp *I, const char *op, const Obj *l, const Obj *r, int32_t node, int *res);

#endif
