/*
 * diag.h - writing diagnostics: gcc-style text, JSON objects, SARIF 2.1.0.
 */
#ifndef TNGC_DIAG_H
#define TNGC_DIAG_H

#include "frontend.h"

/* Sorts by line, column, rule, message: the order every format uses. */
void diag_sort(DiagList *self);
/* Drops repeats of the same diagnostic (a line lowered many times, as the
 * body of a layer in a loop, reports once); call after diag_sort. */
void diag_dedup(DiagList *self);
/* `path:line:col: severity: message [RULE]`, the source line and a caret. */
void diag_text(const Source *src, const Diag *d, StrBuf *out);
/* {path, line, col, end_line, end_col, severity, rule, message}. */
void diag_json(const Source *src, const Diag *d, StrBuf *out);
/* The SARIF log up to the results array, with the rule table. */
void diag_sarif_begin(StrBuf *out, const char *version);
/* One SARIF result; first is 1 for the first result of the log. */
void diag_sarif(const Source *src, const Diag *d, int first, StrBuf *out);
/* Closes the SARIF log. */
void diag_sarif_end(StrBuf *out);

#endif
