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

/* A private anonymous mapping of at least bytes (bytes >= 1), its start
 * and length BLOCK_HUGE_PAGE-aligned, advised MADV_HUGEPAGE; NULL when the
 * mapping fails. Over-maps by one huge page and unmaps the ends. */
static void *block__map(size_t bytes, size_t *maplen)
{
#ifdef MADV_HUGEPAGE
    size_t len = (bytes + BLOCK_HUGE_PAGE - 1) / BLOCK_HUGE_PAGE * BLOCK_HUGE_PAGE;
    size_t over = len + BLOCK_HUGE_PAGE, head;
    unsigned char *p, *q;
    if (len < bytes || over < len)
        return NULL;
    p = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    q = p + (BLOCK_HUGE_PAGE - (uintptr_t)p % BLOCK_HUGE_PAGE) % BLOCK_HUGE_PAGE;
    head = (size_t)(q - p);
    if (head > 0)
        (void)munmap(p, head);
    if (over - head > len)
        (void)munmap(q + len, over - head - len);
    (void)madvise(q, len, MADV_HUGEPAGE);   /* advice: refused, the block still works */
    *maplen = len;
    return q;
#else
    (void)bytes;
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
        void *m = block__map((size_t)bytes, &b->maplen);
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
