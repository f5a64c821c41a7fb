/*
 * fs.c - directory helpers of the build driver: mkdir -p and rm -rf that
 * follow no symbolic link, reads relative to a checked directory, and the
 * user's cache secret.
 * (Kept apart from the IR headers: <dirent.h> defines DT_UNKNOWN too.)
 */
#define _DEFAULT_SOURCE 1
#include "support.h"
#include "sink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The deepest level fs_rmtree_at descends to: a tree deeper than that (no
 * build makes one) is left, so that a hostile tree cannot exhaust the
 * stack or the file descriptors. */
#define FS_MAX_DEPTH 64

static void fs__rm_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
        return;   /* a file or a link removed, or nothing to remove */
    if (depth >= FS_MAX_DEPTH)
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            fs__rm_at(fd, e->d_name, depth + 1);
    closedir(d);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

void fs_rmtree_at(int dirfd, const char *name)
{
    if (*name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."))
        fs__rm_at(dirfd, name, 0);
}

void fs_rmtree(const char *path)
{
    char *dir = path_dir(path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fs_rmtree_at(fd, base);
        close(fd);
    }
    free(dir);
}

int fs_open_below(const char *root, const char *rel, int create)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const char *s = rel;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char *name = xstrndup(s, n);
        s += n + (e != NULL);
        if (n == 0 || !strcmp(name, ".") || !strcmp(name, "..")) {
            free(name);
            close(fd);
            errno = EINVAL;
            return -1;
        }
        if (create && mkdirat(fd, name, 0700) != 0 && errno != EEXIST) {
            int er = errno;
            free(name);
            close(fd);
            errno = er;
            return -1;
        }
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int er = errno;
        free(name);
        close(fd);
        if (next < 0) {
            errno = er == ENOTDIR ? ELOOP : er;   /* a link to a directory fails as ENOTDIR */
            return -1;
        }
        struct stat st;
        if (fstat(next, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
            close(next);
            errno = EPERM;
            return -1;
        }
        fd = next;
    }
    return fd;
}

int fs_read_at(int dirfd, const char *name, size_t max, StrBuf *out)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        errno = EFBIG;
        return -1;
    }
    char buf[65536];
    size_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int er = errno;
            close(fd);
            errno = er;
            return -1;
        }
        if (n == 0)
            break;
        total += (size_t)n;
        if (total > max) {   /* grew while read */
            close(fd);
            errno = EFBIG;
            return -1;
        }
        sb_putn(out, buf, (size_t)n);
    }
    close(fd);
    return 0;
}

int fs_mkdirs(const char *path, int priv)
{
    mode_t mode = priv ? 0700 : 0755;
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, mode) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, mode) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

int fs_sweep_dead_at(int dirfd, const char *prefix)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int n = 0;
    size_t pl = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, pl) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + pl, &end, 10);
        if (end == e->d_name + pl || *end != '-' || pid <= 0 || pid > INT_MAX)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;   /* its builder is alive (or not ours to judge) */
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
            continue;   /* another user's: not ours to remove */
        fs_rmtree_at(dirfd, e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

int fs_sweep_dead(const char *dir, const char *prefix)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int n = fs_sweep_dead_at(fd, prefix);
    close(fd);
    return n;
}

static int fs__cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **fs_names(const char *dir, const char *prefix, const char *suffix, size_t *n)
{
    DIR *d = opendir(dir);
    VEC(char *) v = {0};
    size_t pl = strlen(prefix), sl = strlen(suffix);
    *n = 0;
    if (!d)
        return NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l >= pl + sl && strncmp(e->d_name, prefix, pl) == 0 &&
            strcmp(e->d_name + l - sl, suffix) == 0)
            VEC_PUSH(v, xstrdup(e->d_name));
    }
    closedir(d);
    if (v.n)
        qsort(v.v, v.n, sizeof *v.v, fs__cmp_name);
    *n = v.n;
    return v.v;
}

void fs_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- the cache secret -------------------------------------------------------- */

#define FS_SECRET_LEN 32

