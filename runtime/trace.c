/*
 * trace.c - the trace of libtngcrt's executor (tngrt_exec.h) and its
 * writer of Chrome trace-event JSON (chrome://tracing, Perfetto).
 *
 * A trace has one track per stream. A track holds growable arrays of
 * slices and of flows (a flow is stored on the track of the stream that
 * waited, which adds it); only the stream's own thread appends to its
 * track, so nothing is locked. When memory runs out the slice or flow is
 * dropped and counted (tngrt_trace_dropped).
 *
 * Slice names are not copied: the trace keeps the pointers it is given
 * (string literals of generated code, or the executor's "wait eN" table).
 *
 * The writer is deterministic: pid 1, tid = stream, times printed in
 * microseconds with three decimals from integer nanoseconds relative to
 * the earliest time in the trace, and flows numbered 1, 2, ... in track
 * order. It writes a new temporary file beside the destination
 * (internal.h, tngrt__create_temp) and renames it into place.
 */
#include "tngrt_exec.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One complete slice [t0, t1). */
typedef struct TraceSlice {
    const char *name;
    uint64_t t0, t1;
} TraceSlice;

/* One arrow for event e from stream `from` at t_from to the track's
 * stream at t_to. */
typedef struct TraceFlow {
    int e, from;
    uint64_t t_from, t_to;
} TraceFlow;

/* What one stream recorded; padded so that two tracks never share a cache
 * line while their threads append. */
typedef struct TraceTrack {
    TraceSlice *slices;
    size_t nslices, cap_slices;
    TraceFlow *flows;
    size_t nflows, cap_flows;
    uint64_t dropped;
    char pad[64];
} TraceTrack;

struct TngrtTrace {
    int nstreams;
    TraceTrack *tracks;
};

uint64_t tngrt_trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int tngrt_trace_new(TngrtTrace **out, int nstreams, TngrtError *err)
{
    TngrtTrace *self;
    *out = NULL;
    if (nstreams < 1 || nstreams > 64) {
        tngrt__fail(err, NULL, "trace: %d streams (must be 1 .. 64)", nstreams);
        return -1;
    }
    self = calloc(1, sizeof *self);
    if (self)
        self->tracks = calloc((size_t)nstreams, sizeof *self->tracks);
    if (!self || !self->tracks) {
        free(self);
        tngrt__fail(err, NULL, "trace: out of memory");
        return -1;
    }
    self->nstreams = nstreams;
    *out = self;
    return 0;
}

void tngrt_trace_delete(TngrtTrace *self)
{
    int s;
    if (!self)
        return;
    for (s = 0; s < self->nstreams; s++) {
        free(self->tracks[s].slices);
        free(self->tracks[s].flows);
    }
    free(self->tracks);
    free(self);
}

/* Makes room for one more element of size `size` in *arr (n used of *cap);
 * returns 0, or -1 when memory runs out (*arr unchanged). */
