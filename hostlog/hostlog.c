/*
 * hostlog.c - `tngc recompiles`: the recompiled-op list of the reference
 * script recompiled_op.py, computed in one streaming pass.  See hostlog.h for the
 * semantics, the limits and the output formats.
 *
 * How it works: the log is read in CHUNK-byte pieces and fed byte by byte
 * through a small state machine:
 *   line breaks ("\n", "\r\n", "\r")  ->  a UTF-8 grouper that only decides
 *   which characters are whitespace   ->  the strip logic (leading
 *   whitespace is dropped; a run of inner whitespace is fed provisionally,
 *   with a snapshot taken where it starts, and rolled back if the line ends
 *   inside it)                         ->  two KMP matchers (split_flag and
 *   "To compile op: ") and the op-name capture buffer (HOSTLOG_NAME_MAX).
 * At each line end the line is classified (marker / op / nothing) and the
 * list file is extended; ops live in an open-addressing hash table that
 * remembers the last iteration each op was listed in, so per-iteration
 * de-duplication is O(1).
 */
#define _POSIX_C_SOURCE 200809L

#include "hostlog.h"
#include "../support/support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536
#define RECOMPILE_FLAG "To compile op: "

/* ------------------------------------------------------------------------ */
/* KMP substring matcher                                                     */
/* ------------------------------------------------------------------------ */

typedef struct Matcher {
    const unsigned char *pat;
    size_t len;
    size_t *fail; /* fail[i]: longest proper border of pat[0..i] */
    size_t state;
} Matcher;

static int matcher_init(Matcher *m, const char *pat)
{
    m->pat = (const unsigned char *)pat;
    m->len = strlen(pat);
    m->state = 0;
    m->fail = malloc((m->len ? m->len : 1) * sizeof *m->fail);
    if (!m->fail)
        return -1;
    if (m->len) {
        size_t k = 0;
        m->fail[0] = 0;
        for (size_t i = 1; i < m->len; i++) {
            while (k > 0 && m->pat[i] != m->pat[k])
                k = m->fail[k - 1];
            if (m->pat[i] == m->pat[k])
                k++;
            m->fail[i] = k;
        }
    }
    return 0;
}

/* Feeds one byte; returns 1 when an occurrence ends here.  After a match the
 * state restarts at 0 (non-overlapping occurrences, like str.split). */
static int matcher_step(Matcher *m, unsigned char c)
{
    size_t s = m->state;
    while (s > 0 && m->pat[s] != c)
        s = m->fail[s - 1];
    if (m->pat[s] == c)
        s++;
    if (s == m->len) {
        m->state = 0;
        return 1;
    }
    m->state = s;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Op table                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct OpEntry {
    unsigned char *name;
    size_t len;
    uint64_t hash;
    long first_iter;
    long last_iter;  /* last iteration whose list contains the op */
    long count;      /* iterations compiled in (suspects only) */
    long *iters;     /* first HOSTLOG_ITERS_MAX of them (suspects only) */
    size_t n_iters, cap_iters;
} OpEntry;

typedef struct OpTable {
    OpEntry *entries; /* in order of first compilation */
    size_t n, cap;
    size_t *slots;    /* entry index + 1; 0 = empty */
    size_t n_slots;   /* power of two */
} OpTable;

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211u;
    }
    return h ^ (h >> 29);
}