/* Checks and reads the secret file name in dirfd; 0, -1 after an error in
 * sink, or 1 when it does not exist. */
static int fs__secret_read(int dirfd, const char *path, unsigned char key[FS_SECRET_LEN], Sink *sink)
{
    int fd = openat(dirfd, "cache-secret", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 1;
        sink_error(sink, "%s/cache-secret: %s", path, errno == ELOOP ? "a symbolic link" : strerror(errno));
        return -1;
    }
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_uid != geteuid())
        bad = "belongs to another user";
    else if (st.st_mode & 077)
        bad = "others may read or write it (chmod 600 it)";
    else if (st.st_size != FS_SECRET_LEN)
        bad = "not the 32 bytes tngc writes";
    ssize_t n = bad ? 0 : read(fd, key, FS_SECRET_LEN);
    close(fd);
    if (!bad && n != FS_SECRET_LEN)
        bad = "cannot be read";
    if (bad) {
        sink_error(sink, "%s/cache-secret: %s", path, bad);
        return -1;
    }
    return 0;
}

int fs_cache_secret(unsigned char key[32], Sink *sink)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (!home || home[0] != '/') {   /* no $HOME (a daemon, a bare CI job): the account's */
        const struct passwd *pw = getpwuid(geteuid());
        home = pw ? pw->pw_dir : NULL;
    }
    StrBuf dir = {0};
    if (xdg && xdg[0] == '/')
        sb_printf(&dir, "%s/tngc", xdg);
    else if (home && home[0] == '/')
        sb_printf(&dir, "%s/.config/tngc", home);
    else {
        sink_error(sink, "no folder for tngc's cache secret: XDG_CONFIG_HOME and HOME are not absolute paths "
                              "and the account has no home folder");
        return -1;
    }
    int rc = -1;
    if (fs_mkdirs(dir.s, 1) != 0) {
        sink_error(sink, "cannot create %s: %s", dir.s, strerror(errno));
        sb_free(&dir);
        return -1;
    }
    int dfd = open(dir.s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (dfd < 0 || fstat(dfd, &st) != 0) {
        sink_error(sink, "%s: %s", dir.s, errno == ELOOP || errno == ENOTDIR ? "not a directory" : strerror(errno));
    } else if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        sink_error(sink, "%s: %s", dir.s,
                 st.st_uid != geteuid() ? "belongs to another user" : "others may write into it (chmod 700 it)");
    } else if ((rc = fs__secret_read(dfd, dir.s, key, sink)) == 1) {
        /* created under a temporary name, then linked into place: two
         * processes that race both end with the one secret that won */
        unsigned char fresh[FS_SECRET_LEN];
        char tname[64];
        snprintf(tname, sizeof tname, ".cache-secret.%ld", (long)getpid());
        unlinkat(dfd, tname, 0);
        int fd = openat(dfd, tname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        ssize_t got = getrandom(fresh, sizeof fresh, 0);
        int ok = fd >= 0 && got == (ssize_t)sizeof fresh && write(fd, fresh, sizeof fresh) == (ssize_t)sizeof fresh &&
                 fsync(fd) == 0;
        if (fd >= 0)
            close(fd);
        if (ok && linkat(dfd, tname, dfd, "cache-secret", 0) != 0 && errno != EEXIST)
            ok = 0;
        unlinkat(dfd, tname, 0);
        rc = ok ? fs__secret_read(dfd, dir.s, key, sink) : -1;
        if (!ok)
            sink_error(sink, "cannot create %s/cache-secret: %s", dir.s, strerror(errno));
        else if (rc == 1) {
            sink_error(sink, "%s/cache-secret vanished while it was created", dir.s);
            rc = -1;
        }
    }
    if (dfd >= 0)
        close(dfd);
    sb_free(&dir);
    return rc;
}

int fs_output_dir(Sink *sink, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        sink_error(sink, "the output directory %s is a file, not a directory", dir);
        return -1;
    }
    if (fs_mkdirs(dir, 0) != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        sink_error(sink, "cannot create the output directory %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}
