// bench/perf/perf.h — `posbench bench`: training-step speed of reference ViT configs against the
// in-process OpenBLAS sgemm rate and against the same step in PyTorch on the CPU.
#pragma once
#include <stddef.h>

typedef struct {
    int iters;          // timed steps per config (median reported)
    int torch;          // 1: also time PyTorch (Debian's /usr/bin/python3) in the same run
    const char *only;   // run only the config with this name (NULL: all)
    const char *device; // --device (core/device.h; NULL = auto)
    const char *precision; // --precision fp32|bf16 (train.precision of the timed step; NULL = fp32)
    // --attention auto|materialised|fused|cudnn|materialised-inplace: the CUDA training attention
    // (core/ops_cuda.h's route; NULL = the environment's POSBENCH_ATTENTION, else auto). materialised,
    // cudnn and materialised-inplace need bf16; the CPU backends have one attention and refuse anything but auto.
    const char *attention;
    // --linear gemmex|lt and --kernels v1|v2: the CUDA backend's linear route and elementwise
    // kernels (core/ops_cuda.h; NULL = what POSBENCH_LINEAR / POSBENCH_KERNELS or the defaults
    // chose). The CPU backends have one of each and refuse them.
    const char *linear, *kernels;
    // --activations fp32|bf16: train.activations of the timed step (NULL = fp32; bf16 needs
    // --precision bf16). A config whose model cannot store bf16 activations (gMLP, masked
    // attention) runs with fp32 ones, and its row says so.
    const char *activations;
    // --recompute off|gelu: train.recompute of the timed step (NULL = off; gelu needs --activations bf16):
    // the configs with bf16 activations keep no GELU output per block and recompute it in the backward.
    const char *recompute;
    int breakdown;      // --breakdown: each step's phases (upload, forward, zero, backward, optimizer) and host waits
    int graph;          // --graph on: the step without host reads, replayed as a CUDA graph where it can (train.graph)
    int arena_only;     // --arena-only: print each config's predicted arena by part (bench/perf/arena_plan.h), run nothing
} perf_options;

// Dies (exit 2) unless v is one of --attention's values, naming them (and the closest one).
void perf_check_attention(const char *v);

int perf_run(const perf_options *opt);
// The training step of benchmark config `name` timed iters times (after 2 warmup steps): each
// step's seconds into samples[iters], its FLOPs (3 x forward), batch size and the peak bytes of
// the backend's arenas (model, activations, AdamW: deterministic); returns the median seconds,
// or -1 when name is not a config.
double perf_step_samples(const char *name, int iters, double *samples, double *flops_per_step, int *batch,
                         size_t *arena_peak);
// The arena of benchmark config `name`'s step on the CPU backend at bf16 (1: train.precision=bf16)
// and bf16_activations (1: train.activations=bf16 where the model can; recompute_gelu 1: with
// train.recompute=gelu there): as --arena-only predicts
// it under `rules` and route setting `route` (CUDA_ATTN_*; ARENA_RULES_CPU ignores it), into
// *plan, and, when measured is not NULL, as one timed step measures it (ops memory_peak) into
// *measured. Returns 0, or -1 when name is not a config. (tests/test_arena_plan.c)
struct arena_plan;
int perf_arena_check(const char *name, int bf16, int bf16_activations, int recompute_gelu, int rules, int route,
                     struct arena_plan *plan, size_t *measured);
void perf_help(void);