static void optable_free(OpTable *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->entries[i].name);
        free(t->entries[i].iters);
    }
    free(t->entries);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int optable_rehash(OpTable *t, size_t n_slots)
{
    size_t *slots = calloc(n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = (size_t)t->entries[i].hash & (n_slots - 1);
        while (slots[j])
            j = (j + 1) & (n_slots - 1);
        slots[j] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    return 0;
}

/* Finds or inserts name; *out gets the entry.  Returns -1 on OOM. */
static int optable_get(OpTable *t, const unsigned char *name, size_t len, long iter, OpEntry **out)
{
    uint64_t h = hash_bytes(name, len);
    if (!t->slots && optable_rehash(t, 64) < 0)
        return -1;
    size_t j = (size_t)h & (t->n_slots - 1);
    while (t->slots[j]) {
        OpEntry *e = &t->entries[t->slots[j] - 1];
        if (e->hash == h && e->len == len && memcmp(e->name, name, len) == 0) {
            *out = e;
            return 0;
        }
        j = (j + 1) & (t->n_slots - 1);
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        OpEntry *ne = realloc(t->entries, cap * sizeof *ne);
        if (!ne)
            return -1;
        t->entries = ne;
        t->cap = cap;
    }
    OpEntry *e = &t->entries[t->n];
    memset(e, 0, sizeof *e);
    e->name = malloc(len ? len : 1);
    if (!e->name)
        return -1;
    if (len)
        memcpy(e->name, name, len);
    e->len = len;
    e->hash = h;
    e->first_iter = iter;
    e->last_iter = iter - 1;
    t->slots[j] = ++t->n;
    if (t->n * 2 > t->n_slots && optable_rehash(t, t->n_slots * 2) < 0) {
        /* the entry is in the table already; only growth failed */
        *out = e;
        return -1;
    }
    *out = e;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The streaming scanner                                                     */
/* ------------------------------------------------------------------------ */

typedef struct Scan {
    /* configuration */
    const HostlogOptions *opt;
    const char *log_path;
    Sink *err;           /* where problems are reported, or NULL */
    FILE *out;           /* list file (temp file or the report stream) */
    Matcher split;
    Matcher flag;
    /* whole-run state */
    OpTable ops;
    long iter;           /* current iteration index */
    size_t iter_count;   /* names written for the current iteration */
    unsigned long long line_no; /* 1-based, of the line being read */
    int warned_truncation;
    int oom;
    int prev_cr;         /* last byte was "\r": a following "\n" is part of it */
    unsigned char pend[4]; /* bytes of an incomplete UTF-8 character */
    int npend, need;
    unsigned char boring[256]; /* non-ws ASCII that starts neither pattern */
    /* per-line state */
    int seen_nonws;      /* a non-whitespace character was seen */
    int in_ws_run;       /* inside a whitespace run after a non-ws char */
    int split_found;
    int phase;           /* 0: before RECOMPILE_FLAG, 1: in the name, 2: name done */
    size_t name_len;     /* logical length, may exceed HOSTLOG_NAME_MAX */
    int snap_split_found, snap_phase;
    size_t snap_name_len;
    unsigned char name[HOSTLOG_NAME_MAX];
} Scan;

static void out_bytes(Scan *s, const void *p, size_t n)
{
    if (n)
        fwrite(p, 1, n, s->out);
}

static void line_reset(Scan *s)
{
    s->seen_nonws = 0;
    s->in_ws_run = 0;
    s->split_found = s->split.len == 0; /* '' in line is always True */
    s->phase = 0;
    s->name_len = 0;
    s->split.state = 0;
    s->flag.state = 0;
}

/* A byte of the stripped line (provisional inside a whitespace run). */
static void feed_byte(Scan *s, unsigned char c)
{
    if (s->split_found)
        return; /* the line is a marker (or will be, if committed) */
    if (matcher_step(&s->split, c)) {
        s->split_found = 1;
        return;
    }
    if (s->phase == 0) {
        if (matcher_step(&s->flag, c)) {
            s->phase = 1;
            s->name_len = 0;
        }
    } else if (s->phase == 1) {
        if (s->name_len < HOSTLOG_NAME_MAX)
            s->name[s->name_len] = c;
        s->name_len++;
        if (matcher_step(&s->flag, c)) {
            s->phase = 2;
            s->name_len -= s->flag.len;
        }
    }
}

/* One character (1-4 bytes) with its whitespace class. */
static void feed_char(Scan *s, const unsigned char *p, int n, int ws)
{
    if (ws) {
        if (!s->seen_nonws)
            return; /* leading whitespace: stripped */
        if (!s->in_ws_run) {
            s->in_ws_run = 1;
            s->snap_split_found = s->split_found;
            s->snap_phase = s->phase;
            s->snap_name_len = s->name_len;
        }
    } else {
        s->seen_nonws = 1;
        s->in_ws_run = 0; /* the provisional run is part of the line */
    }
    for (int i = 0; i < n; i++)
        feed_byte(s, p[i]);
}

static int ascii_ws(unsigned char c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20);
}

/* Python's str.isspace() for a complete 2- or 3-byte UTF-8 sequence. */
static int utf8_ws(const unsigned char *p, int n)
{
    if (n == 2)
        return p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0);
    if (n != 3)
        return 0;
    if (p[0] == 0xe1)
        return p[1] == 0x9a && p[2] == 0x80; /* U+1680 */
    if (p[0] == 0xe3)
        return p[1] == 0x80 && p[2] == 0x80; /* U+3000 */
    if (p[0] != 0xe2)
        return 0;
    if (p[1] == 0x80)
        return p[2] <= 0x8a || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf;
    return p[1] == 0x81 && p[2] == 0x9f; /* U+205F */
}

