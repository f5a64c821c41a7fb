/*
 * tngrt_rank.h - the rank of a launcher of a bundle built with --target acl
 * --world-size N > 1 (docs/bundles.md, "On Ascend NPUs: HCCL"): one process per
 * rank, started the way Ascend launch scripts start them, each with
 * $RANK_ID (its rank) and $RANK_TABLE_FILE (the cluster's rank table, which
 * the bundle hands to HcclCommInitClusterInfo). No MPI: part of
 * libtngcrt_core.
 */
#ifndef TNGRT_RANK_H
#define TNGRT_RANK_H

/* Reads $RANK_ID, checks that it is a rank of 0..world_size-1 and replaces
 * every "{rank}" in argv[1..argc) by it (--weights w{rank}.pt). Returns
 * 0, or 2 after one line on stderr naming prog. */
int tngrt_rank_begin(int *argc, char ***argv, int world_size, const char *prog);
/* s with every "{rank}" replaced by rank: s itself when it has none (or
 * when no memory is left), else a new string the caller never frees (a
 * launcher's arguments live until exit). The MPI launcher's start
 * (tngrt_mpi_begin) uses it too. */
char *tngrt_rank_subst(char *s, int rank);

#endif
