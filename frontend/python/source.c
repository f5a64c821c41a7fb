/*
 * source.c - reading a source file and mapping byte offsets to lines and
 * columns. Columns are 1-based byte columns, as tree-sitter counts them.
 */
#define _POSIX_C_SOURCE 200809L
#include "python.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int source_load(Source *self, const char *path, Sink *sink)
{
    memset(self, 0, sizeof *self);
    /* opened without blocking (a FIFO with no writer would block the open
     * for ever), then refused unless it is a regular file */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    FILE *f = fd >= 0 && fcntl(fd, F_SETFL, 0) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        sink_file_error(sink, path, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        sink_file_error(sink, path, "%s", strerror(errno));
        fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        sink_file_error(sink, path, "%s", S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        fclose(f);
        return -1;
    }
    if ((unsigned long long)st.st_size > SOURCE_MAX_BYTES) {
        sink_file_error(sink, path, "file too large (%lld bytes; the limit is %u)", (long long)st.st_size,
                        SOURCE_MAX_BYTES);
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
        sink_file_error(sink, path, "%s", ferror(f) ? strerror(errno) : "file too large");
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

int source_from_text(Source *self, const char *path, const char *text, size_t len, Sink *sink)
{
    memset(self, 0, sizeof *self);
    if (len > SOURCE_MAX_BYTES) {
        sink_file_error(sink, path, "file too large (%zu bytes; the limit is %u)", len, SOURCE_MAX_BYTES);
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

/* Code point ranges of letters that are their own NFKC normal form, have
 * combining class 0 and compose with nothing: a string of them and ASCII
 * is NFKC-normal (checked against Python's unicodedata, Unicode 14). */
static const uint32_t source__nfkc_stable[][2] = {
    {0x00C0, 0x00D6}, {0x00D8, 0x00F6}, {0x00F8, 0x00FF},   /* Latin-1 letters */
    {0x0391, 0x03A1}, {0x03A3, 0x03A9}, {0x03B1, 0x03C9},   /* Greek */
    {0x0401, 0x0401}, {0x0410, 0x044F}, {0x0451, 0x0451},   /* Cyrillic */
    {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x30FC, 0x30FC},   /* hiragana, katakana */
    {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},                     /* CJK ideographs */
    {0xAC00, 0xD7A3},                                       /* Hangul syllables */
};

uint32_t source_ident_unstable(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = utf8_valid_len(p + i, n - i);
        if (!len)
            return 0x110000;
        uint32_t c = len == 2 ? (uint32_t)(p[i] & 0x1f) << 6 | (p[i + 1] & 0x3f)
                   : len == 3 ? (uint32_t)(p[i] & 0x0f) << 12 | (uint32_t)(p[i + 1] & 0x3f) << 6 | (p[i + 2] & 0x3f)
                              : (uint32_t)(p[i] & 0x07) << 18 | (uint32_t)(p[i + 1] & 0x3f) << 12 |
                                    (uint32_t)(p[i + 2] & 0x3f) << 6 | (p[i + 3] & 0x3f);
        size_t k = 0;
        while (k < sizeof source__nfkc_stable / sizeof *source__nfkc_stable &&
               !(c >= source__nfkc_stable[k][0] && c <= source__nfkc_stable[k][1]))
            k++;
        if (k == sizeof source__nfkc_stable / sizeof *source__nfkc_stable)
            return c;
        i += len;
    }
    return 0;
}