static void flush_pending(Scan *s)
{
    if (s->npend)
        feed_char(s, s->pend, s->npend, 0); /* incomplete: non-whitespace bytes */
    s->npend = 0;
}

static void warn_truncated(Scan *s)
{
    if (s->warned_truncation)
        return;
    s->warned_truncation = 1;
    if (s->err) {
        StrBuf at = {0};
        sb_printf(&at, "%s:%llu", s->log_path, s->line_no);
        sink_report(s->err, SEV_WARNING, at.s, "op name longer than %d bytes truncated (further warnings suppressed)",
                    HOSTLOG_NAME_MAX);
        sb_free(&at);
    }
}

/* Length of name[0..n) cut back so that it does not end inside a UTF-8
 * character that the cut split. */
static size_t utf8_cut(const unsigned char *p, size_t n)
{
    size_t j = n;
    int cont = 0;
    while (j > 0 && cont < 3 && (p[j - 1] & 0xc0) == 0x80) {
        j--;
        cont++;
    }
    if (j == 0)
        return n;
    unsigned char lead = p[j - 1];
    int need = lead >= 0xf0 && lead <= 0xf4 ? 3 : lead >= 0xe0 && lead <= 0xef ? 2
             : lead >= 0xc2 && lead <= 0xdf ? 1 : -1;
    if (need > cont)
        return j - 1;
    return n;
}

static void add_op(Scan *s, const unsigned char *name, size_t len)
{
    OpEntry *e = NULL;
    if (optable_get(&s->ops, name, len, s->iter, &e) < 0) {
        s->oom = 1;
        if (!e)
            return;
    }
    if (e->last_iter == s->iter)
        return; /* already in this iteration's list */
    e->last_iter = s->iter;
    if (s->iter_count++)
        out_bytes(s, ",", 1);
    out_bytes(s, name, len);
    if (e->first_iter > s->opt->after) {
        e->count++;
        if (e->n_iters < HOSTLOG_ITERS_MAX) {
            if (e->n_iters == e->cap_iters) {
                size_t cap = e->cap_iters ? e->cap_iters * 4 : 4;
                if (cap > HOSTLOG_ITERS_MAX)
                    cap = HOSTLOG_ITERS_MAX;
                long *ni = realloc(e->iters, cap * sizeof *ni);
                if (!ni) {
                    s->oom = 1;
                    return;
                }
                e->iters = ni;
                e->cap_iters = cap;
            }
            e->iters[e->n_iters++] = s->iter;
        }
    }
}

static void end_line(Scan *s)
{
    flush_pending(s);
    if (s->in_ws_run) { /* trailing whitespace: stripped */
        s->split_found = s->snap_split_found;
        s->phase = s->snap_phase;
        s->name_len = s->snap_name_len;
    }
    if (s->split_found) {
        s->iter++;
        s->iter_count = 0;
        fprintf(s->out, "\niter: %ld\n", s->iter);
    } else if (s->phase > 0) {
        size_t n = s->name_len;
        if (n > HOSTLOG_NAME_MAX) {
            warn_truncated(s);
            n = utf8_cut(s->name, HOSTLOG_NAME_MAX);
        }
        add_op(s, s->name, n);
    }
    s->line_no++;
    line_reset(s);
}

