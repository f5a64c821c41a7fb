/*
 * internal.h - helpers the files of libtngcrt share; not installed, not
 * part of the public interface (tngrt.h).
 */
#ifndef TNGRT_INTERNAL_H
#define TNGRT_INTERNAL_H

#include "tngrt.h"

#include <stdio.h>

/* Formats "path: message" into err (just the message when path is NULL);
 * err may be NULL. */
void tngrt__fail(TngrtError *err, const char *path, const char *fmt, ...);
/* Reads the whole file at path into a malloc'd buffer (*len bytes); returns
 * 0, or -1 with err naming the file. */
int tngrt__read_file(const char *path, unsigned char **buf, size_t *len, TngrtError *err);

/* Writes path atomically: put(ctx, f) writes the contents into
 * "<path>.tmp.<pid>", which is renamed into place when put returns 0 and
 * every write succeeded; otherwise the temporary file is removed. Returns
 * 0, or -1 with err naming path. */
int tngrt__write_atomic(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                        TngrtError *err);

#endif
