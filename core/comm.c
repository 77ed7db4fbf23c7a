// core/comm.c — the single-process communicator (core/comm.h) and the choice of the process's
// communicator: MPI when a launcher (mpirun, srun) started the process and the build has it.
// What the launcher's environment says is read in comm_env.c, which comm_mpi.c also calls, so
// no two of these files call each other.
#include "comm.h"
#include "common.h"
#include <stdlib.h>
#include <string.h>

static void single_sum_f32(float *buf, size_t n) { (void)buf, (void)n; }
static void single_sum_f64(double *buf, size_t n) { (void)buf, (void)n; }
static void single_broadcast(void *buf, size_t bytes, int root) { (void)buf, (void)bytes, (void)root; }
static void single_barrier(void) {}
static void single_abort(int code) { exit(code); }

static const comm single = {.name = "single", .rank = 0, .size = 1, .sum_f32 = single_sum_f32, .sum_f64 = single_sum_f64,
                            .broadcast = single_broadcast, .barrier = single_barrier, .abort = single_abort};

const comm *comm_single(void) { return &single; }

const comm *comm_world(void) {
    static const comm *world;
    if (world) return world;
    int launched = comm_launched_size();
    int srun_tasks = comm_env_count("SLURM_STEP_NUM_TASKS");
    if (launched == 0 && srun_tasks > 1) // each task would be an MPI singleton training the whole run
        die_input("started as task %s of %d by srun without an MPI plugin: the tasks cannot reach each other, so each "
                  "would train the whole run (valid: srun --mpi=pmix or --mpi=pmi2, or posbench train --ranks %d, which "
                  "starts mpirun in the allocation; separate runs in one job step: posbench run or posbench slurm)",
                  getenv("SLURM_PROCID") ? getenv("SLURM_PROCID") : "?", srun_tasks, srun_tasks);
    if (launched == 0) return world = &single;
    if (!comm_mpi_built()) {
        if (launched > 1)
            die_input("started as one of %d processes by an MPI launcher, but this posbench was built without MPI "
                      "(install libopenmpi-dev and openmpi-bin: make deps, then rebuild with make)", launched);
        return world = &single;
    }
    return world = comm_mpi_init();
}

#ifndef POSBENCH_CUDA
#include <stdio.h>
void comm_nccl_rank_order_sum(float *out, const float *parts, int size, size_t chunk) {
    (void)out, (void)parts, (void)size, (void)chunk;
    die_fail("comm_nccl_rank_order_sum: this build has no CUDA backend");
}
const comm *comm_nccl_attach(const comm *host, char *why, size_t len) { // comm.h; the CUDA build's is comm_nccl.cu
    (void)host;
    snprintf(why, len, "this build has no CUDA backend (nvcc was not found when it was built), so no NCCL");
    return NULL;
}
#endif
