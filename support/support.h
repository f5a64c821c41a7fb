/*
 * support.h - the small pieces every layer of tngc uses: checked allocation,
 * a bump arena (the compiler frees its memory once, at exit), growable
 * arrays, a string builder, and JSON string escaping.
 *
 * Internal bugs abort with file and line (TNGC_BUG); user errors never do.
 */
#ifndef TNGC_SUPPORT_H
#define TNGC_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- allocation ---------------------------------------------------- */

/* Aborts with a message naming the call site (an internal bug, not a user error). */
_Noreturn void tngc_bug(const char *file, int line, const char *fmt, ...);
#define TNGC_BUG(...) tngc_bug(__FILE__, __LINE__, __VA_ARGS__)
#define TNGC_ASSERT(c) ((c) ? (void)0 : tngc_bug(__FILE__, __LINE__, "assertion failed: %s", #c))

/* malloc/calloc/realloc that abort on exhaustion (out of memory is fatal to the compiler). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Copies the n bytes at s into a new NUL-terminated string. */
char *xstrndup(const char *s, size_t n);
/* The directory part of path, allocated: "." when it has none, "/" for
 * a file at the root. */
char *path_dir(const char *path);
/* Edit distance of a and b (insertions, deletions, substitutions, a swap
 * of neighbours as one edit); 99 for names over 128 bytes. */
size_t str_distance(const char *a, const char *b);
char *xstrdup(const char *s);

/* ---- arena ---------------------------------------------------------- */

typedef struct ArenaBlock ArenaBlock;
/* A bump allocator: allocations live until arena_free. */
typedef struct Arena {
    ArenaBlock *head;
} Arena;

/* Returns n zeroed bytes aligned for any type, owned by the arena. */
void *arena_alloc(Arena *self, size_t n);
/* Copies n bytes of s into the arena as a NUL-terminated string. */
char *arena_strndup(Arena *self, const char *s, size_t n);
/* printf into a string owned by the arena. */
char *arena_printf(Arena *self, const char *fmt, ...);
char *arena_vprintf(Arena *self, const char *fmt, va_list ap);
/* Frees every block of the arena. */
void arena_free(Arena *self);

/* ---- growable arrays -------------------------------------------------- */

/* VEC(T) is {T *v; size_t n, cap;}; VEC_PUSH grows it geometrically. */
#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_PUSH(vec, x) \
    do { \
        if ((vec).n == (vec).cap) { \
            (vec).cap = (vec).cap ? 2 * (vec).cap : 8; \
            (vec).v = xrealloc((vec).v, (vec).cap * sizeof *(vec).v); \
        } \
        (vec).v[(vec).n++] = (x); \
    } while (0)
#define VEC_FREE(vec) (free((vec).v), (vec).v = NULL, (vec).n = (vec).cap = 0)

/* ---- string builder ------------------------------------------------- */

/* A growable NUL-terminated byte string. */
typedef struct StrBuf {
    char *s;
    size_t len, cap;
} StrBuf;

void sb_putn(StrBuf *self, const char *s, size_t n);
void sb_puts(StrBuf *self, const char *s);
void sb_putc(StrBuf *self, char c);
void sb_printf(StrBuf *self, const char *fmt, ...);
void sb_vprintf(StrBuf *self, const char *fmt, va_list ap);
/* Appends s[0..n) as a JSON string literal (quotes included); bytes that are
 * not valid UTF-8 become U+FFFD so the output is always valid JSON. */
void sb_json_str(StrBuf *self, const char *s, size_t n);
void sb_free(StrBuf *self);
/* Appends s[0..n) for a message on a terminal: control bytes, DEL and bytes
 * that are not UTF-8 as \xHH, C1 controls, line separators and the
 * bidirectional controls as \uHHHH, the rest as it is (a path or a name
 * echoed in a message can neither send escape sequences nor fake a line). */
