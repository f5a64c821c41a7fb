/*
 * out.c - how tngc writes its outputs: one rule for every file it writes
 * (plan -o, gen, build, recompiles -o, depfiles, manifests, the cache).
 *
 *   path absent, or a regular file (or a symlink to one): the data goes to
 *       a temporary ".tngc-tmp-<pid>-XXXXXX" in the same directory, which
 *       is renamed over path once complete (a symlink there is replaced,
 *       not written through). A new file gets 0666 & ~umask (0777 & ~umask
 *       for an executable) like any compiler's output; a file that is
 *       replaced keeps its permission bits.
 *   a FIFO or a character device (/dev/null, a terminal, a pipe behind
 *       /dev/stdout): written directly, never replaced or renamed over.
 *   a directory, a block device, a socket: refused (EISDIR, ENOTSUP).
 *
 * A set of files (a bundle in -o) is committed all or nothing: every file
 * is first written to its temporary, then a journal ".tngc-tmp-<pid>-journal"
 * listing the renames is put in place (the commit point), the renames are
 * done and the journal removed (the files replaced keep a second name
 * meanwhile, so that no rename waits for their blocks to be freed and the
 * renames follow each other in microseconds). A process killed before the journal leaves
 * only temporaries; one killed during the renames leaves the journal, and
 * the next tngc that writes into that directory finishes the renames
 * before anything else. Temporaries carry the writer's pid, so that only
 * those of dead processes are swept (outdir_recover).
 */
#define _DEFAULT_SOURCE 1
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OUT_PREFIX ".tngc-tmp-"

/* ---- one file ------------------------------------------------------------- */

/* Creates DIR/.tngc-tmp-<pid>-XXXXXX with O_EXCL and the given mode (the
 * umask applies), or, when link_from is not NULL, as a hard link to it;
 * returns the fd (0 for a link), or -1 with errno. */
static int out__make(const char *dir, mode_t mode, const char *link_from, char **tmp_out)
{
    static unsigned long counter;
    size_t need = strlen(dir) + 64;
    char *tmp = xmalloc(need);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)tmp ^ ++counter;
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        char rnd[7];
        for (int i = 0; i < 6; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            rnd[i] = digits[(seed >> 33) % 36];
        }
        rnd[6] = 0;
        snprintf(tmp, need, "%s/" OUT_PREFIX "%ld-%s", dir, (long)getpid(), rnd);
        int fd = link_from ? link(link_from, tmp) : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            *tmp_out = tmp;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(tmp);
    errno = e;
    return -1;
}

static int out__temp(const char *dir, mode_t mode, char **tmp_out)
{
    return out__make(dir, mode, NULL, tmp_out);
}

/* What path is: 0 absent or regular (write a temporary and rename), 1 a
 * FIFO or character device (write directly), -1 refused (errno set). */
static int out__kind(const char *path, struct stat *st, int *exists)
{
    *exists = 0;
    if (stat(path, st) != 0) {
        if (errno != ENOENT)
            return -1;
        struct stat l;   /* a dangling symlink: replaced like a regular file */
        return lstat(path, &l) == 0 || errno == ENOENT ? 0 : -1;
    }
    if (S_ISREG(st->st_mode)) {
        *exists = 1;
        return 0;
    }
    if (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode))
        return 1;
    errno = S_ISDIR(st->st_mode) ? EISDIR : ENOTSUP;
    return -1;
}

