/*
 * pyformat.h - Python's str(), repr() and format() of known values, and
 * f-strings: what model code names its scopes and layers with
 * (f"layer_{i:02d}").
 */
#ifndef TNGC_PYFORMAT_H
#define TNGC_PYFORMAT_H

#include "obj.h"

/* The text of format(v, spec) (spec "" is str(v)), or NULL when v is not a
 * known None, bool, int, float or str, or spec is one tngc does not
 * implement (grouping, 'n', 'c', '=' debugging); conv is 'r' for repr(),
 * 's' or 0 for str(). Charged to the run's budget. */
const char *pyformat_value(Interp *I, const Obj *v, int conv, const char *spec);

#endif