static int trace__grow(void **arr, size_t n, size_t *cap, size_t size)
{
    size_t ncap;
    void *p;
    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 256;
    if (ncap > SIZE_MAX / size)
        return -1;
    p = realloc(*arr, ncap * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

void tngrt_trace_slice(TngrtTrace *self, int stream, const char *name,
                       uint64_t t0, uint64_t t1)
{
    TraceTrack *t;
    void *arr;
    if (stream < 0 || stream >= self->nstreams)
        return;
    t = &self->tracks[stream];
    arr = t->slices;
    if (trace__grow(&arr, t->nslices, &t->cap_slices, sizeof *t->slices) != 0) {
        t->dropped++;
        return;
    }
    t->slices = arr;
    t->slices[t->nslices++] = (TraceSlice){name, t0, t1 < t0 ? t0 : t1};
}

void tngrt_trace_flow(TngrtTrace *self, int e, int from, uint64_t t_from,
                      int to, uint64_t t_to)
{
    TraceTrack *t;
    void *arr;
    if (to < 0 || to >= self->nstreams || from < 0 || from >= self->nstreams)
        return;
    t = &self->tracks[to];
    arr = t->flows;
    if (trace__grow(&arr, t->nflows, &t->cap_flows, sizeof *t->flows) != 0) {
        t->dropped++;
        return;
    }
    t->flows = arr;
    t->flows[t->nflows++] = (TraceFlow){e, from, t_from, t_to};
}

uint64_t tngrt_trace_dropped(const TngrtTrace *self)
{
    uint64_t n = 0;
    int s;
    for (s = 0; s < self->nstreams; s++)
        n += self->tracks[s].dropped;
    return n;
}

/* ---- writing ---- */

/* The earliest time in the trace (0 when it is empty). */
static uint64_t trace__origin(const TngrtTrace *self)
{
    uint64_t t = UINT64_MAX;
    size_t i;
    int s;
    for (s = 0; s < self->nstreams; s++) {
        const TraceTrack *k = &self->tracks[s];
        for (i = 0; i < k->nslices; i++)
            t = k->slices[i].t0 < t ? k->slices[i].t0 : t;
        for (i = 0; i < k->nflows; i++) {
            t = k->flows[i].t_from < t ? k->flows[i].t_from : t;
            t = k->flows[i].t_to < t ? k->flows[i].t_to : t;
        }
    }
    return t == UINT64_MAX ? 0 : t;
}

/* Writes s as a JSON string, quotes included. */
static void trace__put_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', f);
    for (; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Writes a nanosecond duration as microseconds with three decimals. */
static void trace__put_us(FILE *f, uint64_t ns)
{
    fprintf(f, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* The process and thread names. */
static void trace__put_metadata(const TngrtTrace *self, FILE *f,
                                const char *const *names)
{
    int s;
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
          "\"args\":{\"name\":\"tngc bundle\"}}", f);
    for (s = 0; s < self->nstreams; s++) {
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
                   "\"args\":{\"name\":", s);
        if (names && names[s])
            trace__put_string(f, names[s]);
        else
            fprintf(f, "\"stream %d\"", s);
        fprintf(f, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,"
                   "\"tid\":%d,\"args\":{\"sort_index\":%d}}", s, s);
    }
}

/* The complete ("X") events of stream s. */
static void trace__put_slices(const TraceTrack *k, int s, uint64_t origin, FILE *f)
{
    size_t i;
    for (i = 0; i < k->nslices; i++) {
        const TraceSlice *x = &k->slices[i];
        fputs(",\n{\"name\":", f);
        trace__put_string(f, x->name);
        fprintf(f, ",\"cat\":\"tngc\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":", s);
        trace__put_us(f, x->t0 - origin);
        fputs(",\"dur\":", f);
        trace__put_us(f, x->t1 - x->t0);
        fputc('}', f);
    }
}

/* The flow start/finish pairs stored on stream s's track, numbered from
 * *id on. */
static void trace__put_flows(const TraceTrack *k, int s, uint64_t origin,
                             FILE *f, unsigned long *id)
{
    size_t i;
    for (i = 0; i < k->nflows; i++, (*id)++) {
        const TraceFlow *w = &k->flows[i];
        fprintf(f, ",\n{\"name\":\"e%d\",\"cat\":\"event\",\"ph\":\"s\",\"id\":%lu,"
                   "\"pid\":1,\"tid\":%d,\"ts\":", w->e, *id, w->from);
        trace__put_us(f, w->t_from - origin);
        fprintf(f, "},\n{\"name\":\"e%d\",\"cat\":\"event\",\"ph\":\"f\",\"bp\":\"e\","
                   "\"id\":%lu,\"pid\":1,\"tid\":%d,\"ts\":", w->e, *id, s);
        trace__put_us(f, w->t_to - origin);
        fputc('}', f);
    }
}

/* Writes the whole document to f; returns 0, or -1 on a write error. */
static int trace__put(const TngrtTrace *self, FILE *f, const char *const *names)
{
    uint64_t origin = trace__origin(self);
    unsigned long id = 1;
    int s;
    fputs("{\"traceEvents\":[\n", f);
    trace__put_metadata(self, f, names);
    for (s = 0; s < self->nstreams; s++)
        trace__put_slices(&self->tracks[s], s, origin, f);
    for (s = 0; s < self->nstreams; s++)
        trace__put_flows(&self->tracks[s], s, origin, f, &id);
    fputs("\n],\n\"displayTimeUnit\":\"ns\"}\n", f);
    return ferror(f) ? -1 : 0;
}

typedef struct TraceWrite {
    const TngrtTrace *trace;
    const char *const *names;
} TraceWrite;

static int trace__put_cb(const void *ctx, FILE *f)
{
    const TraceWrite *w = ctx;
    return trace__put(w->trace, f, w->names);
}

int tngrt_trace_write(const TngrtTrace *self, const char *path,
                      const char *const *stream_names, TngrtError *err)
{
    TraceWrite w = {self, stream_names};
    return tngrt__write_atomic(path, trace__put_cb, &w, err);
}

int tngrt_trace_write_temp(const TngrtTrace *self, const char *path,
                           const char *const *stream_names, char *tmp, size_t cap,
                           TngrtError *err)
{
    TraceWrite w = {self, stream_names};
    return tngrt__write_temp(path, trace__put_cb, &w, tmp, cap, err);
}
