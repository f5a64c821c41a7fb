/*
 * file.c - what the readers and writers of libtngcrt share: error messages
 * that name the file (or, for generated code, the script's line), opening
 * and reading a regular file, creating a temporary file safely, writing one
 * file atomically and installing several all or nothing.
 *
 * Reads open with O_NONBLOCK and require a regular file before anything
 * is read, so that a FIFO or a device given as a path is refused at once
 * instead of blocking. Writes never go through a name another user could
 * have planted: each file is written to a new temporary created with
 * O_CREAT | O_EXCL | O_NOFOLLOW under a random name in the destination's
 * directory, then renamed into place.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/random.h>
#endif

/* The random characters of a temporary name, and the most bytes of the
 * destination's base name a temporary name repeats (so that it stays
 * within NAME_MAX, 255, whatever the destination's length). */
#define FILE_RAND 12
#define FILE_BASE_MAX 200
/* Attempts at a fresh name before giving up (each collision is a name
 * that exists already: planted, or a 1 in 62^12 coincidence). */
#define FILE_TRIES 64

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

/* ---- reading ---- */

int tngrt__open_read(const char *path, TngrtError *err)
{
    struct stat st;
    int flags, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        tngrt__fail(err, path, "cannot open for reading: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        tngrt__fail(err, path, "not a regular file");
        return -1;
    }
    /* reads of a regular file never block for long; the flag is cleared so
     * that none returns EAGAIN on an unusual file system */
    if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        close(fd);
        tngrt__fail(err, path, "cannot read: %s", strerror(errno));
        return -1;
    }
    return fd;
}

int tngrt__read_fd(int fd, const char *path, unsigned char **buf, size_t *len, TngrtError *err)
{
    struct stat st;
    size_t size, got = 0;
    *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
        tngrt__fail(err, path, "not a regular file");
        return -1;
    }
    if ((uint64_t)st.st_size > SIZE_MAX / 2) {
        tngrt__fail(err, path, "file of %lld bytes is too large", (long long)st.st_size);
        return -1;
    }
    size = (size_t)st.st_size;
    *buf = malloc(size ? size : 1);
    if (!*buf) {
        tngrt__fail(err, path, "out of memory reading %zu bytes", size);
        return -1;
    }
    while (got < size) {
        ssize_t n = pread(fd, *buf + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : 0;
            free(*buf);
            *buf = NULL;
            tngrt__fail(err, path, "read error%s%s", e ? ": " : " (the file shrank)",
                        e ? strerror(e) : "");
            return -1;
        }
        got += (size_t)n;
    }
    *len = size;
    return 0;
}

int tngrt__read_file(const char *path, unsigned char **buf, size_t *len, TngrtError *err)
{
    int rc, fd = tngrt__open_read(path, err);
    *buf = NULL;
    if (fd < 0)
        return -1;
    rc = tngrt__read_fd(fd, path, buf, len, err);
    close(fd);
    return rc;
}

/* ---- temporary names ---- */

/* A 64-bit mixing function (the finaliser of splitmix64). */
static uint64_t file__mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Fills out[0..FILE_RAND) with random characters of [A-Za-z0-9]: from
 * the kernel's generator, else (no getrandom) from the clocks, the pid and
 * an address, mixed. */
static void file__random(char *out, unsigned attempt)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[FILE_RAND];
    size_t have = 0;
#ifdef __linux__
    ssize_t n = getrandom(r, sizeof r, GRND_NONBLOCK);
    have = n > 0 ? (size_t)n : 0;
