// bench/results/machine.c — the machine facts of machine.h, read from /proc/cpuinfo and
// /proc/self/task/*/schedstat.
#include "machine.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void machine_cpu_model(char *out, size_t len) {
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && c) {
            c++;
            while (*c == ' ') c++;
            snprintf(out, len, "%.*s", (int)strcspn(c, "\n"), c);
            break;
        }
    }
    if (fclose(f) != 0) snprintf(out, len, "unknown");
}

machine_sched_time machine_sched_now(void) {
    machine_sched_time t = {0.0, 0.0, 0};
    DIR *d = opendir("/proc/self/task");
    if (!d) return t;
    unsigned long long run_ns = 0, wait_ns = 0;
    int threads = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue; // ".", ".."
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; // a thread that ended since the listing; no schedstat at all: none read, unknown
        unsigned long long r = 0, w = 0;
        int got = fscanf(f, "%llu %llu", &r, &w);
        if (fclose(f) != 0 || got != 2) continue;
        run_ns += r, wait_ns += w, threads++;
    }
    if (closedir(d) != 0 || threads == 0) return t; // (threads == 0: the kernel keeps no schedstat)
    t.run_s = (double)run_ns * 1e-9, t.wait_s = (double)wait_ns * 1e-9, t.known = 1;
    return t;
}

double machine_sched_wait_fraction(machine_sched_time from, machine_sched_time to) {
    if (!from.known || !to.known) return NAN;
    double run = to.run_s - from.run_s, wait = to.wait_s - from.wait_s;
    if (!(run > 0.0) || wait < 0.0) return NAN;
    return wait / (run + wait);
}
