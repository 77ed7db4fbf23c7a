// tests/testing.h — the tiny test protocol every C test program follows.
// A test program prints one line per check: "PASS <name>", "FAIL <name>: <why>" or
// "SKIP <name>: <why>"; tests/run_all.sh counts them across programs and scripts.
// Exit status: 0 when nothing failed, 1 otherwise.
#pragma once
#include "../core/tensorfile.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

void test_pass(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void test_fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void test_skip(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// PASS or FAIL depending on ok; detail is printed either way.
void test_check(const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int test_exit_code(void); // 0 when no FAIL was printed
// Runs fn(ctx) in a forked child (which _exits 0 if fn returns) with its stderr captured into
// err (len >= 1 bytes, NUL-terminated; what does not fit is read and dropped, so the child never
// blocks on a full pipe); returns the child's waitpid status, or -1 when it could not be run.
// Fork before the parent starts an OpenMP pool: a child does not inherit a running one.
int test_child_stderr(void (*fn)(void *ctx), void *ctx, char *err, size_t len);

// Fills x (n) with uniform values in [lo, hi) from a Philox stream (seed, RNG_TEST, 0, 0, tag).
void test_fill_uniform(float *x, size_t n, float lo, float hi, unsigned tag);
// Elements of the bf16 arrays a, b (n) that differ: bit for bit (atol < 0), else by more than
// atol + rtol·|b| + one bf16 step of |b| (8 significant bits); worst (kept, not reset) gets the
// largest excess.
size_t test_bf16_differ(const uint16_t *a, const uint16_t *b, size_t n, double atol, double rtol, double *worst);
// A new tensor (n) filled as test_fill_uniform does, and a zeroed one; the caller frees them.
float *test_rnd(size_t n, float lo, float hi, unsigned tag);
float *test_zeros(size_t n);
// For the PyTorch oracles: 1 when Debian's /usr/bin/python3 finds torch (not imported: the
// checks do) and a fresh directory was made from dir (a mkdtemp template, rewritten); otherwise
// a SKIP (no torch) or FAIL (no directory) line for `name` and 0.
int test_torch_dir(const char *name, char *dir);
// Kolmogorov-Smirnov distance of samples v (n, sorted in place) to U(lo, hi).
double test_ks_uniform(double *v, size_t n, double lo, double hi);
// Removes a directory made by test_torch_dir (and what is in it).
void test_torch_dir_remove(const char *dir);

// A f64 scalar entry (1) named `name` (the oracles' config.* entries).
void test_tf_scalar(tensorfile *tf, const char *name, double v);
// Writes tf to DIR/<label>.tf and queues its check by `/usr/bin/python3 SCRIPT FILE`, the
// script's PASS/FAIL lines "<tag> ..." renamed "<tag>[label] ..."; a failed write or a non-zero
// exit of the script is a FAIL line. The queued checks run in one Python process
// (tests/python_batch.py, torch imported once) at test_python_flush, which
// test_torch_dir_remove and test_exit_code call first.
void test_python_check(const char *dir, const char *script, const char *tag, const char *label, tensorfile *tf);
void test_python_flush(void);
