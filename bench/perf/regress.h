// bench/perf/regress.h — regression benchmarks: `posbench bench --save FILE` writes this
// machine's measurements to a text file, `--compare BASELINE` measures again (or reads
// `--result FILE`) and compares metric by metric, exiting 1 when something regressed.
//
// What is measured (bench_measure), in this order:
//   for each benchmark config (perf.h; --config NAME for one), `rounds` rounds of: OpenBLAS
//   sgemm 1024³ (median of 7), then `iters` timed training steps. Metrics:
//     <config>/step_x_sgemm  time    each step's seconds × that round's sgemm GFLOP/s: the
//                                    sgemm work one step is worth, so a uniformly faster or
//                                    slower machine leaves it unchanged (lower is better)
//     <config>/arena_mib     memory  the peak of the backend's arenas in the config's step
//                                    (model, activations, AdamW): what posbench allocates,
//                                    deterministic, unlike the process's resident memory
//     <config>/peak_rss_mib, <config>/step_ms, <config>/frac_of_sgemm, sgemm_gflops   info
//                                    (shown, not compared; peak_rss_mib is VmHWM so far: it
//                                    moved by 12% with the same binary and config, between a
//                                    --save and a --compare run, so it cannot be a criterion)
//   probes (unless --no-probes): short fixed trainings on the first 1024 Fashion-MNIST
//   training images, tested on the first 500 test images (regress.c lists their keys):
//     probe/<name>/loss, probe/<name>/top1   probe   the run's /final loss and top1
// Machine facts: cpu_model, cores, threads, openblas (its config string), hdf5, compiler,
// commit, date.
//
// File format (UTF-8 text, tab-separated fields, '#' comment lines and blank lines ignored):
//   posbench-bench	1                        first line: the format and its version
//   machine	KEY	VALUE                      a fact
//   metric	NAME	KIND	V1	V2	...          KIND time (>= 2 values), memory, probe, info
// Values are finite decimal numbers (written with %.17g, so they read back exactly), > 0 for
// time and memory; a NAME appears once; every line ends with a newline (a last line without
// one is a file cut while written). Errors name "FILE:LINE: what is wrong" (exit 2).
//
// Comparison (bench_compare), one row per metric of either file:
//   time    ratio = exp(mean log now − mean log baseline) (geometric-mean ratio), 95% CI and
//           one-sided p from Welch's t-test on the logs (significance.h). "slower" — a
//           regression — when ratio > 1 + time_threshold AND p < 0.01 for now > baseline;
//           "faster" when ratio < 1/(1 + time_threshold) and p < 0.01 the other way; "same"
//           when the CI lies within [1/(1 + t), 1 + t]; else "noisy" (never a failure).
//   memory  ratio of means; "more" — a regression — above 1 + memory_threshold, "less" below
//           1/(1 + memory_threshold), else "same".
//   probe   with the same cpu_model, threads and openblas: must be equal ("same", else
//           "changed" — a regression, either direction); otherwise within PROBE_TOLERANCE
//           (absolute, in the stored units: 0.02 loss, 0.02 = 2 points of top1).
//   info    shown with its ratio; never a regression.
//   A metric only in the new file is "new", one only in the baseline "not measured"; neither
//   fails, but a comparison where no time, memory or probe metric is in both files (a result
//   holding only its header) is refused (exit 2) rather than reported as "no regression". With confirm N (--confirm N), a time or memory regression is measured again N times
//   (without the probes, which are deterministic) and stays one only when every confirmation
//   finds it too ("not confirmed: NAME (noise)" otherwise). Exit 1 lists the regressed metrics;
//   0 otherwise.
#pragma once
#include <stdio.h>

#define PROBE_TOLERANCE 0.02
#define REGRESS_ALPHA 0.01

typedef struct {
    char name[128], kind[16];
    int n;
    double *v;
} bench_metric;

typedef struct {
    char key[64], value[512];
} bench_fact;

typedef struct {
    int nfacts, n;
    bench_fact facts[16];
    bench_metric *m;
} bench_file;

typedef struct {
    const char *save;       // write the measurements here (NULL: do not)
    const char *compare;    // the baseline (NULL: no comparison)
    const char *result;     // compare this saved file instead of measuring (needs compare)
    const char *only;       // one benchmark config (NULL: every config)
    int rounds, iters;      // timing rounds per config, timed steps per round
    int probes;             // 1: run the accuracy probes
    double time_threshold;  // default 0.05
    double memory_threshold;// default 0.10
    int confirm;            // re-measurements a time or memory regression must survive (default 0)
} regress_options;

// Of the ", "-separated metric names in names (rewritten in place), keeps those retry does
// not have (the probes) or that are also named in still (regressed again); prints "not
// confirmed: NAME (noise)" for each dropped. Returns how many are left.
int bench_keep_confirmed(char *names, size_t len, const bench_file *retry, const char *still);
// How many metrics of now a comparison judges: in base too, with the same kind, not info.
// regress_run refuses (exit 2) a comparison where this is 0 instead of saying "no regression".
int bench_compared_count(const bench_file *base, const bench_file *now);
// Checks before measuring that --save PATH can be written: PATH is a name (not empty, not
// starting with '-': a flag where the file should be), not a directory, in an existing
// writable directory. 0, or -1 with "--save ..." in err.
int bench_save_check(const char *path, char *err, size_t errlen);
// Reads a results file. 0, or -1 with "FILE:LINE: message" (or "FILE: cannot open: why") in err.
int bench_file_read(const char *path, bench_file *out, char *err, size_t errlen);
// Writes f to path atomically (core/safe_file.h: never through a link or device at path). 0, or
// the exit code (1 an I/O failure, 2 a path that is not a regular file) with the reason in err.
int bench_file_write(const bench_file *f, const char *path, char *err, size_t errlen);
void bench_file_free(bench_file *f);
// Adds a metric (values copied) or a fact.
void bench_file_add(bench_file *f, const char *name, const char *kind, int n, const double *v);
void bench_file_fact(bench_file *f, const char *key, const char *value);
const char *bench_file_fact_get(const bench_file *f, const char *key); // "" when absent
// Measures into *out (rules above).
void bench_measure(const regress_options *opt, bench_file *out);
// Prints the comparison table to out; returns the number of regressions, their names
// ("a, b") in names.
int bench_compare(const bench_file *base, const bench_file *now, const regress_options *opt, FILE *out, char *names,
                  size_t names_len);
void regress_help(void); // the flags below, for posbench bench --help
// `posbench bench` with --save / --compare: 0 ok, 1 a regression, 2 bad input.
int regress_run(const regress_options *opt);
