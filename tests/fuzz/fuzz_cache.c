/*
 * fuzz_cache.c - a libFuzzer target over the build cache's trust decisions
 * (codegen/build.c, support/fs.c): the input is a cache entry, which tngc
 * may find in a checkout someone else wrote.
 *
 * Input: one flag byte, then up to seven pieces separated by "\n@@\n": the
 * entry's files tag, key, products, m.c, libm.a, m_launcher, and a path
 * relative to the cache root. Flag bits 0-5 say which of the six files
 * exist; bit 6 puts the entry's files behind a symbolic link to a sentinel
 * folder; bit 7 adds links to the sentinel inside the entry. A tag piece
 * that is exactly "AUTO" is replaced by the genuine tag of the key and
 * products pieces, so the fuzzer also reaches the paths behind a valid tag.
 *
 * Oracles besides the sanitizers:
 * - an entry is a hit (BUILD_ENTRY_OK) only when its tag is the genuine
 *   one, its key is the build's and every product's size and SHA-256 are
 *   the lines of its products file, in order;
 * - an entry whose tag is not the genuine one is never a hit, nor
 *   BUILD_ENTRY_BROKEN (which would let tngc remove it);
 * - fs_open_below never opens the sentinel (never passes through a link),
 *   and fs_rmtree_at of the entry leaves every sentinel file in place.
 *
 * Build and run: `make fuzz` (tests/fuzz/README.md).
 */
#define _GNU_SOURCE 1
#include "../../codegen/build.h"
#include "../../support/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];       /* the cache root: a private temporary folder */
static char sentinel[300];   /* a folder a link in the entry points at */
static const unsigned char secret[32] = {
    0x5a, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
};
static const char *const entry_files[6] = {"tag", "key", "products", "m.c", "libm.a", "m_launcher"};
static const char build_key[] = "tngc fuzz\ntarget cpu\n";

