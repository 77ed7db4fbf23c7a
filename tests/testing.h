// tests/testing.h — the tiny test protocol every C test program follows.
// A test program prints one line per check: "PASS <name>", "FAIL <name>: <why>" or
// "SKIP <name>: <why>"; tests/run_all.sh counts them across programs and scripts.
// Exit status: 0 when nothing failed, 1 otherwise.
#pragma once
#include <stdarg.h>
#include <stddef.h>

void test_pass(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void test_fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void test_skip(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// PASS or FAIL depending on ok; detail is printed either way.
void test_check(const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int test_exit_code(void); // 0 when no FAIL was printed

// Fills x (n) with uniform values in [lo, hi) from a Philox stream (seed, RNG_TEST, 0, 0, tag).
void test_fill_uniform(float *x, size_t n, float lo, float hi, unsigned tag);