#endif
    if (have < sizeof r) {
        struct timespec a = {0, 0}, b = {0, 0};
        uint64_t s;
        clock_gettime(CLOCK_REALTIME, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        s = file__mix((uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec);
        s = file__mix(s ^ ((uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec));
        s = file__mix(s ^ ((uint64_t)getpid() << 20) ^ (uint64_t)(uintptr_t)&a ^ attempt);
        for (size_t i = have; i < sizeof r; i++) {
            if ((i - have) % 8 == 0)
                s = file__mix(s);
            r[i] = (unsigned char)(s >> (8 * ((i - have) % 8)));
        }
    }
    for (size_t i = 0; i < sizeof r; i++)
        out[i] = digits[r[i] % (sizeof digits - 1)];
}

/* Creates a fresh name beside path, "<path>.<tag>.<random>" (the base name
 * cut to FILE_BASE_MAX bytes), in name (cap bytes), by calling make(name,
 * ctx) until it does not fail with EEXIST. Returns make's result (>= 0),
 * or -1 with errno. */
static int file__fresh(const char *path, const char *tag, char *name, size_t cap,
                       int (*make)(const char *name, const void *ctx), const void *ctx)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0, baselen = strlen(path + dirlen);
    size_t taglen = strlen(tag), at;
    if (baselen == 0) {
        errno = EISDIR;
        return -1;
    }
    if (baselen > FILE_BASE_MAX)
        baselen = FILE_BASE_MAX;
    if (dirlen + baselen + taglen + FILE_RAND + 3 > cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(name, path, dirlen + baselen);
    at = dirlen + baselen;
    name[at++] = '.';
    memcpy(name + at, tag, taglen);
    at += taglen;
    name[at++] = '.';
    for (unsigned attempt = 0; attempt < FILE_TRIES; attempt++) {
        int rc;
        file__random(name + at, attempt);
        name[at + FILE_RAND] = '\0';
        if ((rc = make(name, ctx)) >= 0 || errno != EEXIST)
            return rc;
    }
    errno = EEXIST;
    return -1;
}

/* file__fresh's maker of temporaries: a new file, never through a link,
 * mode 0666 less the umask. */
static int file__open_new(const char *name, const void *ctx)
{
    (void)ctx;
    return open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
}

int tngrt__create_temp(const char *path, char *tmp, size_t cap, TngrtError *err)
{
    int fd = file__fresh(path, "tmp", tmp, cap, file__open_new, NULL);
    if (fd < 0) {
        tngrt__fail(err, path, "cannot create a temporary file beside it: %s", strerror(errno));
        if (cap)
            tmp[0] = '\0';
    }
    return fd;
}

/* ---- writing ---- */

int tngrt__write_temp(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                      char *tmp, size_t cap, TngrtError *err)
{
    int fd = tngrt__create_temp(path, tmp, cap, err), ok, saved;
    FILE *f;
    if (fd < 0)
        return -1;
    if (!(f = fdopen(fd, "wb"))) {
        saved = errno;
        close(fd);
        unlink(tmp);
        tngrt__fail(err, path, "cannot write: %s", strerror(saved));
        return -1;
    }
    errno = 0;
    ok = put(ctx, f) == 0 && !ferror(f);
    saved = errno;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        saved = saved ? saved : errno;
        unlink(tmp);
        tngrt__fail(err, path, "write error%s%s", saved ? ": " : "", saved ? strerror(saved) : "");
        return -1;
    }
    return 0;
}

int tngrt__write_atomic(const char *path, int (*put)(const void *ctx, FILE *f), const void *ctx,
                        TngrtError *err)
{
    size_t len = strlen(path), cap = len + TNGRT_TEMP_EXTRA;
    char *tmp = malloc(cap + len + 1), *dst;
    int rc = -1;
    if (!tmp) {
        tngrt__fail(err, path, "out of memory");
        return -1;
    }
    dst = tmp + cap;
    memcpy(dst, path, len + 1);
    if (tngrt__write_temp(path, put, ctx, tmp, cap, err) == 0) {
        rc = tngrt_files_install(&tmp, &dst, 1, err);
        if (rc != 0)
            unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* ---- installing a set of files ---- */

/* file__fresh's makers of second names: a hard link to the file ctx
 * names (a symlink is linked itself, not followed), or, where the file
 * system has no hard links, the file renamed (its name is missing until
 * the new file is renamed there). */
static int file__link(const char *name, const void *ctx)
{
    return linkat(AT_FDCWD, (const char *)ctx, AT_FDCWD, name, 0);
}

static int file__move(const char *name, const void *ctx)
{
    return rename((const char *)ctx, name);
}

/* The directory of path (its text up to the last '/', "." without one,
 * "/" for a file of the root), malloc'd; NULL when out of memory. */
static char *file__dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, slash ? path : ".", n);
        dir[n] = '\0';
    }
    return dir;
}

/* Why destination i cannot be installed (NULL: it can): it must name a
 * file in an existing directory (*dir_out) and not be a directory itself,
 * and its temporary must be a regular file. */
static const char *file__why_not(const char *tmp, const char *dst, struct stat *dir_out,
                                 int *oom)
{
    struct stat st;
    const char *base = strrchr(dst, '/'), *why = NULL;
    char *dir = file__dir(dst);
    base = base ? base + 1 : dst;
    if (!dir)
        *oom = 1, why = "out of memory";
    else if (stat(dir, dir_out) != 0 || !S_ISDIR(dir_out->st_mode))
        why = "no such directory";
    else if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0
             || (lstat(dst, &st) == 0 && S_ISDIR(st.st_mode)))
        why = "is a directory";
    else if (lstat(tmp, &st) != 0 || !S_ISREG(st.st_mode))
        why = "its temporary file is gone";
    free(dir);
    return why;
}