static void scan_bytes(Scan *s, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (s->boring[c] && !s->npend && s->phase != 1 && !s->split.state && !s->flag.state) {
            /* fast path: a run of bytes that leaves both matchers at state 0
             * and is not part of a name */
            while (i + 1 < n && s->boring[p[i + 1]])
                i++;
            s->prev_cr = 0;
            s->seen_nonws = 1;
            s->in_ws_run = 0;
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (c == '\n' && s->prev_cr) {
                s->prev_cr = 0; /* second half of "\r\n" */
                continue;
            }
            s->prev_cr = c == '\r';
            end_line(s);
            continue;
        }
        s->prev_cr = 0;
        if (s->npend) {
            if ((c & 0xc0) == 0x80) {
                s->pend[s->npend++] = c;
                if (s->npend == s->need) {
                    feed_char(s, s->pend, s->npend, utf8_ws(s->pend, s->npend));
                    s->npend = 0;
                }
                continue;
            }
            flush_pending(s);
        }
        if (c < 0x80) {
            feed_char(s, &c, 1, ascii_ws(c));
        } else if (c >= 0xc2 && c <= 0xf4) {
            s->pend[0] = c;
            s->npend = 1;
            s->need = c <= 0xdf ? 2 : c <= 0xef ? 3 : 4;
        } else {
            feed_char(s, &c, 1, 0); /* invalid byte: passed through */
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Reports                                                                   */
/* ------------------------------------------------------------------------ */

static void text_name(FILE *f, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '\\')
            fputs("\\\\", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
}

/* Length of the valid UTF-8 character at p[0..n), or 0 if invalid. */
static size_t utf8_valid(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

static void json_string(FILE *f, const unsigned char *p, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t len = utf8_valid(p + i, n - i);
        if (len == 0) {
            fputs("\xef\xbf\xbd", f); /* U+FFFD for an invalid byte */
            i++;
            continue;
        }
        if (len > 1) {
            fwrite(p + i, 1, len, f);
        } else if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c == '\r') {
            fputs("\\r", f);
        } else if (c == '\b') {
            fputs("\\b", f);
        } else if (c == '\f') {
            fputs("\\f", f);
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
        i += len;
    }
    fputc('"', f);
}

static void write_report(const Scan *s, FILE *f)
{
    const OpTable *t = &s->ops;
    long after = s->opt->after;
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->entries[i].first_iter > after)
            k++;
    if (s->opt->json) {
        fprintf(f, "{\"iterations\":%ld,\"ops\":%zu,\"after\":%ld,\"suspects\":[",
                s->iter + 1, t->n, after);
        int first = 1;
        for (size_t i = 0; i < t->n; i++) {
            const OpEntry *e = &t->entries[i];
            if (e->first_iter <= after)
                continue;
            fputs(first ? "{\"op\":" : ",{\"op\":", f);
            first = 0;
            json_string(f, e->name, e->len);
            fprintf(f, ",\"first_iteration\":%ld,\"iterations\":[", e->first_iter);
            for (size_t j = 0; j < e->n_iters; j++)
                fprintf(f, j ? ",%ld" : "%ld", e->iters[j]);
            fprintf(f, "],\"iteration_count\":%ld}", e->count);
        }
        fputs("]}\n", f);
        return;
    }
    fprintf(f, "%ld iteration%s, %zu distinct op%s; %zu compiled for the first time"
               " after iteration %ld (dynamic-shape suspects)%s\n",
            s->iter + 1, s->iter == 0 ? "" : "s", t->n, t->n == 1 ? "" : "s",
            k, after, k ? ":" : ".");
    for (size_t i = 0; i < t->n; i++) {
        const OpEntry *e = &t->entries[i];
        if (e->first_iter <= after)
            continue;
        fputs("  ", f);
        text_name(f, e->name, e->len);
        fprintf(f, "  first compiled in iteration %ld, compiled in iterations ", e->first_iter);
        for (size_t j = 0; j < e->n_iters; j++)
            fprintf(f, j ? ",%ld" : "%ld", e->iters[j]);
        if ((long)e->n_iters < e->count)
            fprintf(f, ",... (%ld more)", e->count - (long)e->n_iters);
        fputc('\n', f);
    }
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */
/* ------------------------------------------------------------------------ */

void hostlog_options_init(HostlogOptions *self)
{
    self->split_flag = "=====iter";
    self->after = 3;
    self->list_path = "recompile_op_list.txt";
    self->json = 0;
}

/* Reports reason about path in sink (when there is one); returns 2. */
static int fail(Sink *sink, const char *path, const char *reason)
{
    if (sink)
        sink_file_error(sink, path, "%s", reason);
    return 2;
}

static const char *errstr(int e, const char *fallback)
{
    return e ? strerror(e) : fallback;
}

/* Opens the log at path for reading: a regular file only (a device or a
 * FIFO may never end; "-" reads one from stdin on purpose).  Returns the
 * stream, or NULL after one error in err. */
static FILE *open_log(const char *path, Sink *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        fail(err, path, errstr(errno, "cannot open"));
        return NULL;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = errstr(errno, "cannot stat");
    else if (S_ISDIR(st.st_mode))
        why = strerror(EISDIR);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file (a device, FIFO or socket may never end): to read it anyway, "
              "give it on standard input as '-'";
    int flags = why ? 0 : fcntl(fd, F_GETFL);
    if (!why && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0))
        why = errstr(errno, "cannot open");
    FILE *in = why ? NULL : fdopen(fd, "rb");
    if (!in) {
        if (!why)
            why = errstr(errno, "cannot open");
        close(fd);
        fail(err, path, why);
    }
    return in;
}

/* One run of hostlog_recompiles: its options, its streams and what it has
 * opened, so that each phase is a function and one cleanup frees them. */
typedef struct Run {
    HostlogOptions opt;
    const char *shown;     /* the log's name in messages */
    int to_report;         /* the list goes to report ("-o -") */
    FILE *in, *report;
    Sink *err;
    Scan *s;
    unsigned char *buf;
    OutFile list;
} Run;

/* The options with defaults for what self leaves out, and the log; returns
 * 0, or the exit status after one message. */
static int run_options(Run *r, const HostlogOptions *self, const char *log_path)
{
    hostlog_options_init(&r->opt);
    if (self) {
        r->opt = *self;
        if (!r->opt.split_flag)
            r->opt.split_flag = "=====iter";
        if (!r->opt.list_path)
            r->opt.list_path = "recompile_op_list.txt";
    }
    if (!log_path)
        return fail(r->err, "(null)", "no log file given");
    r->shown = strcmp(log_path, "-") == 0 ? "<stdin>" : log_path;
    r->to_report = strcmp(r->opt.list_path, "-") == 0;
    if (r->to_report && !r->report)
        return fail(r->err, "-", "no output stream");
    return 0;
}

/* The log: a regular file, or stdin for "-"; 0 or the exit status. */
static int run_open_log(Run *r, const char *log_path)
{
    if (strcmp(log_path, "-") != 0 && !(r->in = open_log(log_path, r->err)))
        return 2;
    struct stat st;
    if (fstat(fileno(r->in), &st) == 0 && S_ISDIR(st.st_mode))
        return fail(r->err, r->shown, strerror(EISDIR));
    return 0;
}

/* The scanner's state: both matchers and the bytes that need no look. */
static int run_scan_init(Run *r)
{
    Scan *s = r->s = calloc(1, sizeof *r->s);
    r->buf = malloc(CHUNK);
    if (!s || !r->buf || matcher_init(&s->split, r->opt.split_flag) < 0)
        return fail(r->err, r->shown, "out of memory");
    if (matcher_init(&s->flag, RECOMPILE_FLAG) < 0)
        return fail(r->err, r->shown, "out of memory");
    s->opt = &r->opt;
    s->log_path = r->shown;
    s->err = r->err;
    s->line_no = 1;
    for (int c = 0x21; c < 0x7f; c++)
        s->boring[c] = 1;
    if (s->split.len)
        s->boring[s->split.pat[0]] = 0;
    s->boring[s->flag.pat[0]] = 0;
    return 0;
}

/* The list file (support/out.c: a temporary renamed into place, or a
 * device or FIFO written directly), or the report stream for "-". */
static int run_open_list(Run *r)
{
    if (r->to_report) {
        r->s->out = r->report;
        return 0;
    }
    if (!*r->opt.list_path)
        return fail(r->err, "''", "empty output path");
    if (outfile_open(&r->list, r->opt.list_path, 0) != 0)
        return fail(r->err, r->opt.list_path, errstr(errno, "cannot create"));
    int fd = dup(r->list.fd);
    r->s->out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!r->s->out) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail(r->err, r->opt.list_path, errstr(e, "cannot open"));
    }
    return 0;
}

