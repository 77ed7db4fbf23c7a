// bench/train/cpu_busy.c — the busy-cores warning before training (cpu_busy.h).
#include "cpu_busy.h"
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

int cpu_load1_read(const char *path, double *load1) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    double v;
    int got = fscanf(f, "%lf", &v);
    fclose(f);
    if (got != 1 || !(v >= 0.0)) return -1;
    *load1 = v;
    return 0;
}

int cpu_busy_warning(double load1, long cores, int jobs, int threads, const char *wait_policy, char *out, size_t len) {
    if (len) out[0] = 0;
    if (threads < 2 || jobs < 1 || cores < 1 || (wait_policy && !strcasecmp(wait_policy, "passive"))) return 0;
    double free_cores = (double)cores - load1, wanted = (double)jobs * threads;
    if (wanted <= free_cores + 0.5) return 0;
    snprintf(out, len,
             "warning: this machine is busy (load average %.1f over the last minute on %ld core%s) and %s %d "
             "OpenMP threads%s: a thread that waits spins on a core another program needs, which can make training many "
             "times slower (results are the same); --threads %d%s or OMP_WAIT_POLICY=passive avoids it",
             load1, cores, cores == 1 ? "" : "s", jobs > 1 ? "its runs use" : "the run uses", threads, jobs > 1 ? " per job" : "", jobs > 1 ? jobs : 1,
             jobs > 1 ? " (one thread per job)" : "");
    return 1;
}

void cpu_busy_warn(int jobs, int threads) {
    double load1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char text[512];
    if (cpu_load1_read("/proc/loadavg", &load1) == 0 &&
        cpu_busy_warning(load1, cores, jobs, threads, getenv("OMP_WAIT_POLICY"), text, sizeof text))
        fprintf(stderr, "posbench: %s\n", text);
}