#define FUZZ_ASSERT(c)                                                                                       \
    do {                                                                                                     \
        if (!(c)) {                                                                                          \
            fprintf(stderr, "fuzz_cache: oracle failed: %s (line %d)\n", #c, __LINE__);                      \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

static void put(int dfd, const char *name, const void *data, size_t n)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    if (n && write(fd, data, n) != (ssize_t)n)
        abort();
    close(fd);
}

static int sentinel_intact(void)
{
    char p[400];
    snprintf(p, sizeof p, "%s/keep", sentinel);
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(root, sizeof root, "%s/fuzz-cache-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        abort();
    snprintf(sentinel, sizeof sentinel, "%s-sentinel", root);
    if (mkdir(sentinel, 0700) != 0 && errno != EEXIST)
        abort();
    char p[400];
    snprintf(p, sizeof p, "%s/keep", sentinel);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fputs("keep\n", f);
    fclose(f);
    return 0;
}

/* The products file tngc would write for these contents. */
static void products_of(const StrBuf *piece, StrBuf *out)
{
    static const char *const names[3] = {"m.c", "libm.a", "m_launcher"};
    for (int i = 0; i < 3; i++) {
        unsigned char d[SHA256_LEN];
        char hex[2 * SHA256_LEN + 1];
        sha256(piece[3 + i].s ? piece[3 + i].s : "", piece[3 + i].len, d);
        digest_hex(d, hex);
        sb_printf(out, "%s %zu %s\n", names[i], piece[3 + i].len, hex);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16)
        return 0;
    unsigned flags = data[0];
    StrBuf piece[7] = {{0}};
    size_t np = 0;
    const char *s = (const char *)data + 1, *end = (const char *)data + size;
    while (np < 7) {
        const char *sep = memmem(s, (size_t)(end - s), "\n@@\n", 4);
        const char *e = sep ? sep : end;
        sb_putn(&piece[np++], s, (size_t)(e - s));
        if (!sep)
            break;
        s = sep + 4;
    }
    int auto_tag = piece[0].len == 4 && !memcmp(piece[0].s, "AUTO", 4);
    StrBuf key = {0};
    sb_puts(&key, build_key);
    char genuine[2 * SHA256_LEN + 2];
    build_entry_tag(secret, &piece[1], &piece[2], genuine);
    strcat(genuine, "\n");
    if (auto_tag) {
        piece[0].len = 0;
        sb_puts(&piece[0], genuine);
    }
    int tag_genuine = piece[0].len == strlen(genuine) && !memcmp(piece[0].s, genuine, piece[0].len);

    /* the entry: root/M_static_0/world/forward, its files behind a link
     * to the sentinel when bit 6 is set */
    int rfd = open(root, O_RDONLY | O_DIRECTORY);
    FUZZ_ASSERT(rfd >= 0);
    fs_rmtree_at(rfd, "M_static_0");
    FUZZ_ASSERT(mkdirat(rfd, "M_static_0", 0700) == 0);
    int mfd = openat(rfd, "M_static_0", O_RDONLY | O_DIRECTORY);
    FUZZ_ASSERT(mkdirat(mfd, "world", 0700) == 0);
    int wfd = openat(mfd, "world", O_RDONLY | O_DIRECTORY);
    if (flags & 0x40)
        FUZZ_ASSERT(symlinkat(sentinel, wfd, "forward") == 0);
    else
        FUZZ_ASSERT(mkdirat(wfd, "forward", 0700) == 0);
    int efd = openat(wfd, "forward", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (efd >= 0) {
        for (int i = 0; i < 6; i++)
            if (flags & (1u << i))
                put(efd, entry_files[i], piece[i].s ? piece[i].s : "", piece[i].len);
        if (flags & 0x80) {
            (void)symlinkat(sentinel, efd, "up");
            char k[400];
            snprintf(k, sizeof k, "%s/keep", sentinel);
            if (!(flags & (1u << 5)))
                (void)symlinkat(k, efd, "m_launcher");
        }
        GenFiles files = {0};
        GenFile f = {0};
        f.name = "m.c";
        VEC_PUSH(files, f);
        int v = build_entry_check(efd, secret, &key, &files, "m", 1);
        VEC_FREE(files);
        if (getenv("FUZZ_CACHE_VERBOSE"))
            fprintf(stderr, "fuzz_cache: verdict %d (tag %s)\n", v, tag_genuine ? "genuine" : "not genuine");
        if (!tag_genuine || !(flags & 1))
            FUZZ_ASSERT(v == BUILD_ENTRY_FOREIGN);
        if (v == BUILD_ENTRY_OK) {
            StrBuf want = {0};
            products_of(piece, &want);
            FUZZ_ASSERT((flags & 0x3f) == 0x3f);
            FUZZ_ASSERT(piece[1].len == key.len && !memcmp(piece[1].s, key.s, key.len));
            FUZZ_ASSERT(piece[2].len == want.len && !memcmp(piece[2].s, want.s, want.len));
            sb_free(&want);
        }
        close(efd);
    } else {
        FUZZ_ASSERT(flags & 0x40);   /* only the link refuses O_NOFOLLOW */
    }

    /* a path below the root from the input: never opened through a link */
    if (np == 7 && piece[6].len && !memchr(piece[6].s, 0, piece[6].len)) {
        int fd = fs_open_below(root, piece[6].s, 0);
        if (fd >= 0) {
            struct stat a, b;
            FUZZ_ASSERT(fstat(fd, &a) == 0 && stat(sentinel, &b) == 0);
            FUZZ_ASSERT(!(a.st_dev == b.st_dev && a.st_ino == b.st_ino));
            close(fd);
        }
    }
    close(wfd);
    close(mfd);
    fs_rmtree_at(rfd, "M_static_0");
    struct stat st;
    FUZZ_ASSERT(fstatat(rfd, "M_static_0", &st, AT_SYMLINK_NOFOLLOW) != 0);
    FUZZ_ASSERT(sentinel_intact());
    close(rfd);
    for (size_t i = 0; i < 7; i++)
        sb_free(&piece[i]);
    sb_free(&key);
    return 0;
}
