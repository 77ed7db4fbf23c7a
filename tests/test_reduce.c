// tests/test_reduce.c — the CPU backend's reductions and memory calls (core/ops_list.h "reductions"
// and "memory"; core/cpu/reduce_cpu.c, core/cpu/memory_cpu.c):
//   sum: exactly the sequential double sum x[0] + x[1] + ... (compared bit for bit, and on
//        inputs where any other order gives a different answer);
//   class_rank: classes ahead of the target (larger logit, or equal with a lower index), K for
//        rows holding NaN or ±Inf, checked against hand-worked rows and a naive reference;
//   argmax_rows: first index of the maximum (ties to the lowest index);
//   memory: alloc zeroed and 64-byte aligned, upload / download / copy round trips (copy may
//        overlap on the CPU: memmove), zero, free(NULL), synchronize.
// The CUDA twins are checked against these by tests/test_parity.c (tests/parity/cases_reduce.c).
#include "testing.h"
#include "../core/common.h"
#include "../core/ops.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ops_backend *ops = &ops_cpu;

// ---------------------------------------------------------------- sum
static void test_sum(void) {
    // 2^60 + 1 rounds back to 2^60 in double, so the sequential order gives 0 where
    // (2^60 - 2^60) + 1 or a pairwise tree would give 1.
    const float big = 1152921504606846976.0f; // 2^60, exact in float
    float a[3] = {big, 1.0f, -big}, b[3] = {big, -big, 1.0f};
    double sa = ops->sum(a, 3), sb = ops->sum(b, 3);
    test_check("sum: sequential order (2^60 + 1 - 2^60 = 0)", sa == 0.0, "got %.17g", sa);
    test_check("sum: sequential order (2^60 - 2^60 + 1 = 1)", sb == 1.0, "got %.17g", sb);

    // Sums in double, not float: 2^24 + 1 + 1 is 2^24 + 2 (float would stay at 2^24).
    float c[3] = {16777216.0f, 1.0f, 1.0f};
    double sc = ops->sum(c, 3);
    test_check("sum: accumulates in double", sc == 16777218.0, "got %.17g", sc);

    size_t n = 100003;
    float *x = xmalloc(n * sizeof(float), "test tensor");
    test_fill_uniform(x, n, -3.0f, 5.0f, 7001);
    double ref = 0.0;
    for (size_t i = 0; i < n; i++) ref += (double)x[i];
    double got = ops->sum(x, n);
    test_check("sum: bitwise the sequential double sum (n = 100003)",
               memcmp(&ref, &got, sizeof ref) == 0, "got %.17g, sequential %.17g", got, ref);
    double e = ops->sum(x, 0);
    test_check("sum: empty is 0", e == 0.0, "got %g", e);
    free(x);
}

// ---------------------------------------------------------------- class_rank
// The contract written out plainly (no early exits), for random cases.
static int naive_rank(const float *z, int y, int K) {
    for (int k = 0; k < K; k++)
        if (isnan(z[k]) || isinf(z[k])) return K;
    int ahead = 0;
    for (int k = 0; k < K; k++) ahead += z[k] > z[y] || (z[k] == z[y] && k < y);
    return ahead;
}

static void test_class_rank(void) {
    enum { K = 5, N = 9 };
    const float z[N][K] = {
        {1, 3, 3, 0, 3},        // target 2: class 1 ties it with a lower index -> 1
        {1, 3, 3, 0, 3},        // target 4: classes 1 and 2 tie with lower indices -> 2
        {1, 3, 3, 0, 3},        // target 1: first of the tied maxima -> 0
        {1, 3, 3, 0, 3},        // target 3: everything else is larger -> 4
        {-2, -1, -7, -1, 0},    // target 0: 3 larger (-1, -1, 0) -> 3
        {1, NAN, 0, 0, 0},      // target 0 would be 0, but a NaN anywhere -> K
        {1, 0, INFINITY, 0, 0}, // +Inf -> K
        {1, 0, 0, -INFINITY, 0}, // -Inf -> K
        {NAN, NAN, NAN, NAN, NAN}, // -> K
    };
    const int target[N] = {2, 4, 1, 3, 0, 0, 0, 0, 3};
    const int want[N] = {1, 2, 0, 4, 3, K, K, K, K};
    int rank[N];
    ops->class_rank(rank, &z[0][0], target, N, K);
    int bad = -1;
    for (int n = 0; n < N; n++)
        if (rank[n] != want[n] && bad < 0) bad = n;
    test_check("class_rank: ties go to the lower index, non-finite rows get K", bad < 0,
               bad < 0 ? "%d rows" : "row %d: got %d, want %d", bad < 0 ? N : bad,
               bad < 0 ? 0 : rank[bad], bad < 0 ? 0 : want[bad]);

    // Random logits on a coarse grid (many ties), some rows with a NaN/Inf, against the naive
    // reference; top-1 correct (rank 0) must agree with argmax == target.
    int n2 = 300, k2 = 13;
    float *x = xmalloc((size_t)n2 * k2 * sizeof(float), "test tensor");
    int *t = xmalloc((size_t)n2 * sizeof(int), "test labels"), *r = xmalloc((size_t)n2 * sizeof(int), "ranks");
    int *am = xmalloc((size_t)n2 * sizeof(int), "argmax");
    test_fill_uniform(x, (size_t)n2 * k2, 0.0f, 4.0f, 7002);
    for (size_t i = 0; i < (size_t)n2 * k2; i++) x[i] = floorf(x[i]); // values 0..3: ties
    for (int n = 0; n < n2; n++) {
        t[n] = (n * 7) % k2;
        if (n % 17 == 5) x[(size_t)n * k2 + (n % k2)] = (n % 2) ? NAN : -INFINITY;
    }
    ops->class_rank(r, x, t, n2, k2);
    ops->argmax_rows(am, x, n2, k2);
    int mismatch = 0, top1_mismatch = 0, nonfinite = 0;
    for (int n = 0; n < n2; n++) {
        int want_r = naive_rank(x + (size_t)n * k2, t[n], k2);
        mismatch += r[n] != want_r;
        nonfinite += want_r == k2;
        if (want_r < k2) top1_mismatch += (r[n] == 0) != (am[n] == t[n]);
    }
    test_check("class_rank: 300 random tied rows match the naive contract", mismatch == 0 && nonfinite > 0,
               "%d mismatches, %d non-finite rows", mismatch, nonfinite);
    test_check("class_rank: rank 0 exactly when argmax_rows hits the target", top1_mismatch == 0,
               "%d rows disagree", top1_mismatch);
    free(x); free(t); free(r); free(am);
}

