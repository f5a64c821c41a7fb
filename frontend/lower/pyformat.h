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

/* The text of fmt % args (printf-style formatting of a known str by a
 * tuple, one value, or a dict for %(key)s): conversions s r a d i u x X o
 * e E f F g G and %%, flags -+ #0, width, precision; NULL where Python
 * raises (too few or too many arguments, a wrong type) and for what tngc
 * does not do (%c, '*' widths, "%.3d"). */
const char *pyformat_percent(Interp *I, const Obj *fmt, const Obj *args);

#endif
