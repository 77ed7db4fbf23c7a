// bench/train/cpu_busy.h — a warning before training when a run's OpenMP threads would wait on cores
// that other programs hold. A thread that finishes its share of a parallel region first waits for
// the others, and libgomp's waiting thread spins (OMP_WAIT_POLICY unset or active): on a machine
// whose cores are already busy, the spinning threads take the time the working ones need. Seen on
// the 2-core Xeon beside two single-thread jobs: a speech run at the default 2 threads trained 33
// clips/s, the same run with --threads 1 and OMP_WAIT_POLICY=passive 425. Results do not depend on
// the thread count or the wait policy, only the time does. `posbench run` (before its first run
// starts) and `posbench train` (before its first step, once its input is checked) print it once,
// to standard error, from the last minute's load average (/proc/loadavg).
#pragma once
#include <stddef.h>

// The 1-minute load average from a /proc/loadavg-format file: 0 with *load1 set, -1 when the file
// cannot be read or does not start with a number.
int cpu_load1_read(const char *path, double *load1);

// The warning for `jobs` runs of `threads` OpenMP threads each on `cores` cores at load average
// `load1`, with OMP_WAIT_POLICY `wait_policy` (NULL when unset), written into out: 1 when there is
// one (more than one thread per run, waits not passive, and jobs x threads above the cores the
// load leaves free by more than half a core), else 0 and out empty.
int cpu_busy_warning(double load1, long cores, int jobs, int threads, const char *wait_policy, char *out, size_t len);

// Reads /proc/loadavg and the online cores and prints cpu_busy_warning's text on stderr, if any.
void cpu_busy_warn(int jobs, int threads);
