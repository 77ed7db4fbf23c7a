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
// set_die_hook). Buffers are host memory, except sum_f32_device's: CUDA ranks whose NCCL
// loads (core/cuda/comm_nccl.cu) sum the gradient on the device; otherwise a CUDA rank's
// gradient goes through host copies (bench/train/train_step.c).
#pragma once
#include "comm_env.h"
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
    // The same rank-ordered sum on a CUDA device buffer (NCCL: comm_nccl_attach); NULL: none.
    void (*sum_f32_device)(float *device_buf, size_t n);
} comm;

// The single-process communicator: rank 0 of 1.
const comm *comm_single(void);
// comm_launched_size, comm_timeout_seconds: the launcher's environment (comm_env.h).
// The process's communicator, made once: MPI when a launcher started the process and this
// build has MPI (MPI_Init here, MPI_Finalize at exit); the single-process one when no launcher
// did. A launcher's job of several processes in a build without MPI is bad input (exit 2: each
// process would train the whole run on its own and write the same files), and so is a step of
// several srun tasks without an MPI plugin (SLURM_STEP_NUM_TASKS > 1, no PMI variables).
const comm *comm_world(void);

// comm_mpi.c: whether this build has MPI, and its communicator (MPI_Init; NULL without MPI).
int comm_mpi_built(void);
const comm *comm_mpi_init(void);

// core/cuda/comm_nccl.cu: the communicator `host` (its rank, size, broadcast, barrier, abort and
// host sums) with sum_f32_device over NCCL among its ranks, each on its current CUDA device
// (one GPU a rank: CUDA_VISIBLE_DEVICES per rank on a node of several). Collective: every rank
// of host calls it at once (rank 0 makes the ncclUniqueId; host's broadcast sends it). The sum's
// order is fixed: the buffer is cut into size chunks of ceil(n / size) floats; rank c receives
// chunk c of every rank (ncclSend / ncclRecv) and adds them in rank order 0..size-1 on the
// device, then ncclAllGather gives every rank every summed chunk: the bits of core/comm.h's sum,
// never ncclAllReduce's. Non-blocking NCCL: every wait polls ncclCommGetAsyncError and gives
// up after POSBENCH_NCCL_TIMEOUT_S seconds (default 300), aborting the job (exit 1) naming the
// step that hung, so a dead rank ends the job. libnccl.so.2 is loaded at run time (dlopen;
// POSBENCH_NCCL_LIB names a file, else the loader's search path, then /usr/local/cuda/lib and
// lib64), so posbench neither links nor ships it. NULL, with why, when it cannot be used (a
// build without CUDA, no GPU, no libnccl, an NCCL error).
const comm *comm_nccl_attach(const comm *host, char *why, size_t len);
// For tests: out (chunk) = the sum of `size` device parts (size, chunk) in rank order on the
// device, as comm_nccl's sum adds them (a build without CUDA: an error).
void comm_nccl_rank_order_sum(float *out, const float *parts, int size, size_t chunk);
