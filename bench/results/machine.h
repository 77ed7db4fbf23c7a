// bench/results/machine.h — facts about the machine a process runs on that its records carry:
// the CPU model (the first "model name" of /proc/cpuinfo). Run files record it as the root
// attribute cpu_model (bench/train/train.c); benchmark files as their cpu_model fact
// (bench/perf/regress.c); `posbench --version` prints it.
#pragma once
#include <stddef.h>

// The CPU model into out ("unknown" when /proc/cpuinfo cannot be read or names none).
void machine_cpu_model(char *out, size_t len);
