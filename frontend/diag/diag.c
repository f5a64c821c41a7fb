/*
 * diag.c - diagnostics: the rule table, recording, and the three output
 * formats: gcc-style text with the source line and a caret, a JSON list,
 * and SARIF 2.1.0. A DiagReport writes the diagnostics of a whole run in
 * one of them (`tngc lint --format`, and text for the other commands).
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

const RuleInfo rule_info[RULE__count] = {
#define RULE(id, sev, name, summary) [RULE_##id] = {#id, sev, name, summary},
#include "rules.def"
#undef RULE
};

static const char *const severity_name[] = {"note", "warning", "error"};

/* Completes d with the rule and the formatted message and appends it. */
static void diag__push(DiagList *self, Diag *d, RuleId rule, const char *fmt, va_list ap)
{
    d->rule = rule;
    d->severity = rule_info[rule].severity;
    StrBuf sb = {0};
    sb_vprintf(&sb, fmt, ap);
    d->msg = sb.s;
    VEC_PUSH(*self, *d);
}

void diag_node(DiagList *self, const Ast *ast, int32_t n, RuleId rule, const char *fmt, ...)
{
    Diag d = {0};
    TNGC_ASSERT(n >= 0 && (uint32_t)n < ast->n);
    const Node *nd = &ast->nodes[n];
    d.line = nd->line;
    d.col = ast_col(ast, n);
    d.end_line = source_line(ast->src, nd->end > nd->start ? nd->end - 1 : nd->end);
    d.end_col = nd->end > nd->start ? source_col(ast->src, nd->end - 1) + 1 : d.col + 1;
    if (d.end_line < d.line || (d.end_line == d.line && d.end_col <= d.col))
        d.end_line = d.line, d.end_col = d.col + 1;
    va_list ap;
    va_start(ap, fmt);
    diag__push(self, &d, rule, fmt, ap);
    va_end(ap);
}

void diag_at(DiagList *self, uint32_t line, uint32_t col, RuleId rule, const char *fmt, ...)
{
    Diag d = {0};
    d.line = line ? line : 1;
    d.col = col ? col : 1;
    d.end_line = d.line;
    d.end_col = d.col + 1;
    va_list ap;
    va_start(ap, fmt);
    diag__push(self, &d, rule, fmt, ap);
    va_end(ap);
}

void diag_at_file(DiagList *self, const char *file, uint32_t line, uint32_t col, RuleId rule,
                  const char *fmt, ...)
{
    Diag d = {0};
    d.line = line ? line : 1;
    d.col = col ? col : 1;
    d.end_line = d.line;
    d.end_col = d.col + 1;
    d.file = file;
    va_list ap;
    va_start(ap, fmt);
    diag__push(self, &d, rule, fmt, ap);
    va_end(ap);
}

void diag_dedup(DiagList *self)
{
    size_t k = 0;
    for (size_t i = 0; i < self->n; i++) {
        const Diag *d = &self->v[i];
        if (k > 0) {
            const Diag *p = &self->v[k - 1];
            if (p->src == d->src && p->line == d->line && p->col == d->col && p->rule == d->rule &&
                !strcmp(p->msg, d->msg)) {
                free(self->v[i].msg);
                continue;
            }
        }
        self->v[k++] = self->v[i];
    }
    self->n = k;
}

void diag_free(DiagList *self)
{
    for (size_t i = 0; i < self->n; i++)
        free(self->v[i].msg);
    VEC_FREE(*self);
}

static int diag__cmp(const void *a, const void *b)
{
    const Diag *x = a, *y = b;
    if (x->src != y->src) {   /* the printed file's first, then the others by path */
        if (!x->src || !y->src)
            return !x->src ? -1 : 1;
        int c = strcmp(x->src->path, y->src->path);
        if (c)
            return c;
    }
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    if (x->rule != y->rule)
        return x->rule < y->rule ? -1 : 1;
    return strcmp(x->msg, y->msg);
}

void diag_sort(DiagList *self)
{
    if (self->n)
        qsort(self->v, self->n, sizeof *self->v, diag__cmp);
}

/* Appends s[0..n) with control bytes shown as spaces (tabs kept) and
 * bytes that are not UTF-8 as '?', one column each. */
static void diag__put_source(StrBuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = utf8_valid_len((const unsigned char *)s + i, n - i);
        if (c < 0x20 || c == 0x7f)
            sb_putc(out, c == '\t' ? '\t' : ' ');
        else if (len == 0)
            sb_putc(out, '?');
        else
            sb_putn(out, s + i, len);
        i += len ? len : 1;
    }
}

/* Appends s as sb_put_printable shows it: a path or a message quotes script
 * text, which must not reach a terminal as escape sequences (or fake a
 * second diagnostic line). */
static void diag__put_text(StrBuf *out, const char *s)
{
    sb_put_printable(out, s, strlen(s));
}

void diag_text(const Source *src, const Diag *d, StrBuf *out)
{
    if (d->src)
        src = d->src;
    diag__put_text(out, src->path);
    sb_printf(out, ":%u:%u: %s: ", d->line, d->col, severity_name[d->severity]);
    diag__put_text(out, d->msg);
    sb_printf(out, " [%s]\n", rule_info[d->rule].id);
    size_t len;
    const char *line = source_line_text(src, d->line, &len);
    if (len > 1000)   /* a minified line: show the part around the column */
        return;
    sb_printf(out, "%5u | ", d->line);
    diag__put_source(out, line, len);
    sb_puts(out, "\n      | ");
    uint32_t col = d->col <= len + 1 ? d->col : (uint32_t)len + 1;
    for (uint32_t i = 1; i < col; i++)
        sb_putc(out, line[i - 1] == '\t' ? '\t' : ' ');
    sb_putc(out, '^');
    uint32_t end = d->end_line == d->line ? d->end_col : (uint32_t)len + 1;
    for (uint32_t i = col + 1; i < end && i <= len; i++)
        sb_putc(out, '~');
    sb_putc(out, '\n');
}