/* Checks the n destinations before any rename (file__why_not), and that
 * no two are the same name of the same directory. Returns 0, or -1 with
 * err naming the destination at fault. */
static int file__check_install(char *const *tmp, char *const *dst, int n, TngrtError *err)
{
    struct stat *dirs = calloc((size_t)n, sizeof *dirs);
    int oom = 0;
    if (!dirs) {
        tngrt__fail(err, dst[0], "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *why = file__why_not(tmp[i], dst[i], &dirs[i], &oom);
        if (why) {
            tngrt__fail(err, dst[i], "%s", why);
            free(dirs);
            return -1;
        }
    }
    /* quadratic in the number of files, which the bundle's signature fixes */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            const char *a = strrchr(dst[i], '/'), *b = strrchr(dst[j], '/');
            if (dirs[i].st_dev == dirs[j].st_dev && dirs[i].st_ino == dirs[j].st_ino
                && strcmp(a ? a + 1 : dst[i], b ? b + 1 : dst[j]) == 0) {
                tngrt__fail(err, dst[i], "named twice among the files written");
                free(dirs);
                return -1;
            }
        }
    free(dirs);
    return 0;
}

/* Undoes the renames of files [0, done): a replaced file is renamed back
 * from its second name keep[i], a new one removed. Returns 0, or -1 when
 * some file could not be put back. */
static int file__rollback(char *const *dst, char **keep, int done)
{
    int rc = 0;
    for (int i = done - 1; i >= 0; i--) {
        if (keep[i] ? rename(keep[i], dst[i]) != 0 : unlink(dst[i]) != 0)
            rc = -1;
        else if (keep[i]) {
            free(keep[i]);
            keep[i] = NULL;
        }
    }
    return rc;
}

/* Gives destination dst, which exists, a second name in *keep (malloc'd):
 * a hard link where the file system has them, else the file itself moved
 * there (*moved set). Returns 0, or -1 with err. */
static int file__keep(const char *dst, char **keep, int *moved, TngrtError *err)
{
    size_t cap = strlen(dst) + TNGRT_TEMP_EXTRA;
    *moved = 0;
    if (!(*keep = malloc(cap))) {
        tngrt__fail(err, dst, "out of memory");
        return -1;
    }
    if (file__fresh(dst, "old", *keep, cap, file__link, dst) >= 0)
        return 0;
    if (errno != EEXIST && errno != ENAMETOOLONG && errno != ENOENT
        && file__fresh(dst, "old", *keep, cap, file__move, dst) >= 0) {
        *moved = 1;
        return 0;
    }
    tngrt__fail(err, dst, "cannot keep the file it replaces: %s", strerror(errno));
    free(*keep);
    *keep = NULL;
    return -1;
}

int tngrt_files_install(char *const *tmp, char *const *dst, int n, TngrtError *err)
{
    char **keep;
    int i, rc = 0;
    if (n <= 0)
        return 0;
    if (file__check_install(tmp, dst, n, err) != 0)
        return -1;
    if (!(keep = calloc((size_t)n, sizeof *keep))) {
        tngrt__fail(err, dst[0], "out of memory");
        return -1;
    }
    for (i = 0; i < n; i++) {
        struct stat st;
        int moved = 0, saved;
        /* a file replaced keeps a second name until every rename is done,
         * so that a failure can put it back */
        if (lstat(dst[i], &st) == 0) {
            if (file__keep(dst[i], &keep[i], &moved, err) != 0)
                break;
        } else if (errno != ENOENT) {
            tngrt__fail(err, dst[i], "%s", strerror(errno));
            break;
        }
        if (rename(tmp[i], dst[i]) == 0)
            continue;
        saved = errno;
        if (keep[i] && (moved ? rename(keep[i], dst[i]) : unlink(keep[i])) == 0) {
            free(keep[i]);
            keep[i] = NULL;
        }
        tngrt__fail(err, dst[i], "cannot rename %s into place: %s", tmp[i], strerror(saved));
        break;
    }
    if (i < n) {
        rc = -1;
        if (file__rollback(dst, keep, i) != 0 && err) {
            size_t len = strlen(err->msg);
            snprintf(err->msg + len, sizeof err->msg - len, "; and the files renamed before "
                     "it could not all be put back");
        }
    }
    for (int k = 0; k < n; k++) {
        if (keep[k] && rc == 0)
            unlink(keep[k]);
        free(keep[k]);   /* after a failed roll-back the old file stays under it */
    }
    free(keep);
    return rc;
}
