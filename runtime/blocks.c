/*
 * blocks.c - the long-lived blocks of a bundle (its weights, their
 * packings, its arena) and the transparent huge pages behind the large
 * ones.
 *
 * A decode step streams every weight once, and how fast one core streams
 * depends on the page size: summing a 512 MiB buffer on the 2-core
 * machine of BENCHMARKS.md read 21-23 GB/s on 4 KiB pages and 28-31 GB/s
 * on 2 MiB ones (the hardware prefetchers restart at every 4 KiB page).
 * Linux backs anonymous memory with 2 MiB pages where
 * /sys/kernel/mm/transparent_hugepage/enabled says "always", or
 * "madvise" and the range is advised MADV_HUGEPAGE (Debian's default is
 * madvise), and only for 2 MiB-aligned ranges. So a block of at least
 * TNGRT_BLOCK_HUGE bytes is a private anonymous mapping of its own,
 * 2 MiB-aligned, advised MADV_HUGEPAGE before anything touches it (its
 * pages are zero until written); smaller blocks come from malloc.
 * The same holds for a weights file read in place: safetensors.c maps a
 * large one at a 2 MiB-aligned address advised MADV_HUGEPAGE, which lets
 * a kernel whose page cache holds 2 MiB folios (ext4 and XFS on recent
 * Linux) map them whole.
 *
 * TNGRT_HUGEPAGES=0 in the environment turns this off: large blocks are
 * then malloc'd and files mapped where mmap puts them, unadvised.
 */
#define _DEFAULT_SOURCE   /* madvise, MADV_HUGEPAGE, MAP_ANONYMOUS */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The size and alignment of a transparent huge page on x86-64 and
 * aarch64 with 4 KiB base pages. */
#define BLOCK_HUGE_PAGE ((size_t)2 << 20)

int tngrt__huge_pages(void)
{
#ifdef MADV_HUGEPAGE
    const char *env = getenv("TNGRT_HUGEPAGES");
    char line[128];
    FILE *f;
    int on = 0;
    if (env && strcmp(env, "0") == 0)
        return 0;
    /* the kernel's setting, e.g. "always [madvise] never": the bracketed
     * word is the one in force */
    f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    if (fgets(line, sizeof line, f))
        on = strstr(line, "[always]") != NULL || strstr(line, "[madvise]") != NULL;
    fclose(f);
    return on;
#else
    return 0;
#endif
}

void *tngrt__map_huge(int fd, size_t len, size_t *maplen)
{
#ifdef MADV_HUGEPAGE
    long ps = sysconf(_SC_PAGESIZE);
    size_t unit = fd < 0 ? BLOCK_HUGE_PAGE : (size_t)ps, mapped, over;
    unsigned char *r, *q;
    void *p;
    if (len < 1 || ps <= 0 || BLOCK_HUGE_PAGE % (size_t)ps != 0 ||
        len > SIZE_MAX - 2 * BLOCK_HUGE_PAGE)
        return NULL;
    mapped = (len + unit - 1) / unit * unit;
    over = mapped + BLOCK_HUGE_PAGE;
    r = mmap(NULL, over, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    q = r + (BLOCK_HUGE_PAGE - (uintptr_t)r % BLOCK_HUGE_PAGE) % BLOCK_HUGE_PAGE;
    p = fd < 0 ? mmap(q, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                      -1, 0)
               : mmap(q, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        (void)munmap(r, over);
        return NULL;
    }
    if (q > r)
        (void)munmap(r, (size_t)(q - r));
    if (r + over > q + mapped)
        (void)munmap(q + mapped, (size_t)(r + over - (q + mapped)));
    (void)madvise(q, mapped, MADV_HUGEPAGE);   /* advice: refused, the mapping still works */
    *maplen = mapped;
    return q;
#else
    (void)fd;
    (void)len;
    (void)maplen;
    return NULL;
#endif
}

void *tngrt__block_alloc(TngrtBlock *b, uint64_t bytes, int zero, int huge)
{
    unsigned char *p;
    size_t align = TNGRT_BLOCK_ALIGN;
    b->raw = NULL;
    b->maplen = 0;
    if (bytes > TNGRT_BLOCK_MAX)
        return NULL;
    if (bytes == 0)
        bytes = 1;
    if (huge && bytes >= TNGRT_BLOCK_HUGE) {
        void *m = tngrt__map_huge(-1, (size_t)bytes, &b->maplen);
        if (m) {
            b->raw = m;
            return m;   /* fresh anonymous pages: zero already */
        }
        b->maplen = 0;
    }
    p = zero ? calloc(1, (size_t)bytes + align) : malloc((size_t)bytes + align);
    if (!p)
        return NULL;
    b->raw = p;
    return p + (align - (uintptr_t)p % align) % align;
}

void tngrt__block_free(TngrtBlock *b)
{
    if (b->maplen)
        (void)munmap(b->raw, b->maplen);
    else
        free(b->raw);
    b->raw = NULL;
    b->maplen = 0;
}