void diag_json(const Source *src, const Diag *d, StrBuf *out)
{
    if (d->src)
        src = d->src;
    sb_puts(out, "{\"path\":");
    sb_json_str(out, src->path, strlen(src->path));
    sb_printf(out, ",\"line\":%u,\"col\":%u,\"end_line\":%u,\"end_col\":%u,\"severity\":\"%s\",\"rule\":\"%s\",\"message\":",
              d->line, d->col, d->end_line, d->end_col, severity_name[d->severity], rule_info[d->rule].id);
    sb_json_str(out, d->msg, strlen(d->msg));
    sb_putc(out, '}');
}

void diag_sarif_begin(StrBuf *out, const char *version)
{
    sb_puts(out, "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
                 "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"tngc\",\"version\":");
    sb_json_str(out, version, strlen(version));
    sb_puts(out, ",\"rules\":[");
    for (int r = 0; r < RULE__count; r++) {
        if (r)
            sb_putc(out, ',');
        sb_printf(out, "{\"id\":\"%s\",\"name\":", rule_info[r].id);
        sb_json_str(out, rule_info[r].name, strlen(rule_info[r].name));
        sb_puts(out, ",\"shortDescription\":{\"text\":");
        sb_json_str(out, rule_info[r].summary, strlen(rule_info[r].summary));
        sb_printf(out, "},\"defaultConfiguration\":{\"level\":\"%s\"}}",
                  rule_info[r].severity == SEV_ERROR ? "error" : rule_info[r].severity == SEV_WARNING ? "warning" : "note");
    }
    sb_puts(out, "]}},\"results\":[");
}

/* SARIF columns count UTF-16 code units; ours count bytes. */
static uint32_t diag__utf16_col(const Source *src, uint32_t line, uint32_t byte_col)
{
    size_t len;
    const char *t = source_line_text(src, line, &len);
    uint32_t col = 1;
    for (size_t i = 0; i + 1 < byte_col && i < len; i++) {
        unsigned char c = (unsigned char)t[i];
        if ((c & 0xC0) != 0x80)
            col += c >= 0xF0 ? 2 : 1;
    }
    if (byte_col > len + 1)
        col += byte_col - (uint32_t)len - 1;
    return col;
}

void diag_sarif(const Source *src, const Diag *d, int first, StrBuf *out)
{
    if (d->src)
        src = d->src;
    if (!first)
        sb_putc(out, ',');
    sb_printf(out, "{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\",\"message\":{\"text\":",
              rule_info[d->rule].id, (int)d->rule,
              d->severity == SEV_ERROR ? "error" : d->severity == SEV_WARNING ? "warning" : "note");
    sb_json_str(out, d->msg, strlen(d->msg));
    sb_puts(out, "},\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    /* a relative URI: percent-encode what a URI may not contain */
    StrBuf uri = {0};
    for (const unsigned char *p = (const unsigned char *)src->path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            sb_putc(&uri, (char)*p);
        else
            sb_printf(&uri, "%%%02X", *p);
    }
    sb_json_str(out, uri.s, uri.len);
    sb_free(&uri);
    sb_printf(out, "},\"region\":{\"startLine\":%u,\"startColumn\":%u,\"endLine\":%u,\"endColumn\":%u}}}]}",
              d->line, diag__utf16_col(src, d->line, d->col), d->end_line,
              diag__utf16_col(src, d->end_line, d->end_col));
}

void diag_sarif_end(StrBuf *out)
{
    sb_puts(out, "],\"columnKind\":\"utf16CodeUnits\"}]}\n");
}

DiagFormat diag_format(const char *name)
{
    return !strcmp(name, "json") ? DIAG_JSON : !strcmp(name, "sarif") ? DIAG_SARIF : DIAG_TEXT;
}

void diag_report_begin(DiagReport *self, DiagFormat format, const char *version, StrBuf *out)
{
    *self = (DiagReport){.format = format, .out = out};
    if (format == DIAG_JSON)
        sb_puts(out, "[");
    else if (format == DIAG_SARIF)
        diag_sarif_begin(out, version);
}

void diag_report_add(DiagReport *self, const Source *src, const Diag *d)
{
    self->errors += d->severity == SEV_ERROR;
    self->warnings += d->severity == SEV_WARNING;
    if (self->format == DIAG_JSON) {
        sb_puts(self->out, self->reported ? ",\n " : "\n ");
        diag_json(src, d, self->out);
    } else if (self->format == DIAG_SARIF) {
        diag_sarif(src, d, self->reported == 0, self->out);
    } else {
        diag_text(src, d, self->out);
    }
    self->reported++;
}

void diag_report_end(DiagReport *self, int summary)
{
    size_t e = self->errors, w = self->warnings;
    if (self->format == DIAG_JSON)
        sb_puts(self->out, self->reported ? "\n]\n" : "]\n");
    else if (self->format == DIAG_SARIF)
        diag_sarif_end(self->out);
    else if (summary && (e || w))
        sb_printf(self->out, "%zu error%s, %zu warning%s\n", e, e == 1 ? "" : "s", w, w == 1 ? "" : "s");
}
