/*
 * sink.c - the diagnostics sink: every diagnostic of a run, kept in order,
 * counted, and printed as it comes.
 */
#include "sink.h"

#include <string.h>

void sink_init(Sink *self, FILE *stream)
{
    memset(self, 0, sizeof *self);
    self->stream = stream;
}

void sink_msg_text(const SinkMsg *m, StrBuf *out)
{
    if (m->located) {
        sb_puts(out, m->msg);
        return;
    }
    if (m->file)
        sb_printf(out, "%s: ", m->file);
    if (m->severity == SEV_WARNING)
        sb_puts(out, "warning: ");
    else if (m->severity == SEV_NOTE)
        sb_puts(out, "note: ");
    sb_puts(out, m->msg);
}

void sink_msg_line(const SinkMsg *m, StrBuf *out)
{
    if (m->located) {   /* diag_text made it printable */
        sb_puts(out, m->msg);
        return;
    }
    StrBuf text = {0};
    sink_msg_text(m, &text);
    sb_puts(out, "tngc: ");
    sb_put_printable(out, text.s ? text.s : "", text.len);
    sb_putc(out, '\n');
    sb_free(&text);
}

/* Counts m, prints it when self has a stream, and keeps it. */
static void sink__add(Sink *self, SinkMsg m)
{
    self->errors += m.severity == SEV_ERROR;
    self->warnings += m.severity == SEV_WARNING;
    if (self->stream) {
        StrBuf line = {0};
        sink_msg_line(&m, &line);
        fwrite(line.s, 1, line.len, self->stream);
        fflush(self->stream);
        sb_free(&line);
    }
    VEC_PUSH(self->msgs, m);
}

void sink_vreport(Sink *self, Severity sev, const char *file, const char *fmt, va_list ap)
{
    StrBuf msg = {0};
    sb_vprintf(&msg, fmt, ap);
    SinkMsg m = {sev, file ? xstrdup(file) : NULL, msg.s ? msg.s : xstrdup(""), 0};
    sink__add(self, m);
}

void sink_located(Sink *self, Severity sev, const char *file, const char *text, size_t len)
{
    StrBuf msg = {0};
    sb_putn(&msg, text, len);
    SinkMsg m = {sev, file ? xstrdup(file) : NULL, msg.s ? msg.s : xstrdup(""), 1};
    sink__add(self, m);
}

void sink_report(Sink *self, Severity sev, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sink_vreport(self, sev, file, fmt, ap);
    va_end(ap);
}

const SinkMsg *sink_last(const Sink *self)
{
    return self->msgs.n ? &self->msgs.v[self->msgs.n - 1] : NULL;
}

void sink_quote(const Sink *self, StrBuf *out)
{
    if (self->msgs.n)
        sink_msg_text(&self->msgs.v[self->msgs.n - 1], out);
    else
        sb_puts(out, "");
}

void sink_free(Sink *self)
{
    for (size_t i = 0; i < self->msgs.n; i++) {
        free(self->msgs.v[i].file);
        free(self->msgs.v[i].msg);
    }
    VEC_FREE(self->msgs);
    self->errors = self->warnings = 0;
}
