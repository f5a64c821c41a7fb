/*
 * file.c - what the readers and writers of libtngcrt share: error messages
 * that name the file (or, for generated code, the script's line), reading a
 * whole file, writing one atomically.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tngrt__fail(TngrtError *err, const char *path, const char *fmt, ...)
{
    va_list ap;
    int n = 0;
    if (!err)
        return;
    err->kind = TNGRT_ERR_FAILURE;
    if (path) {
        n = snprintf(err->msg, sizeof err->msg, "%s: ", path);
        if (n < 0 || (size_t)n >= sizeof err->msg)
            return;
    }
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    va_end(ap);
}

int tngrt_error_at(TngrtError *err, const char *file, unsigned line)
{
    char msg[sizeof err->msg];
    if (!err)
        return TNGRT_FAILED;
    memcpy(msg, err->msg, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    snprintf(err->msg, sizeof err->msg, "%s:%u: %s", file ? file : "?", line, msg);
    return TNGRT_FAILED;
}

int tngrt__read_file(const char *path, unsigned char **buf, size_t *len, TngrtError *err)
{
    FILE *f = fopen(path, "rb");
    long size;
    *buf = NULL;
    if (!f) {
        tngrt__fail(err, path, "cannot open for reading");
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        tngrt__fail(err, path, "not a regular file");
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        tngrt__fail(err, path, "cannot determine the file size");
        return -1;
    }
    *buf = malloc(size ? (size_t)size : 1);
    if (!*buf) {
        fclose(f);
        tngrt__fail(err, path, "out of memory reading %ld bytes", size);
        return -1;
    }
    if (fread(*buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(*buf);
        *buf = NULL;
        tngrt__fail(err, path, "read error");
        return -1;
    }
    fclose(f);
    *len = (size_t)size;
    return 0;
}

int tngrt__write_atomic(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                        TngrtError *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
        tngrt__fail(err, path, "path too long");
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        tngrt__fail(err, path, "cannot open %s for writing", tmp);
        return -1;
    }
    errno = 0;
    int ok = put(ctx, f) == 0 && !ferror(f);
    int saved = errno;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        saved = saved ? saved : errno;
        remove(tmp);
        tngrt__fail(err, path, "write error%s%s", saved ? ": " : "", saved ? strerror(saved) : "");
        return -1;
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        tngrt__fail(err, path, "cannot rename %s into place", tmp);
        return -1;
    }
    return 0;
}