void sb_put_printable(StrBuf *self, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at s[0..n), or 0 if it is not one. */
size_t utf8_valid_len(const unsigned char *s, size_t n);

/* The diagnostics sink (sink.h); the file helpers below report to one. */
typedef struct Sink Sink;

/* ---- output files ----------------------------------------------------- */

/*
 * Every file tngc writes goes through one rule (support/out.c):
 *   - path absent or a regular file: written to ".tngc-tmp-<pid>-XXXXXX" in
 *     its directory and renamed over path when complete; a new file gets
 *     0666 & ~umask (0777 & ~umask when exec), a replaced one keeps its
 *     permission bits;
 *   - a FIFO or a character device (/dev/null): written directly, never
 *     replaced;
 *   - a directory (EISDIR), a block device or a socket (ENOTSUP): refused.
 */
typedef struct OutFile {
    int fd;
    int direct;      /* a device or FIFO written in place */
    char *tmp;       /* the temporary renamed over path, or NULL */
    char *path;
} OutFile;

/* Opens path for writing by the rule above; 0, or -1 with errno. */
int outfile_open(OutFile *self, const char *path, int exec);
/* Writes all n bytes; 0, or -1 with errno (then call outfile_abort). */
int outfile_write(OutFile *self, const void *data, size_t n);
/* Closes and renames into place; 0, or -1 with errno (nothing left behind). */
int outfile_commit(OutFile *self);
/* Closes and removes the temporary; path is untouched. */
void outfile_abort(OutFile *self);

/* Writes n bytes to path by the rule above (a non-executable file).
 * Returns 0, or -1 with errno set (nothing left). */
int write_file_atomic(const char *path, const char *data, size_t n);
/* The same, for an executable when exec. */
int write_file_mode(const char *path, const char *data, size_t n, int exec);

/* Files of one directory written all or nothing: outset_add writes each to
 * its temporary, outset_commit renames them all behind a journal that a
 * later outdir_recover finishes if this process dies midway. */
typedef struct OutSetFile {
    char *name;
    char *data;      /* kept for a device or FIFO, written at commit */
    size_t n;
    OutFile out;
} OutSetFile;
typedef struct OutSet {
    char *dir;
    VEC(OutSetFile) files;
} OutSet;

/* Starts a set in dir (after outdir_recover(dir)). */
void outset_begin(OutSet *self, const char *dir);
/* Stages dir/name (a plain name, added once); 0, or -1 with errno. */
int outset_add(OutSet *self, const char *name, const char *data, size_t n, int exec);
/* Puts every staged file in place; 0, or -1 with errno and *failed naming
 * the file that could not be put in place. */
int outset_commit(OutSet *self, const char **failed);
/* Removes what was staged and not committed; frees the set. */
void outset_free(OutSet *self);
/* In dir, finishes the commits of dead tngc processes and removes their
 * temporaries; returns how many entries it handled. */
int outdir_recover(const char *dir);

/* Whether the path s[0..n) has a ".." component or a NUL byte (a path a
 * script may name only inside where it points). */
int path_escapes(const char *s, size_t n);

/* rm -rf path. No symbolic link is followed below path's folder: each
 * level is opened relative to the one above with O_NOFOLLOW, a link is
 * removed itself, and what lies deeper than 64 levels is left. */
void fs_rmtree(const char *path);
/* rm -rf name inside the directory dirfd, by the rule of fs_rmtree. */
void fs_rmtree_at(int dirfd, const char *name);
/* mkdir -p path, new directories 0700 when priv, else 0755; returns 0 or
 * -1 with errno. */
int fs_mkdirs(const char *path, int priv);
/* dir as an output folder: made (mkdir -p) unless it is there; 0, or -1
 * after an error in sink (it is a file, or cannot be made). */
int fs_output_dir(Sink *sink, const char *dir);
/* Opens the directory root/rel (rel relative, '/'-separated) one level at
 * a time from root without following a symbolic link at any level below
 * root, creating missing levels (0700) when create; every level below
 * root must belong to the effective user and be writable by no one else.
 * Returns the directory's fd, or -1 with errno (ELOOP: a link, EPERM:
 * another owner or a group/world-writable level, ENOTDIR). */
int fs_open_below(const char *root, const char *rel, int create);
/* Reads the regular file name in dirfd (never through a link, never
 * blocking on a FIFO; at most max bytes) into out; 0, or -1 with errno
 * (EFBIG past max, EINVAL when it is not a regular file). */
int fs_read_at(int dirfd, const char *name, size_t max, StrBuf *out);
/* Removes the entries of dir named PREFIX<pid>-... whose process <pid> no
 * longer exists (what a killed build left behind) and that belong to the
 * effective user; returns how many. */
int fs_sweep_dead(const char *dir, const char *prefix);
/* fs_sweep_dead in the directory dirfd. */
int fs_sweep_dead_at(int dirfd, const char *prefix);
/* The names in dir that start with prefix and end with suffix, sorted
 * (strcmp), in a malloc'd array of *n malloc'd strings (NULL and 0 when
 * there are none or dir cannot be read); free with fs_names_free. */
char **fs_names(const char *dir, const char *prefix, const char *suffix, size_t *n);
void fs_names_free(char **names, size_t n);
/* The user's secret for authenticating what tngc writes into its build
 * caches: 32 random bytes kept in $XDG_CONFIG_HOME/tngc/cache-secret
 * (default ~/.config/tngc), created on first use; the file must be a
 * regular file of this user that no one else can read, in a folder no one
 * else can write. Returns 0, or -1 after one error in sink (the path and
 * the reason). */
int fs_cache_secret(unsigned char key[32], Sink *sink);



/* ---- make depfiles (depfile.c) ----------------------------------------- */

/* Why make cannot name path in a depfile rule ("a newline", "';'"...), or
 * NULL when it can. */
const char *make_unsafe(const char *path);
/* Appends path as make reads it in a rule (make_unsafe(path) is NULL):
 * blanks, '#' and ':' escaped. */
void make_path(StrBuf *d, const char *path);

/* ---- string map -------------------------------------------------------- */

/* An open-addressing hash map from strings to pointers. Keys are not
 * copied: they must outlive the map (arena strings). Iteration order is
 * never used for output. */
typedef struct StrMap {
    const char **keys;
    void **vals;
    size_t cap, n;
} StrMap;

/* Sets key to val (replacing an earlier value). */
void strmap_put(StrMap *self, const char *key, void *val);
/* The value of key, or NULL. */
void *strmap_get(const StrMap *self, const char *key);
void strmap_free(StrMap *self);
#endif
