/*
 * fs.c - directory helpers of the build driver: mkdir -p and rm -rf.
 * (Kept apart from the IR headers: <dirent.h> defines DT_UNKNOWN too.)
 */
#define _DEFAULT_SOURCE 1
#include "support.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fs_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            size_t n = strlen(path) + strlen(e->d_name) + 2;
            char *c = xmalloc(n);
            snprintf(c, n, "%s/%s", path, e->d_name);
            fs_rmtree(c);
            free(c);
        }
        closedir(d);
    }
    rmdir(path);
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

int fs_sweep_dead(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    size_t pl = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, pl) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + pl, &end, 10);
        if (end == e->d_name + pl || *end != '-' || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;   /* its builder is alive (or not ours to judge) */
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *c = xmalloc(len);
        snprintf(c, len, "%s/%s", dir, e->d_name);
        fs_rmtree(c);
        free(c);
        n++;
    }
    closedir(d);
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
