/*
 * file.c - what the .npy and safetensors readers share: error messages that
 * name the file, and reading a whole file into memory.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void tngrt__fail(TngrtError *err, const char *path, const char *fmt, ...)
{
    va_list ap;
    int n = 0;
    if (!err)
        return;
    if (path) {
        n = snprintf(err->msg, sizeof err->msg, "%s: ", path);
        if (n < 0 || (size_t)n >= sizeof err->msg)
            return;
    }
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    va_end(ap);
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
