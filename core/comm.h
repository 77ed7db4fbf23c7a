// core/comm.h — the communicator of one run across processes (data-parallel training): the
// rank and the number of ranks, a deterministic sum of a buffer over the ranks, broadcast,
// barrier and abort. The sum is the same bits on every rank and for every transport: element i
// becomes ((b_0[i] + b_1[i]) + b_2[i]) + ... in rank order 0..size-1, in the buffer's own type
// (never a library's reduction, whose order depends on its algorithm and timing); so a run on N
// ranks equals train.accumulate=N in one process bitwise. Implementations: one process
// (comm.c, always built: the sum is the buffer itself) and MPI (comm_mpi.c, built when mpicc is
// found: reduce-scatter by fixed chunks, each summed in rank order, then all-gather). Every
// transport call is checked; a failure names the call and aborts the whole job (exit 1), as does
// any die_input / die_fail on any rank once the MPI communicator is up (core/common.h
// set_die_hook). Buffers are host memory: a CUDA rank's gradient goes through host copies
// (bench/train/train_step.c); a transport on device buffers (NCCL) is issue 33's open part.
#pragma once
#include <stddef.h>

typedef struct comm {
    const char *name; // "single" or "mpi"
    int rank, size;
    // buf (n) on every rank becomes the sum over the ranks, added in rank order (see above).
    void (*sum_f32)(float *buf, size_t n);
    void (*sum_f64)(double *buf, size_t n);
    // bytes of root's buf to every rank's buf.
    void (*broadcast)(void *buf, size_t bytes, int root);
    void (*barrier)(void);
    // Ends every rank of the job with this exit code (after the caller printed why).
    void (*abort)(int code);
} comm;

// The single-process communicator: rank 0 of 1.
const comm *comm_single(void);
// Ranks a launcher started for this job, from its environment (OpenMPI's mpirun:
// OMPI_COMM_WORLD_SIZE; MPICH / Slurm PMI: PMI_SIZE); 0 when the process was not started by one.
int comm_launched_size(void);
// The process's communicator, made once: MPI when a launcher started the process and this
// build has MPI (MPI_Init here, MPI_Finalize at exit); the single-process one when no launcher
// did. A launcher's job of several processes in a build without MPI is bad input (exit 2: each
// process would train the whole run on its own and write the same files).
const comm *comm_world(void);

// comm_mpi.c: whether this build has MPI, and its communicator (MPI_Init; NULL without MPI).
int comm_mpi_built(void);
const comm *comm_mpi_init(void);
