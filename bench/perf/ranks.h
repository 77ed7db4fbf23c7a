// bench/perf/ranks.h — `posbench bench --ranks N` (ranks.c): the scaling of one run across
// processes at the same global batch, beside the communication volume of a step.
#pragma once

// Trains a small fixed config for `iters` steps in one process (threads × ranks threads) and
// under `mpirun -np ranks` (threads each), both at one global batch, and prints the median step
// times, the speedup, the efficiency t_1 / (N t_N) and the bytes each rank sends per step.
// Exit status: 0, 1 when a training failed, 2 bad input (no MPI build, no mpirun, ranks < 2).
int bench_ranks(int ranks, int iters, int threads);