/* The pass: the log in CHUNK pieces through the scanner, the list written
 * as it goes; 0 or the exit status. */
static int run_pass(Run *r)
{
    Scan *s = r->s;
    line_reset(s);
    fputs("iter: 0\n", s->out);
    for (;;) {
        errno = 0;
        size_t n = fread(r->buf, 1, CHUNK, r->in);
        scan_bytes(s, r->buf, n);
        if (s->oom)
            return fail(r->err, r->shown, "out of memory");
        if (ferror(s->out)) {
            errno = 0;
            fflush(s->out);
            return fail(r->err, r->to_report ? "-" : r->opt.list_path, errstr(errno, "write error"));
        }
        if (n < CHUNK) {
            if (ferror(r->in))
                return fail(r->err, r->shown, errstr(errno, "read error"));
            if (feof(r->in))
                break;
        }
    }
    end_line(s); /* the text after the last line break is a line too */
    fputc('\n', s->out);
    if (s->oom)
        return fail(r->err, r->shown, "out of memory");
    return 0;
}

/* Finishes the list: flushed (to the report stream) or closed and renamed
 * into place; 0 or the exit status. *done is set when there is no report
 * to write after it (the list was the report). */
static int run_finish_list(Run *r, int *done)
{
    *done = r->to_report;
    if (r->to_report) {
        r->s->out = NULL;
        errno = 0;
        if (fflush(r->report) != 0 || ferror(r->report))
            return fail(r->err, r->report == stdout ? "<stdout>" : "-", errstr(errno, "write error"));
        return 0;
    }
    errno = 0;
    int bad = fflush(r->s->out) != 0 || ferror(r->s->out);
    int e = errno;
    if (fclose(r->s->out) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    r->s->out = NULL;
    if (bad)
        return fail(r->err, r->opt.list_path, errstr(e, "write error"));
    if (outfile_commit(&r->list) != 0)
        return fail(r->err, r->opt.list_path, errstr(errno, "cannot rename"));
    return 0;
}

/* The summary report, when there is a stream for it; 0 or the exit status. */
static int run_report(Run *r)
{
    if (!r->report)
        return 0;
    write_report(r->s, r->report);
    errno = 0;
    if (fflush(r->report) != 0 || ferror(r->report))
        return fail(r->err, r->report == stdout ? "<stdout>" : "<report>", errstr(errno, "write error"));
    return 0;
}

/* Closes and frees what the run opened, whichever phase it ended in. */
static void run_free(Run *r)
{
    Scan *s = r->s;
    if (s && s->out && s->out != r->report)
        fclose(s->out);
    if (r->list.fd >= 0 || r->list.tmp)
        outfile_abort(&r->list);
    if (r->in && r->in != stdin)
        fclose(r->in);
    if (s) {
        free(s->split.fail);
        free(s->flag.fail);
        optable_free(&s->ops);
        free(s);
    }
    free(r->buf);
}

/* The phases in order: options, log, scanner, list file, pass, list
 * finished, report; the first that fails ends the run with its status. */
int hostlog_recompiles(const HostlogOptions *self, const char *log_path, FILE *report, Sink *err)
{
    Run r = {.in = stdin, .report = report, .err = err, .list = {.fd = -1}};
    int status = run_options(&r, self, log_path), done = 0;
    if (status)
        return status;
    status = run_open_log(&r, log_path);
    if (!status)
        status = run_scan_init(&r);
    if (!status)
        status = run_open_list(&r);
    if (!status)
        status = run_pass(&r);
    if (!status)
        status = run_finish_list(&r, &done);
    if (!status && !done)
        status = run_report(&r);
    run_free(&r);
    return status;
}
