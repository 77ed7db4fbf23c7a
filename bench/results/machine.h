// bench/results/machine.h — facts about the machine a process runs on that its records carry:
// the CPU model (the first "model name" of /proc/cpuinfo). Run files record it as the root
// attribute cpu_model (bench/train/train.c); benchmark files as their cpu_model fact
// (bench/perf/regress.c); `posbench --version` prints it. And the scheduler's account of this
// process's threads: run files record the wait for a CPU beside their timings.
#pragma once
#include <stddef.h>

// The CPU model into out ("unknown" when /proc/cpuinfo cannot be read or names none).
void machine_cpu_model(char *out, size_t len);

// How long this process's threads have run on a CPU and how long they waited, runnable, for one
// (Linux's per-thread /proc/self/task/<tid>/schedstat: nanoseconds on the CPU, nanoseconds on a
// run queue), summed over the threads alive now. The difference of two readings is the CPU
// contention other processes put on what ran between them: a run waiting a third of its runnable
// time for a CPU has timings a third longer than the machine gives one process alone. known = 0
// when the kernel gives no schedstat (nothing is then claimed).
typedef struct {
    double run_s, wait_s;
    int known;
} machine_sched_time;
machine_sched_time machine_sched_now(void);
// wait / (run + wait) of the span between two readings; NAN when either is unknown or nothing ran.
double machine_sched_wait_fraction(machine_sched_time from, machine_sched_time to);
