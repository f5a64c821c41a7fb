/*
 * cesc.c - escaping of untrusted strings into generated C (cesc.h): a
 * string literal, the text of a block comment, an identifier.
 *
 * What C does to source text before it sees tokens decides what must be
 * escaped: trigraphs are replaced first (??/ is a backslash), then a
 * backslash before a newline joins two lines, then comments end at the
 * first star-slash. So a literal or a comment is inert only if no trigraph
 * can form in it, no backslash in it can meet a newline, and (comments) no
 * star-slash or slash-star appears. Both escapers write only printable
 * ASCII and newline-free text; a byte they escape is written so that the
 * text can still be read back (octal, three digits).
 */
#include "cesc.h"

#include <string.h>
#include <sys/stat.h>

/* Backslash and three octal digits: byte ch. */
static void cesc__octal(StrBuf *o, unsigned char ch)
{
    sb_putc(o, '\\');
    sb_putc(o, (char)('0' + (ch >> 6)));
    sb_putc(o, (char)('0' + ((ch >> 3) & 7)));
    sb_putc(o, (char)('0' + (ch & 7)));
}

/* \n \t \r for those bytes, else 0. */
static char cesc__letter(unsigned char ch)
{
    return ch == '\n' ? 'n' : ch == '\t' ? 't' : ch == '\r' ? 'r' : 0;
}

static int cesc__printable(unsigned char ch)
{
    return ch >= 0x20 && ch < 0x7f;
}

void cesc_string(StrBuf *o, const char *s)
{
    sb_putc(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        char letter = cesc__letter(ch);
        if (ch == '"' || ch == '\\' || ch == '?') {
            sb_putc(o, '\\');
            sb_putc(o, (char)ch);
        } else if (letter) {
            sb_putc(o, '\\');
            sb_putc(o, letter);
        } else if (cesc__printable(ch)) {
            sb_putc(o, (char)ch);
        } else {
            cesc__octal(o, ch);
        }
    }
    sb_putc(o, '"');
}

void cesc_comment(StrBuf *o, const char *s)
{
    char prev = 0;   /* the last character written */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char ch = *p;
        char letter = cesc__letter(ch);
        int unsafe = ch == '\\' || (ch == '/' && prev == '*') || (ch == '*' && (prev == '/' || !p[1])) ||
                     (ch == '?' && prev == '?');
        if (letter && ch != '\r') {
            sb_putc(o, '\\');
            sb_putc(o, letter);
            prev = letter;
        } else if (unsafe || !cesc__printable(ch)) {
            cesc__octal(o, ch);
            prev = (char)('0' + (ch & 7));
        } else {
            sb_putc(o, (char)ch);
            prev = (char)ch;
        }
    }
}

void cesc_ident(StrBuf *o, const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        sb_putc(o, '_');
    for (; *s; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        sb_putc(o, ok ? c : '_');
    }
}

/* ---- names a bundle cannot take ------------------------------------------- */

/* The headers of C11 (7.1.2) and POSIX.1-2017, the Linux and glibc headers
 * the runtime and the launchers include, and those of OpenBLAS and CANN,
 * by stem. */
static const char *const cesc__headers[] = {
    "aio", "assert", "cblas", "complex", "cpio", "ctype", "dirent", "dlfcn", "errno", "fcntl", "fenv", "float",
    "fmtmsg", "fnmatch", "ftw", "glob", "grp", "iconv", "inttypes", "iso646", "langinfo", "lapack", "lapacke",
    "libgen", "limits", "locale", "malloc", "math", "memory", "monetary", "mqueue", "ndbm", "netdb", "nl_types",
    "omp", "openblas_config", "poll", "pthread", "pwd", "regex", "sched", "search", "semaphore", "setjmp",
    "signal", "spawn", "stdalign", "stdarg", "stdatomic", "stdbool", "stddef", "stdint", "stdio", "stdlib",
    "stdnoreturn", "string", "strings", "stropts", "syslog", "tar", "termios", "tgmath", "threads", "time",
    "trace", "uchar", "ulimit", "unistd", "utime", "utmpx", "wchar", "wctype", "wordexp", "acl", "aclnn",
    "features", "alloca", "endian", "err", "getopt", "linux", "sys", "asm", "bits", "gnu",
};

/* The types C11 and POSIX headers define with the _t suffix, by stem. */
static const char *const cesc__types[] = {
    "blkcnt", "blksize", "char16", "char32", "clock", "clockid", "cpu_set", "dev", "div", "double", "fd_set",
    "fenv", "fexcept", "float", "fpos", "fsblkcnt", "fsfilcnt", "gid", "glob", "iconv", "id", "idtype", "ino",
    "int16", "int32", "int64", "int8", "int_fast16", "int_fast32", "int_fast64", "int_fast8", "int_least16",
    "int_least32", "int_least64", "int_least8", "intmax", "intptr", "key", "ldiv", "lldiv", "locale",
    "max_align", "mbstate", "mode", "nfds", "nl_item", "nlink", "off", "off64", "pid", "posix_spawnattr",
    "posix_spawn_file_actions", "pthread", "pthread_attr", "pthread_barrier", "pthread_cond", "pthread_key",
    "pthread_mutex", "pthread_once", "pthread_rwlock", "pthread_spinlock", "ptrdiff", "regex", "regmatch",
    "regoff", "rlim", "sa_family", "sig_atomic", "sighandler", "siginfo", "sigset", "sigval", "size", "socklen",
    "speed", "ssize", "stack", "suseconds", "tcflag", "time", "timer", "uid", "uint16", "uint32", "uint64",
    "uint8", "uint_fast16", "uint_fast32", "uint_fast64", "uint_fast8", "uint_least16", "uint_least32",
    "uint_least64", "uint_least8", "uintmax", "uintptr", "useconds", "va_list", "wchar", "wctrans", "wctype",
    "wint", "cc", "nl_catd", "posix_typed_mem_info", "trace_attr", "trace_event_id", "trace_id",
};

/* The folders a C compiler on this machine searches for <...> headers. */
static const char *const cesc__include_dirs[] = {
    "/usr/include", "/usr/local/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu",
};

int cesc_reserved_name(const char *name, StrBuf *why)
{
    if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
        return sb_printf(why, "C reserves identifiers that start with two underscores or an underscore and a capital"), 1;
    for (size_t i = 0; i < sizeof cesc__headers / sizeof *cesc__headers; i++)
        if (!strcmp(name, cesc__headers[i]))
            return sb_printf(why, "its header %s.h would shadow the system header <%s.h>", name, name), 1;
    for (size_t i = 0; i < sizeof cesc__types / sizeof *cesc__types; i++)
        if (!strcmp(name, cesc__types[i]))
            return sb_printf(why, "its type %s_t is a type the C library defines", name), 1;
    for (size_t i = 0; i < sizeof cesc__include_dirs / sizeof *cesc__include_dirs; i++) {
        StrBuf p = {0};
        sb_printf(&p, "%s/%s.h", cesc__include_dirs[i], name);
        struct stat st;
        int found = stat(p.s, &st) == 0;
        if (found)
            sb_printf(why, "its header %s.h would shadow %s", name, p.s);
        sb_free(&p);
        if (found)
            return 1;
    }
    return 0;
}
