// bench/run/sgemm_cache.c — the day-long per-machine cache of the estimate's sgemm rate
// (sgemm_cache.h).
#include "sgemm_cache.h"
#include "estimate.h"
#include "../version.h"
#include "../results/machine.h"
#include "../../core/common.h"
#include "../../core/user_cache.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_NAME "sgemm-rate"

// The lines that name this machine and build: the cache is valid only when they match.
static void identity(char *out, size_t len) {
    char host[256] = "unknown", cpu[256], exe[4096];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    machine_cpu_model(cpu, sizeof cpu);
    struct stat st;
    long long size = -1, mtime = -1;
    if (self_exe_path(exe, sizeof exe) == 0 && stat(exe, &st) == 0) size = (long long)st.st_size, mtime = (long long)st.st_mtime;
    snprintf(out, len, "posbench sgemm rate per CPU second, valid for a day\nhost %s\ncpu %s\nbuild %s %s %lld %lld\n", host, cpu,
             POSBENCH_VERSION, posbench_git_commit, size, mtime);
}

// The cached rate when the file is valid for this machine and build and fresh: 1; 0 when there
// is none or it is for another machine, build or day; -1 when it is damaged (warned).
static int cached(const char *who, double *rate) {
    char path[4200], err[4600], *body = NULL;
    int rc = user_cache_read(CACHE_NAME, path, sizeof path, &body, err, sizeof err);
    if (rc < 0) {
        warn_msg("%s; measuring the sgemm rate again and rewriting it", err);
        return -1;
    }
    if (rc == 0) return 0;
    size_t n = strlen(who);
    int ok = 0;
    if (!strncmp(body, who, n)) { // this machine and build: the rest must parse
        long long measured = 0;
        double g = NAN;
        int used = 0;
        if (sscanf(body + n, "measured %lld\ngflops %lf\n%n", &measured, &g, &used) != 2 || body[n + used] != '\0' ||
            !(g > 0.0) || !isfinite(g)) {
            warn_msg("%s: damaged cache file (the lines after \"build\" are not \"measured SECONDS\" and \"gflops RATE\"); "
                     "measuring the sgemm rate again and rewriting it", path);
            free(body);
            return -1;
        }
        long long now = (long long)time(NULL), age = now - measured;
        if (age >= 0 && age < SGEMM_CACHE_MAX_AGE_S) *rate = g, ok = 1;
    }
    free(body);
    return ok;
}

double sgemm_rate_cached(void) {
    char who[4800];
    identity(who, sizeof who);
    double rate;
    if (cached(who, &rate) == 1) return rate;
    rate = estimate_sgemm_cpu_gflops();
    if (!(rate > 0.0) || !isfinite(rate)) return rate;
    char body[5000], err[4600];
    snprintf(body, sizeof body, "%smeasured %lld\ngflops %.17g\n", who, (long long)time(NULL), rate);
    if (user_cache_write(CACHE_NAME, body, err, sizeof err) != 0)
        warn_msg("%s (the sgemm rate is measured again next time)", err);
    return rate;
}
