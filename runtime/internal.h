/*
 * internal.h - helpers the files of libtngcrt share; not installed, not
 * part of the public interface (tngrt.h).
 */
#ifndef TNGRT_INTERNAL_H
#define TNGRT_INTERNAL_H

#include "tngrt.h"

/* Formats "path: message" into err (just the message when path is NULL);
 * err may be NULL. */
void tngrt__fail(TngrtError *err, const char *path, const char *fmt, ...);
/* Reads the whole file at path into a malloc'd buffer (*len bytes); returns
 * 0, or -1 with err naming the file. */
int tngrt__read_file(const char *path, unsigned char **buf, size_t *len, TngrtError *err);

#endif
