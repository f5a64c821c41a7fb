/*
 * tngrt_mpi.h - libtngcrt_mpi: what a bundle built with --world-size N > 1
 * links beside libtngcrt (docs/bundles.md, "Tensor parallel over MPI").
 *
 * One process per rank, started by mpirun. The launcher calls
 * tngrt_mpi_begin first and tngrt_mpi_end last; the bundle's dispatcher
 * picks the rank's plan with tngrt_mpi_rank; the collectives' kernels
 * (tngrt_kernel_all_reduce ... declared in tngrt_kernels.h) call MPI on
 * MPI_COMM_WORLD or on a communicator of the group's ranks.
 *
 * Every collective waits at most tngrt_mpi_timeout() seconds
 * ($TNGRT_MPI_TIMEOUT, default 60): past it the rank prints one line and
 * aborts every rank (MPI_Abort), so a rank that failed or stopped makes
 * the whole job exit non-zero instead of hanging. Unlike the rest of
 * libtngcrt these calls keep process-wide state (MPI's) and the launcher
 * hooks print to stderr: they are the launcher's part.
 */
#ifndef TNGRT_MPI_H
#define TNGRT_MPI_H

/* Initialises MPI (MPI_THREAD_SERIALIZED: stream workers call collectives,
 * one at a time, mpi.c) and checks that the job has world_size ranks; replaces every "{rank}"
 * in argv[1..argc) by the rank (--weights w{rank}.safetensors). Returns
 * 0, or an exit status (2) after one line on stderr naming prog (the job
 * then aborts every rank). */
int tngrt_mpi_begin(int *argc, char ***argv, int world_size, const char *prog);

/* The rank of this process in MPI_COMM_WORLD, or -1 before
 * tngrt_mpi_begin. */
int tngrt_mpi_rank(void);

/* The end of the launcher: rc 0, a barrier (within the timeout) then
 * MPI_Finalize, returns 0; rc != 0, one line on stderr naming prog and
 * the rank, then MPI_Abort(rc): every rank exits non-zero. */
int tngrt_mpi_end(int rc, const char *prog);

/* Seconds a collective may wait: $TNGRT_MPI_TIMEOUT (a positive number),
 * else 60. */
double tngrt_mpi_timeout(void);

#endif
