/*
 * diag.h - diagnostics: the rule table (rules.def), collecting located
 * diagnostics, and writing them as gcc-style text, JSON objects, SARIF 2.1.0.
 */
#ifndef TNGC_DIAG_H
#define TNGC_DIAG_H

#include "../python/python.h"

/* ===================================================================== */
/* Diagnostics                                                           */
/* ===================================================================== */

/* Severity: support/sink.h (the sink's, shared with it). */

typedef enum RuleId {
#define RULE(id, sev, name, summary) RULE_##id,
#include "rules.def"
#undef RULE
    RULE__count
} RuleId;

typedef struct RuleInfo {
    const char *id;        /* "TNG123" */
    Severity severity;
    const char *name;
    const char *summary;
} RuleInfo;

extern const RuleInfo rule_info[RULE__count];

typedef struct Diag {
    uint32_t line, col, end_line, end_col;  /* 1-based; end exclusive */
    RuleId rule;
    Severity severity;
    char *msg;             /* owned */
    const Source *src;     /* the file it is in when not the one it is printed
                            * with (a module the script imports), else NULL */
    const char *file;      /* diag_at_file's path of that module (not owned), for
                            * the caller to resolve to src; else NULL */
} Diag;

typedef VEC(Diag) DiagList;

/* Reports rule at node n of ast (severity from the rule table). */
void diag_node(DiagList *self, const Ast *ast, int32_t n, RuleId rule, const char *fmt, ...);
/* Reports rule at a 1-based line and column (a one-column span). */
void diag_at(DiagList *self, uint32_t line, uint32_t col, RuleId rule, const char *fmt, ...);
/* The same at line:col of file, a module the script imports (an op's
 * Op.file; NULL: the script itself); the caller sets src from file. */
void diag_at_file(DiagList *self, const char *file, uint32_t line, uint32_t col, RuleId rule,
                  const char *fmt, ...);
void diag_free(DiagList *self);

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

/* ---- reports: the diagnostics of one run, in one format ---- */

typedef enum DiagFormat { DIAG_TEXT, DIAG_JSON, DIAG_SARIF } DiagFormat;

/* A report in the making: diagnostics of any number of files appended to
 * out in one format, counted by severity. */
typedef struct DiagReport {
    DiagFormat format;
    StrBuf *out;
    size_t errors, warnings, reported;
} DiagReport;

/* The format called name ("text", "json", "sarif"); DIAG_TEXT for others. */
DiagFormat diag_format(const char *name);
/* Starts a report on out (JSON: the list opens; SARIF: the log up to its
 * results, tool version `version`). */
void diag_report_begin(DiagReport *self, DiagFormat format, const char *version, StrBuf *out);
/* Appends d, a diagnostic of src, and counts it. */
void diag_report_add(DiagReport *self, const Source *src, const Diag *d);
/* Closes the report; text reports with errors or warnings end with the
 * line "N errors, M warnings" when summary is set. */
void diag_report_end(DiagReport *self, int summary);

#endif
