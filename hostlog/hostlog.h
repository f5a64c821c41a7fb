/*
 * hostlog.h - `tngc recompiles`: operators recompiled because of dynamic
 * shapes, found in a host log.
 *
 * The engine reproduces the reference script recompiled_op.py
 * (kept verbatim in examples/recompile/) byte for byte, and adds a summary
 * report that names the dynamic-shape suspects.
 *
 * Semantics (those of the script's `func`):
 *   - The log is read like Python 3's open(path, 'r'): "\r\n" and a lone
 *     "\r" are line breaks as well as "\n"; the text after the last line
 *     break is a line too (possibly empty).
 *   - Each line is stripped of leading and trailing whitespace the way
 *     str.strip() does it: ASCII 0x09-0x0D, 0x1C-0x1F, 0x20 and the UTF-8
 *     encodings of U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
 *     U+202F, U+205F and U+3000.
 *   - A stripped line that contains split_flag starts a new iteration (an
 *     empty split_flag makes every line a marker, as in Python).  Otherwise,
 *     if it contains "To compile op: ", the op name is the text between the
 *     first occurrence of that flag and the next one (or the end of the line),
 *     i.e. Python's `line.split(flag)[1]`; it is added to the current
 *     iteration's list unless it is already in it.
 *   - Iteration 0 is everything before the first marker; iteration k is what
 *     follows the k-th marker.  These are the numbers of the "iter: k" lines
 *     of the list file, and the numbers used by `after` and the report.
 *     With the marker `print('To compile op|=====iter%d' % idx)` at the top of
 *     the training loop, iteration k is the loop's step idx = k - 1.
 *   - The list file: for each iteration k, "iter: k\n", then its op names
 *     joined by ",", then "\n".
 *
 * Encoding: bytes are passed through.  Python would raise UnicodeDecodeError
 * on a log that is not valid UTF-8; tngc treats each invalid byte as one
 * non-whitespace character and copies it unchanged into the list file.
 * NUL bytes are ordinary characters.
 *
 * Limits (memory is bounded by the number of distinct op names and the
 * number of suspects, never by the size of the log or the length of a line;
 * the log is read in fixed-size chunks):
 *   - An op name longer than HOSTLOG_NAME_MAX bytes is truncated to that
 *     length (cut back to a UTF-8 character boundary); one warning per run,
 *     "tngc: LOG:LINE: warning: ...", goes to err.  Names that only differ
 *     after the cut are then the same op.
 *   - For each suspect, the report lists at most HOSTLOG_ITERS_MAX iterations
 *     it was compiled in, plus the total count.  Non-suspects keep no list.
 *
 * Output: the list file is written, as the log is read, by the rule every
 * tngc output follows (support/out.c): to a temporary ".tngc-tmp-<pid>-XXXXXX"
 * next to list_path, renamed into place only on success (on failure it is
 * removed and an existing list file is left untouched; a symlink at
 * list_path is replaced, not written through); a FIFO or character device
 * at list_path (/dev/null) is written directly, never replaced; a
 * directory, block device or socket is refused.  A new list file gets mode
 * 0666 & ~umask (like Python's open(path, 'w')), an existing one keeps its
 * mode.  A list_path of "-" writes the list to the `report` stream instead
 * of a file and suppresses the summary report, so that `tngc recompiles LOG
 * -o -` prints exactly the reference script's file (use "./-" for a file named "-").
 *
 * Input: log_path must be a regular file (a device such as /dev/zero or a
 * FIFO may never end: refused, exit 2); "-" reads standard input, whatever
 * it is.
 *
 * Report, text:
 *   N iterations, M distinct ops; K compiled for the first time after
 *   iteration A (dynamic-shape suspects):          (one line; "." if K == 0)
 *     OPNAME  first compiled in iteration I, compiled in iterations I,J,...
 * where OPNAME has control bytes and backslash escaped (\xNN, \\), and a
 * capped list ends in ",... (N more)".
 * Report, JSON (one line):
 *   {"iterations":N,"ops":M,"after":A,"suspects":[{"op":"...",
 *    "first_iteration":I,"iterations":[I,J,...],"iteration_count":C}]}
 * iteration_count is the number of iterations the op was compiled in, which
 * is larger than the length of "iterations" only when that list is capped.
 * Strings are escaped per RFC 8259 (quote, backslash, control characters as
 * \uXXXX or the short escapes); each byte that is not part of valid UTF-8 is
 * replaced by U+FFFD, so the document is always valid UTF-8 JSON.
 */
#ifndef TNGC_FRONTEND_HOSTLOG_H
#define TNGC_FRONTEND_HOSTLOG_H

#include "../support/sink.h"

#include <stdio.h>

/* Longest op name kept, in bytes; longer names are truncated. */
#define HOSTLOG_NAME_MAX 4096
/* Most iterations listed per suspect in the report. */
#define HOSTLOG_ITERS_MAX 100

typedef struct HostlogOptions {
    const char *split_flag;  /* iteration marker; default "=====iter" */
    long after;              /* suspects: ops first compiled in an iteration index > after; default 3 */
    const char *list_path;   /* where recompile_op_list.txt goes; default "recompile_op_list.txt" */
    int json;                /* report format: 0 text, 1 json */
} HostlogOptions;

/* Fills self with the defaults: split_flag "=====iter", after 3, list_path "recompile_op_list.txt", text report. */
void hostlog_options_init(HostlogOptions *self);

/* Reads the host log at log_path ("-": stdin), writes the list file and the report, and returns the process exit status: 0 success, 2 I/O or input error (one error about PATH reported in err, printed "tngc: PATH: reason"). err may be NULL. */
int hostlog_recompiles(const HostlogOptions *self, const char *log_path, FILE *report, Sink *err);

#endif /* TNGC_FRONTEND_HOSTLOG_H */