// ---------------------------------------------------------------- argmax_rows
static void test_argmax_rows(void) {
    enum { K = 4, N = 6 };
    const float x[N][K] = {
        {2, 5, 5, 1},     // tie between 1 and 2 -> 1
        {7, 7, 7, 7},     // all equal -> 0
        {-3, -1, -2, -1}, // negative, tie -> 1
        {0, 0, 0, 9},     // last -> 3
        {-0.0f, 0.0f, -1, -1}, // -0 == +0: the first -> 0
        {1, 2, 3, 3.0000002f}, // one ulp apart -> 3
    };
    const int want[N] = {1, 0, 1, 3, 0, 3};
    int got[N];
    ops->argmax_rows(got, &x[0][0], N, K);
    int bad = -1;
    for (int n = 0; n < N; n++)
        if (got[n] != want[n] && bad < 0) bad = n;
    test_check("argmax_rows: first maximum, ties to the lowest index", bad < 0,
               bad < 0 ? "%d rows" : "row %d: got %d, want %d", bad < 0 ? N : bad,
               bad < 0 ? 0 : got[bad], bad < 0 ? 0 : want[bad]);
    const float one[3] = {-5, 4, 2};
    int idx[3] = {-1, -1, -1};
    ops->argmax_rows(idx, one, 3, 1);
    test_check("argmax_rows: K = 1 gives 0", idx[0] == 0 && idx[1] == 0 && idx[2] == 0,
               "%d %d %d", idx[0], idx[1], idx[2]);
}

// ---------------------------------------------------------------- memory
static void test_memory(void) {
    size_t n = 1000;
    float *a = ops->alloc(n * sizeof(float), "test arena"), *b = ops->alloc(n * sizeof(float), "test arena");
    int zeroed = 1;
    for (size_t i = 0; i < n; i++) zeroed &= a[i] == 0.0f && b[i] == 0.0f;
    test_check("memory: alloc is zeroed and 64-byte aligned",
               zeroed && (uintptr_t)a % 64 == 0 && (uintptr_t)b % 64 == 0, "zeroed %d, %p %p",
               zeroed, (void *)a, (void *)b);

    float *host = xmalloc(n * sizeof(float), "host"), *back = xcalloc(n, sizeof(float), "host");
    test_fill_uniform(host, n, -1.0f, 1.0f, 7003);
    ops->upload(a, host, n * sizeof(float));
    ops->copy(b, a, n * sizeof(float));
    ops->synchronize();
    ops->download(back, b, n * sizeof(float));
    test_check("memory: upload, copy, download round trip", memcmp(host, back, n * sizeof(float)) == 0,
               "%zu floats", n);

    ops->copy(a + 1, a, 10 * sizeof(float)); // overlapping: memmove semantics on the CPU
    int moved = 1;
    for (int i = 0; i < 10; i++) moved &= a[1 + i] == host[i];
    test_check("memory: CPU copy of overlapping ranges moves like memmove", moved && a[0] == host[0],
               "a[1..10] %s", moved ? "ok" : "wrong");

    ops->zero(a, 900); // first 900 cleared, the last 100 kept
    int zero_ok = 1;
    for (size_t i = 0; i < n; i++) zero_ok &= i < 900 ? a[i] == 0.0f : a[i] == host[i];
    test_check("memory: zero clears exactly n floats", zero_ok, "n 900 of %zu", n);

    ops->copy(b, a, 0); // nothing to do, must not fault
    ops->free(a);
    ops->free(b);
    ops->free(NULL);
    test_pass("memory: free and free(NULL) return", "ok");
    free(host); free(back);
}

int main(void) {
    test_sum();
    test_class_rank();
    test_argmax_rows();
    test_memory();
    return test_exit_code();
}
