/*
 * source.c - reading a source file and mapping byte offsets to lines and
 * columns. Columns are 1-based byte columns, as tree-sitter counts them.
 */
#define _POSIX_C_SOURCE 200809L
#include "python.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void source__index_lines(Source *self)
{
    uint32_t n = 1;
    for (uint32_t i = 0; i < self->len; i++)
        n += self->text[i] == '\n';
    self->line_start = xmalloc(n * sizeof *self->line_start);
    self->line_start[0] = 0;
    self->nlines = 1;
    for (uint32_t i = 0; i < self->len; i++)
        if (self->text[i] == '\n')
            self->line_start[self->nlines++] = i + 1;
}

int source_load(Source *self, const char *path, char *err, size_t errlen)
{
    memset(self, 0, sizeof *self);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path,
                 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        fclose(f);
        return -1;
    }
    if ((unsigned long long)st.st_size > SOURCE_MAX_BYTES) {
        snprintf(err, errlen, "%s: file too large (%lld bytes; the limit is %u)",
                 path, (long long)st.st_size, SOURCE_MAX_BYTES);
        fclose(f);
        return -1;
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *text = xmalloc(cap);
    for (;;) {
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (len < cap && (feof(f) || ferror(f)))
            break;
        if (len + 1 >= cap) {   /* the file grew while we read it */
            if (cap > SOURCE_MAX_BYTES)
                break;
            cap *= 2;
            text = xrealloc(text, cap);
        }
    }
    if (ferror(f) || len > SOURCE_MAX_BYTES) {
        snprintf(err, errlen, "%s: %s", path, ferror(f) ? strerror(errno) : "file too large");
        free(text);
        fclose(f);
        return -1;
    }
    fclose(f);
    text[len] = 0;
    self->path = xstrdup(path);
    self->text = text;
    self->len = (uint32_t)len;
    source__index_lines(self);
    return 0;
}

int source_from_text(Source *self, const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    memset(self, 0, sizeof *self);
    if (len > SOURCE_MAX_BYTES) {
        snprintf(err, errlen, "%s: file too large (%zu bytes; the limit is %u)", path, len, SOURCE_MAX_BYTES);
        return -1;
    }
    self->path = xstrdup(path);
    self->text = xmalloc(len + 1);
    if (len)
        memcpy(self->text, text, len);
    self->text[len] = 0;
    self->len = (uint32_t)len;
    source__index_lines(self);
    return 0;
}

void source_free(Source *self)
{
    free(self->path);
    free(self->text);
    free(self->line_start);
    memset(self, 0, sizeof *self);
}

uint32_t source_line(const Source *self, uint32_t offset)
{
    uint32_t lo = 0, hi = self->nlines;   /* line_start[lo] <= offset */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (self->line_start[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo + 1;
}

uint32_t source_col(const Source *self, uint32_t offset)
{
    return offset - self->line_start[source_line(self, offset) - 1] + 1;
}

const char *source_line_text(const Source *self, uint32_t line, size_t *len)
{
    if (line < 1 || line > self->nlines) {
        *len = 0;
        return "";
    }
    uint32_t start = self->line_start[line - 1];
    uint32_t end = line < self->nlines ? self->line_start[line] - 1 : self->len;
    if (end > start && self->text[end - 1] == '\r')
        end--;
    *len = end - start;
    return self->text + start;
}
