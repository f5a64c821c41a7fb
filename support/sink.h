/*
 * sink.h - the diagnostics sink: the one place a run's stages report the
 * problems that have no line of a script to point at (sink.c).
 */
#ifndef TNGC_SINK_H
#define TNGC_SINK_H

#include "support.h"

typedef enum Severity { SEV_NOTE, SEV_WARNING, SEV_ERROR } Severity;

/* A diagnostic with no line of a script to point at: about a file (one
 * that cannot be read or written) or about the run itself. */
typedef struct SinkMsg {
    Severity severity;
    char *file;            /* owned; NULL: about the run */
    char *msg;             /* owned */
} SinkMsg;

/*
 * The one place a compilation's stages report to: the driver makes one
 * per run and hands it down. It keeps every diagnostic without a source
 * location in the order reported, counts them by severity, and prints
 * each on stream as it comes when stream is set (tngc: stderr) as
 *
 *     tngc: [FILE: ][warning: |note: ]MESSAGE
 *
 * (errors carry no severity word, the form tngc has always printed; the
 * message is shown by sb_put_printable). The located diagnostics of a
 * script are Diags (frontend/diag), which the driver prints beside these.
 */
struct Sink {
    VEC(SinkMsg) msgs;
    size_t errors, warnings;
    FILE *stream;          /* each message is printed here when reported; NULL: only kept */
};

/* An empty sink printing to stream (NULL: keeping only). */
void sink_init(Sink *self, FILE *stream);
/* Reports a diagnostic of severity sev about file (NULL: the run). */
void sink_report(Sink *self, Severity sev, const char *file, const char *fmt, ...);
void sink_vreport(Sink *self, Severity sev, const char *file, const char *fmt, va_list ap);
/* sink_report of an error about the run (sink_error(sink, fmt, ...)); of
 * an error about file; of a warning and of a note about the run. */
#define sink_error(self, ...) sink_report((self), SEV_ERROR, NULL, __VA_ARGS__)
#define sink_file_error(self, file, ...) sink_report((self), SEV_ERROR, (file), __VA_ARGS__)
#define sink_warning(self, ...) sink_report((self), SEV_WARNING, NULL, __VA_ARGS__)
#define sink_note(self, ...) sink_report((self), SEV_NOTE, NULL, __VA_ARGS__)
/* Appends "[FILE: ][warning: |note: ]MESSAGE" as it is (no "tngc: ", no
 * line break): the text another message can quote. */
void sink_msg_text(const SinkMsg *m, StrBuf *out);
/* Appends the line sink prints for m: "tngc: ", sink_msg_text shown by
 * sb_put_printable, a line break. */
void sink_msg_line(const SinkMsg *m, StrBuf *out);
/* The newest message, or NULL when there is none. */
const SinkMsg *sink_last(const Sink *self);
/* Appends sink_msg_text of the newest message (nothing when there is
 * none; out->s is set either way): a caller quoting what a stage it ran
 * reported in a sink of its own. */
void sink_quote(const Sink *self, StrBuf *out);
void sink_free(Sink *self);

#endif
