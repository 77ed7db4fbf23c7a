// core/comm_env.c — what a launcher's environment says to the communicators (comm_env.h): the
// number of ranks it started and the collectives' timeouts. A leaf: comm.c (the choice of
// communicator), comm_mpi.c and cuda/comm_nccl.cu (their timeouts) call it, it calls none of them.
#include "comm_env.h"
#include "common.h"
#include <stdlib.h>

int comm_env_count(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    long n = strtol(v, &end, 10);
    return *end == '\0' && n >= 1 && n <= 1 << 20 ? (int)n : 0;
}

int comm_launched_size(void) {
    int n = comm_env_count("OMPI_COMM_WORLD_SIZE"); // OpenMPI's mpirun
    if (n == 0) n = comm_env_count("PMI_SIZE");     // PMI-1/2 launchers: MPICH's, srun --mpi=pmi2
    if (n == 0 && getenv("PMIX_RANK")) {       // PMIx launchers (srun --mpi=pmix) name no size: srun's task count, else MPI finds it
        n = comm_env_count("SLURM_STEP_NUM_TASKS");
        if (n == 0) n = 1;
    }
    return n;
}

double comm_timeout_seconds(const char *var, double default_s) {
    const char *t = getenv(var);
    if (!t || !*t) return default_s;
    char *end;
    double v = strtod(t, &end);
    if (end == t || *end != '\0' || !(v > 0) || v > 1e9)
        die_input("%s=%s: not a number of seconds (valid: a number > 0 and at most 1e9)", var, t);
    return v;
}
