/*
 * rank.c - a launcher's rank from $RANK_ID (tngrt_rank.h).
 */
#include "tngrt_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tngrt_rank_subst(char *s, int rank)
{
    static const char key[] = "{rank}";
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, key)) != NULL; p += sizeof key - 1)
        n++;
    if (n == 0)
        return s;
    char *r = malloc(strlen(s) + n * 16 + 1);
    if (!r)
        return s;
    char *o = r;
    for (const char *p = s;;) {
        const char *q = strstr(p, key);
        if (!q) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        o += sprintf(o, "%d", rank);
        p = q + sizeof key - 1;
    }
    return r;
}

int tngrt_rank_begin(int *argc, char ***argv, int world_size, const char *prog)
{
    const char *s = getenv("RANK_ID");
    char *end = NULL;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    if (v < 0 || v >= world_size || (end && *end)) {
        fprintf(stderr, "%s: the bundle was built for %d ranks (--world-size): set RANK_ID to this process's "
                "rank, 0 to %d (RANK_ID='%s'), and RANK_TABLE_FILE to the cluster's rank table\n", prog,
                world_size, world_size - 1, s ? s : "");
        return 2;
    }
    for (int i = 1; i < *argc; i++)
        (*argv)[i] = tngrt_rank_subst((*argv)[i], (int)v);
    return 0;
}