int outfile_open(OutFile *self, const char *path, int exec)
{
    memset(self, 0, sizeof *self);
    self->fd = -1;
    struct stat st;
    int exists;
    size_t pl = strlen(path);
    if (pl == 0) {
        errno = ENOENT;
        return -1;
    }
    if (path[pl - 1] == '/') {
        errno = EISDIR;
        return -1;
    }
    int kind = out__kind(path, &st, &exists);
    if (kind < 0)
        return -1;
    if (kind == 1) {   /* a device or FIFO: write to it, never replace it */
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        struct stat now;   /* still what it was (not swapped for a file meanwhile) */
        if (fstat(fd, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
            close(fd);
            errno = EAGAIN;
            return -1;
        }
        self->fd = fd;
        self->direct = 1;
        self->path = xstrdup(path);
        return 0;
    }
    char *dir = path_dir(path);
    int fd = out__temp(dir, exec ? 0777 : 0666, &self->tmp);
    free(dir);
    if (fd < 0)
        return -1;
    if (exists) {   /* a replaced file keeps its permission bits */
        mode_t m = st.st_mode & 0777;
        if (exec)
            m |= (m & 0444) >> 2;
        (void)fchmod(fd, m);
    }
    self->fd = fd;
    self->path = xstrdup(path);
    return 0;
}

int outfile_write(OutFile *self, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(self->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Closes the file (fsync first for a temporary); 0 or -1 with errno. */
static int out__close(OutFile *self)
{
    int rc = 0, e = 0;
    if (!self->direct && fsync(self->fd) != 0 && errno != EINVAL)
        rc = -1, e = errno;
    if (close(self->fd) != 0 && rc == 0)
        rc = -1, e = errno;
    self->fd = -1;
    errno = e;
    return rc;
}

static void out__free(OutFile *self)
{
    free(self->tmp);
    free(self->path);
    self->tmp = self->path = NULL;
}

int outfile_commit(OutFile *self)
{
    int rc = out__close(self);
    if (rc == 0 && self->tmp && rename(self->tmp, self->path) != 0)
        rc = -1;
    int e = errno;
    if (rc != 0 && self->tmp)
        unlink(self->tmp);
    out__free(self);
    errno = e;
    return rc;
}

void outfile_abort(OutFile *self)
{
    int e = errno;
    if (self->fd >= 0)
        close(self->fd);
    self->fd = -1;
    if (self->tmp)
        unlink(self->tmp);
    out__free(self);
    errno = e;
}

int write_file_mode(const char *path, const char *data, size_t n, int exec)
{
    OutFile f;
    if (outfile_open(&f, path, exec) != 0)
        return -1;
    if (!f.direct) {   /* what killed writers left beside it */
        char *dir = path_dir(path);
        outdir_recover(dir);
        free(dir);
    }
    if (outfile_write(&f, data, n) != 0) {
        outfile_abort(&f);
        return -1;
    }
    return outfile_commit(&f);
}

int write_file_atomic(const char *path, const char *data, size_t n)
{
    return write_file_mode(path, data, n, 0);
}

/* ---- a set of files, committed together ------------------------------------ */

void outset_begin(OutSet *self, const char *dir)
{
    memset(self, 0, sizeof *self);
    self->dir = xstrdup(dir);
    outdir_recover(dir);
}

int outset_add(OutSet *self, const char *name, const char *data, size_t n, int exec)
{
    if (!*name || strchr(name, '/') || strchr(name, '\n'))
        TNGC_BUG("outset_add: '%s' is not a plain file name", name);
    for (size_t i = 0; i < self->files.n; i++)
        if (!strcmp(self->files.v[i].name, name))
            TNGC_BUG("outset_add: %s added twice", name);
    OutSetFile f = {.name = xstrdup(name)};
    size_t pl = strlen(self->dir) + strlen(name) + 2;
    char *path = xmalloc(pl);
    snprintf(path, pl, "%s/%s", self->dir, name);
    int rc = outfile_open(&f.out, path, exec);
    free(path);
    if (rc == 0 && f.out.direct) {   /* written at commit, after the renames */
        f.data = xstrndup(data, n);
        f.n = n;
    } else if (rc == 0 && outfile_write(&f.out, data, n) != 0) {
        outfile_abort(&f.out);
        rc = -1;
    } else if (rc == 0 && out__close(&f.out) != 0) {
        outfile_abort(&f.out);
        rc = -1;
    }
    if (rc != 0) {
        int e = errno;
        free(f.name);
        errno = e;
        return -1;
    }
    VEC_PUSH(self->files, f);
    return 0;
}

/* The journal's line for f: "<temporary's name>/<name>". */
static void out__journal_line(const OutSetFile *f, StrBuf *j)
{
    const char *base = strrchr(f->out.tmp, '/');
    sb_printf(j, "%s/%s\n", base ? base + 1 : f->out.tmp, f->name);
}

int outset_commit(OutSet *self, const char **failed)
{
    int rc = 0, e = 0;
    *failed = NULL;
    StrBuf j = {0};
    size_t renames = 0;
    for (size_t i = 0; i < self->files.n; i++)
        if (!self->files.v[i].out.direct) {
            out__journal_line(&self->files.v[i], &j);
            renames++;
        }
    /* the files replaced keep a second name until the end, so that the
     * renames do not free their blocks: the window between the first and
     * the last rename stays a few system calls long */
    VEC(char *) keep = {0};
    for (size_t i = 0; renames > 1 && i < self->files.n; i++) {
        char *k = NULL;
        if (!self->files.v[i].out.direct && out__make(self->dir, 0, self->files.v[i].out.path, &k) == 0)
            VEC_PUSH(keep, k);
    }
    char *journal = NULL;
    if (renames > 1) {   /* the commit point: the journal in place */
        OutFile jf;
        char *jtmp = NULL;
        int fd = out__temp(self->dir, 0600, &jtmp);
        size_t jl = strlen(self->dir) + 64;
        journal = xmalloc(jl);
        snprintf(journal, jl, "%s/" OUT_PREFIX "%ld-journal", self->dir, (long)getpid());
        memset(&jf, 0, sizeof jf);
        jf.fd = fd;
        jf.tmp = jtmp;
        jf.path = xstrdup(journal);
        if (fd < 0 || outfile_write(&jf, j.s, j.len) != 0) {
            rc = -1, e = errno;
            if (fd >= 0)
                outfile_abort(&jf);
            else
                out__free(&jf);
            free(journal);
            journal = NULL;
        } else if (outfile_commit(&jf) != 0) {
            rc = -1, e = errno;
            free(journal);
            journal = NULL;
        }
    }
    for (size_t i = 0; rc == 0 && i < self->files.n; i++) {
        OutSetFile *f = &self->files.v[i];
        if (f->out.direct || rename(f->out.tmp, f->out.path) == 0) {
            free(f->out.tmp);
            f->out.tmp = NULL;
            continue;
        }
        rc = -1, e = errno;
        *failed = f->name;
    }
    if (journal) {
        unlink(journal);
        free(journal);
    }
    for (size_t i = 0; i < keep.n; i++) {
        unlink(keep.v[i]);
        free(keep.v[i]);
    }
    VEC_FREE(keep);
    for (size_t i = 0; rc == 0 && i < self->files.n; i++) {   /* devices and FIFOs */
        OutSetFile *f = &self->files.v[i];
        if (!f->out.direct)
            continue;
        if (outfile_write(&f->out, f->data, f->n) != 0 || out__close(&f->out) != 0) {
            rc = -1, e = errno;
            *failed = f->name;
        }
    }
    sb_free(&j);
    errno = e;
    return rc;
}

void outset_free(OutSet *self)
{
    for (size_t i = 0; i < self->files.n; i++) {
        OutSetFile *f = &self->files.v[i];
        if (f->out.fd >= 0 || f->out.tmp)
            outfile_abort(&f->out);
        out__free(&f->out);
        free(f->data);
        free(f->name);
    }
    VEC_FREE(self->files);
    free(self->dir);
    self->dir = NULL;
}

/* ---- what dead writers left ---------------------------------------------------- */

/* The pid in ".tngc-tmp-<pid>-...", or -1. */
static long out__pid(const char *name)
{
    size_t pl = strlen(OUT_PREFIX);
    if (strncmp(name, OUT_PREFIX, pl) != 0)
        return -1;
    char *end;
    long pid = strtol(name + pl, &end, 10);
    return end == name + pl || *end != '-' || pid <= 0 ? -1 : pid;
}

static int out__dead(long pid)
{
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Finishes the renames of a dead writer's journal dir/name, then removes it. */
static void out__roll_forward(const char *dir, const char *name, long pid)
{
    size_t dl = strlen(dir) + strlen(name) + 2;
    char *jp = xmalloc(dl);
    snprintf(jp, dl, "%s/%s", dir, name);
    StrBuf j = {0};
    /* a journal is a regular file this user's tngc wrote (never a link or
     * a FIFO someone planted) of at most a few lines per output */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (dfd < 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid() || fs_read_at(dfd, name, (size_t)1 << 20, &j) != 0) {
        sb_free(&j);
        if (dfd >= 0)
            close(dfd);
        free(jp);
        return;
    }
    close(dfd);
    for (char *line = j.s; line && *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;   /* a journal is complete or absent: a torn line is ignored */
        *nl = 0;
        char *slash = strchr(line, '/');
        if (slash && !strchr(slash + 1, '/') && slash[1] && out__pid(line) == pid) {
            *slash = 0;
            size_t l = strlen(dir) + strlen(line) + strlen(slash + 1) + 4;
            char *from = xmalloc(l), *to = xmalloc(l);
            snprintf(from, l, "%s/%s", dir, line);
            snprintf(to, l, "%s/%s", dir, slash + 1);
            (void)rename(from, to);   /* gone when already renamed */
            free(from);
            free(to);
        }
        line = nl + 1;
    }
    sb_free(&j);
    unlink(jp);
    free(jp);
}

int outdir_recover(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {   /* first the journals of dead writers */
        long pid = out__pid(e->d_name);
        const char *tail = pid > 0 ? strchr(e->d_name + strlen(OUT_PREFIX), '-') : NULL;
        if (tail && !strcmp(tail, "-journal") && out__dead(pid)) {
            out__roll_forward(dir, e->d_name, pid);
            n++;
        }
    }
    closedir(d);
    return n + fs_sweep_dead(dir, OUT_PREFIX);
}
