// core/comm_env.h — the launcher's environment as the communicators (core/comm.h) read it:
// counts of ranks and tasks, and the collectives' timeouts (comm_env.c).
#pragma once

// A positive count from environment variable `name`; 0 when unset or not a count (1 .. 2^20).
int comm_env_count(const char *name);
// Ranks a launcher started for this job, from its environment (OpenMPI's mpirun:
// OMPI_COMM_WORLD_SIZE; MPICH / srun --mpi=pmi2: PMI_SIZE; srun --mpi=pmix: PMIX_RANK with
// SLURM_STEP_NUM_TASKS, or 1 when a PMIx launcher names no size: MPI_Init finds it); 0 when
// the process was not started by one.
int comm_launched_size(void);
// The seconds a collective may wait for the other ranks: environment variable `var` (e.g.
// POSBENCH_MPI_TIMEOUT_S) when set, else default_s; a value that is not a number > 0 is bad
// input (exit 2 naming the variable).
double comm_timeout_seconds(const char *var, double default_s);
