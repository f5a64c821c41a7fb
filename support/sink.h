/*
 * sink.h - the diagnostics sink: the one place through which every
 * diagnostic of a run reaches the user, counted (sink.c).
 */
#ifndef TNGC_SINK_H
#define TNGC_SINK_H

#include "support.h"

typedef enum Severity { SEV_NOTE, SEV_WARNING, SEV_ERROR } Severity;

/* A diagnostic: with no line of a script to point at, about a file (one
 * that cannot be read or written) or about the run itself; or a located
 * one, as it is printed. */
typedef struct SinkMsg {
    Severity severity;
    char *file;            /* owned; NULL: about the run */
    char *msg;             /* owned */
    int located;           /* msg is a located diagnostic whole, as printed (its
                            * "file:line:col: ", source line and caret included) */
} SinkMsg;

/*
 * The one place a compilation's diagnostics go: the driver makes one per
 * run and hands it down. It keeps every diagnostic in the order reported,
 * counts them by severity, and prints each on stream as it comes when
 * stream is set (tngc: stderr). One without a source location prints as
 *
 *     tngc: [FILE: ][warning: |note: ]MESSAGE
 *
 * (errors carry no severity word, the form tngc has always printed; the
 * message is shown by sb_put_printable). A located diagnostic is a Diag
 * (frontend/diag): the stages collect a script's in its DiagList, where
 * they are sorted, de-duplicated and matched against `# noqa` comments
 * before the driver hands each, rendered in gcc's format, to the sink
 * (sink_located), which prints and counts it like any other.
 */
struct Sink {
    VEC(SinkMsg) msgs;
    size_t errors, warnings;
    FILE *stream;          /* each message is printed here when reported; NULL: only kept */
};

/* An empty sink printing to stream (NULL: keeping only). */
void sink_init(Sink *self, FILE *stream);
/* Reports a located diagnostic of severity sev in file, text being the
 * whole of it as printed (lines and line breaks; diag_text's). */
void sink_located(Sink *self, Severity sev, const char *file, const char *text, size_t len);
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
 * line break; a located one's text whole): the text another message can
 * quote. */
void sink_msg_text(const SinkMsg *m, StrBuf *out);
/* Appends what sink prints for m: "tngc: ", sink_msg_text shown by
 * sb_put_printable, a line break; a located one's text as it is. */
void sink_msg_line(const SinkMsg *m, StrBuf *out);
/* The newest message, or NULL when there is none. */
const SinkMsg *sink_last(const Sink *self);
/* Appends sink_msg_text of the newest message (nothing when there is
 * none; out->s is set either way): a caller quoting what a stage it ran
 * reported in a sink of its own. */
void sink_quote(const Sink *self, StrBuf *out);
void sink_free(Sink *self);

#endif
