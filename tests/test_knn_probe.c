// tests/test_knn_probe.c — the weighted kNN probe (objectives/knn_probe.c): agreement with a
// brute-force double-precision reference, separable and shuffled-label data, k = 1, the
// temperature worked by hand, blocking across KNN_PROBE_BLOCK, argument errors (in a forked
// child: exit status and message), and independence of the thread count.
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../objectives/knn_probe.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// ---- data ---------------------------------------------------------------------------

static float *normals(size_t n, float std, unsigned tag) { // (n) ~ Normal(0, std)
    float *x = xmalloc(n * sizeof(float), "test features");
    rng_stream s = rng_stream_make(4321, RNG_TEST, 0, 0, tag);
    for (size_t i = 0; i < n; i++) x[i] = std * rng_normal(&s);
    return x;
}

static int32_t *random_labels(int n, int classes, unsigned tag) { // (n) uniform in [0, classes)
    int32_t *y = xmalloc((size_t)n * sizeof(int32_t), "test labels");
    rng_stream s = rng_stream_make(4321, RNG_TEST, 1, 0, tag);
    for (int i = 0; i < n; i++) y[i] = (int32_t)rng_below(&s, (uint32_t)classes);
    return y;
}

// ---- brute-force reference (double precision, the definition in knn_probe.h) -------------

typedef struct { double sim; int idx; } neighbour;

static int by_sim_then_index(const void *a, const void *b) {
    const neighbour *x = a, *y = b;
    if (x->sim != y->sim) return x->sim > y->sim ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static void normalise_double(double *dst, const float *src, int n, int D) { // (n, D) -> (n, D)
    for (int i = 0; i < n; i++) {
        double ss = 0.0;
        for (int d = 0; d < D; d++) ss += (double)src[(size_t)i * D + d] * src[(size_t)i * D + d];
        double scale = ss > 0.0 ? 1.0 / sqrt(ss) : 0.0;
        for (int d = 0; d < D; d++) dst[(size_t)i * D + d] = src[(size_t)i * D + d] * scale;
    }
}

typedef struct {
    int32_t *pred; // (ntest) predicted class
    double top1, top5;
    int fragile;   // rows whose decision sits within float rounding of a tie (for the message)
} reference;

// Sorts all training rows by (similarity desc, index asc), sums exp(sim / T) of the first k per
// label, ranks classes (score desc, class asc). A row is "fragile" when the k-th and (k+1)-th
// similarities differ by < 1e-5 or two class scores that decide top-1/top-5 are within 1e-4
// (relative): there float sgemm and this reference could legitimately disagree.
static reference ref_knn(const float *train, const int32_t *ytr, int ntrain, const float *test,
                         const int32_t *yte, int ntest, int D, int C, int k, double T) {
    reference r = {.pred = xmalloc((size_t)ntest * sizeof(int32_t), "reference predictions")};
    double *a = xmalloc((size_t)ntrain * D * sizeof(double), "reference train");
    double *q = xmalloc((size_t)D * sizeof(double), "reference query");
    neighbour *nb = xmalloc((size_t)ntrain * sizeof(neighbour), "reference neighbours");
    double *score = xmalloc((size_t)C * sizeof(double), "reference scores");
    normalise_double(a, train, ntrain, D);
    long hits1 = 0, hits5 = 0;
    for (int i = 0; i < ntest; i++) {
        normalise_double(q, test + (size_t)i * D, 1, D);
        for (int j = 0; j < ntrain; j++) {
            double s = 0.0;
            for (int d = 0; d < D; d++) s += q[d] * a[(size_t)j * D + d];
            nb[j] = (neighbour){s, j};
        }
        qsort(nb, (size_t)ntrain, sizeof *nb, by_sim_then_index);
        for (int c = 0; c < C; c++) score[c] = 0.0;
        for (int j = 0; j < k; j++) score[ytr[nb[j].idx]] += exp(nb[j].sim / T);
        int best = 0, rank = 0, y = yte[i];
        double top = 0.0;
        for (int c = 0; c < C; c++) {
            if (score[c] > score[best]) best = c;
            if (score[c] > score[y] || (score[c] == score[y] && c < y)) rank++;
            if (score[c] > top) top = score[c];
        }
        double gap = k < ntrain ? nb[k - 1].sim - nb[k].sim : 1.0; // exact ties (0) are exact in float too
        int fragile = gap > 0.0 && gap < 1e-5;
        for (int c = 0; c < C; c++)
            for (int e = 0; e < C; e++) {
                double d = fabs(score[c] - score[e]);
                if (c != e && (c == best || c == y) && d > 0.0 && d <= 1e-4 * top) fragile = 1;
            }
        r.fragile += fragile;
        r.pred[i] = best;
        hits1 += rank < 1;
        hits5 += rank < 5;
    }
    r.top1 = (double)hits1 / ntest;
    r.top5 = (double)hits5 / ntest;
    free(a); free(q); free(nb); free(score);
    return r;
}

static int count_diff(const int32_t *a, const int32_t *b, int n) {
    int diff = 0;
    for (int i = 0; i < n; i++) diff += a[i] != b[i];
    return diff;
}

// Runs the probe and the reference on the same data; one check for predictions and accuracies.
static void check_against_reference(const char *name, const float *train, const int32_t *ytr, int ntrain,
                                    const float *test, const int32_t *yte, int ntest, int D, int C, int k,
                                    float T) {
    int32_t *pred = xmalloc((size_t)ntest * sizeof(int32_t), "predictions");
    double top5 = -1;
    double top1 = knn_probe_accuracy(train, ytr, ntrain, test, yte, ntest, D, C, k, T, &top5, pred);
    reference r = ref_knn(train, ytr, ntrain, test, yte, ntest, D, C, k, T);
    int diff = count_diff(pred, r.pred, ntest);
    test_check(name, diff == 0 && top1 == r.top1 && top5 == r.top5,
               "%d/%d predictions differ; top1 %.6f ref %.6f, top5 %.6f ref %.6f (%d rows within rounding of a tie)",
               diff, ntest, top1, r.top1, top5, r.top5, r.fragile);
    free(pred);
    free(r.pred);
}

// ---- checks -------------------------------------------------------------------------------

static void test_reference_random(void) {
    int ntrain = 500, ntest = 300, D = 24, C = 7, k = 20;
    float *train = normals((size_t)ntrain * D, 1.0f, 1), *test = normals((size_t)ntest * D, 1.0f, 2);
    int32_t *ytr = random_labels(ntrain, C, 3), *yte = random_labels(ntest, C, 4);
    // A zero training row (similarity 0 to everything) and a zero test row: all its similarities
    // are exactly 0, so its neighbours are training rows 0..k-1 by the index tie rule.
    memset(train + (size_t)17 * D, 0, (size_t)D * sizeof(float));
    memset(test + (size_t)5 * D, 0, (size_t)D * sizeof(float));
    check_against_reference("knn matches double reference (500 train, 300 test, D 24, 7 classes, k 20, T 0.07)",
                            train, ytr, ntrain, test, yte, ntest, D, C, k, 0.07f);
    check_against_reference("knn matches double reference with T 1 and k 7", train, ytr, ntrain, test, yte,
                            ntest, D, C, 7, 1.0f);
    free(train); free(test); free(ytr); free(yte);
}

// Clusters: class c has centre 4·e_c (D 32, 10 classes) plus Normal(0, 0.3) noise per
// coordinate; every point is far closer in angle to its own centre than to any other.
static void make_clusters(float **x, int32_t **y, int n, int D, int C, unsigned tag) {
    *x = normals((size_t)n * D, 0.3f, tag);
    *y = random_labels(n, C, tag + 1);
    for (int i = 0; i < n; i++) (*x)[(size_t)i * D + (*y)[i]] += 4.0f;
}

static void test_clusters_and_chance(void) {
    int ntrain = 2000, ntest = 1000, D = 32, C = 10, k = 20;
    float *train, *test;
    int32_t *ytr, *yte;
    make_clusters(&train, &ytr, ntrain, D, C, 10);
    make_clusters(&test, &yte, ntest, D, C, 20);
    double top5 = -1;
    double acc = knn_probe_accuracy(train, ytr, ntrain, test, yte, ntest, D, C, k, 0.07f, &top5, NULL);
    test_check("knn separated clusters: accuracy 1", acc == 1.0 && top5 == 1.0, "top1 %.4f top5 %.4f", acc, top5);
    // Test labels drawn afresh, independent of everything else: given the predictions, each
    // row is a hit with probability 1/10 (top-5: 5/10), independently, so top-1 ~ Binomial(1000,
    // 0.1)/1000 (sd 0.0095) and top-5 ~ Binomial(1000, 0.5)/1000 (sd 0.016). Bounds |top1 - 0.1|
    // <= 0.05 and |top5 - 0.5| <= 0.08, both > 5 sd.
    int32_t *shuffled = random_labels(ntest, C, 99);
    acc = knn_probe_accuracy(train, ytr, ntrain, test, shuffled, ntest, D, C, k, 0.07f, &top5, NULL);
    test_check("knn shuffled labels: chance (|top1-0.1| <= 0.05, |top5-0.5| <= 0.08)",
               fabs(acc - 0.1) <= 0.05 && fabs(top5 - 0.5) <= 0.08, "top1 %.4f top5 %.4f", acc, top5);
    free(train); free(test); free(ytr); free(yte); free(shuffled);
}

static void test_k1_nearest(void) {
    int ntrain = 400, ntest = 300, D = 16, C = 5;
    float *train = normals((size_t)ntrain * D, 1.0f, 30), *test = normals((size_t)ntest * D, 1.0f, 31);
    int32_t *ytr = random_labels(ntrain, C, 32), *yte = random_labels(ntest, C, 33);
    int32_t *pred = xmalloc((size_t)ntest * sizeof(int32_t), "predictions");
    double acc = knn_probe_accuracy(train, ytr, ntrain, test, yte, ntest, D, C, 1, 0.07f, NULL, pred);
    int wrong = 0, hits = 0;
    for (int i = 0; i < ntest; i++) { // nearest by cosine in double, ties to the lower index
        double bestsim = -INFINITY, nq = 0;
        int best = -1;
        for (int d = 0; d < D; d++) nq += (double)test[(size_t)i * D + d] * test[(size_t)i * D + d];
        for (int j = 0; j < ntrain; j++) {
            double dot = 0, nt = 0;
            for (int d = 0; d < D; d++) {
                dot += (double)test[(size_t)i * D + d] * train[(size_t)j * D + d];
                nt += (double)train[(size_t)j * D + d] * train[(size_t)j * D + d];
            }
            double s = dot / sqrt(nq * nt);
            if (s > bestsim) bestsim = s, best = j;
        }
        wrong += pred[i] != ytr[best];
        hits += ytr[best] == yte[i];
    }
    test_check("knn k=1 predicts the nearest neighbour's label", wrong == 0 && acc == (double)hits / ntest,
               "%d/%d rows differ; accuracy %.4f, nearest-label accuracy %.4f", wrong, ntest, acc,
               (double)hits / ntest);
    free(train); free(test); free(ytr); free(yte); free(pred);
}

// By hand: query (1, 0), k 3. Class 0 has one neighbour at (1, 0), sim 1; class 1 has two at
// (0.8, ±0.6), sim 0.8 each.
//   T = 10:   class 0 exp(1/10) = 1.105, class 1 2·exp(0.8/10) = 2.167 -> predicts 1 (votes count)
//   T = 0.05: class 0 exp(20) = 4.85e8, class 1 2·exp(16) = 1.78e7   -> predicts 0 (nearest wins)
// (Crossover where exp(0.2/T) = 2, T = 0.2/ln 2 = 0.289.) The test label is 0.
static void test_temperature(void) {
    const float train[6] = {1.0f, 0.0f, 0.8f, 0.6f, 0.8f, -0.6f}; // (3, 2)
    const int32_t ytr[3] = {0, 1, 1};
    const float test[2] = {1.0f, 0.0f}; // (1, 2)
    const int32_t yte[1] = {0};
    int32_t hot = -1, cold = -1;
    double acc_hot = knn_probe_accuracy(train, ytr, 3, test, yte, 1, 2, 2, 3, 10.0f, NULL, &hot);
    double acc_cold = knn_probe_accuracy(train, ytr, 3, test, yte, 1, 2, 2, 3, 0.05f, NULL, &cold);
    test_check("knn temperature: T 10 votes by count, T 0.05 by similarity",
               hot == 1 && cold == 0 && acc_hot == 0.0 && acc_cold == 1.0,
               "T 10 predicts %d (acc %.0f), T 0.05 predicts %d (acc %.0f); expected 1 and 0", hot, acc_hot,
               cold, acc_cold);
    // Far below the crossover plain exp(sim/T) would overflow double (sim/T = 1e4); the
    // max-shifted scores still give class 0.
    int32_t tiny = -1;
    knn_probe_accuracy(train, ytr, 3, test, yte, 1, 2, 2, 3, 1e-4f, NULL, &tiny);
    test_check("knn temperature 1e-4 does not overflow", tiny == 0, "predicts %d, expected 0", tiny);
}

// Tie rules with exact ties: training rows 0 and 1 are the same point (similarity 1 to the
// query, exactly) with labels 1 and 0. k = 1 keeps row 0 (lower index) -> class 1; k = 2 gives
// both classes the same score -> class 0 (lower class).
static void test_ties(void) {
    const float train[6] = {3.0f, 0.0f, 3.0f, 0.0f, 0.0f, 1.0f}; // (3, 2)
    const int32_t ytr[3] = {1, 0, 2};
    const float test[2] = {2.0f, 0.0f}; // (1, 2)
    const int32_t yte[1] = {0};
    int32_t p1 = -1, p2 = -1;
    knn_probe_accuracy(train, ytr, 3, test, yte, 1, 2, 3, 1, 0.07f, NULL, &p1);
    knn_probe_accuracy(train, ytr, 3, test, yte, 1, 2, 3, 2, 0.07f, NULL, &p2);
    test_check("knn ties: similarity to the lower index, score to the lower class", p1 == 1 && p2 == 0,
               "k 1 predicts %d (expected 1), k 2 predicts %d (expected 0)", p1, p2);
}

static void test_blocking(void) {
    int ntrain = 300, ntest = 2 * KNN_PROBE_BLOCK + 37, D = 12, C = 6;
    float *train = normals((size_t)ntrain * D, 1.0f, 40), *test = normals((size_t)ntest * D, 1.0f, 41);
    int32_t *ytr = random_labels(ntrain, C, 42), *yte = random_labels(ntest, C, 43);
    char name[128];
    snprintf(name, sizeof name, "knn blocking: ntest %d (= 2 blocks of %d + 37) matches reference", ntest,
             KNN_PROBE_BLOCK);
    check_against_reference(name, train, ytr, ntrain, test, yte, ntest, D, C, 10, 0.07f);
    // k = ntrain: every training row votes.
    check_against_reference("knn k = ntrain (40) is allowed and matches reference", train, ytr, 40, test, yte,
                            ntest, D, C, 40, 0.1f);
    free(train); free(test); free(ytr); free(yte);
}

// ---- argument errors (each in a forked child; run before any OpenMP region) ------------------

typedef struct {
    int ntrain, D, C, k, bad_label, bad_feature;
    float T;
} bad_call;

static void call_bad(const bad_call *b) {
    float train[40] = {0}, test[8] = {0}; // up to (10, 4) and (2, 4)
    int32_t ytr[10] = {0}, yte[2] = {0};
    for (int i = 0; i < 40; i++) train[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < 8; i++) test[i] = (float)(i % 3) + 1.0f;
    if (b->bad_label) ytr[3] = b->C;
    if (b->bad_feature) test[5] = NAN;
    knn_probe_accuracy(train, ytr, b->ntrain, test, yte, 2, b->D, b->C, b->k, b->T, NULL, NULL);
}

// Runs call_bad in a child with stderr captured; returns the exit status (-1 if it crashed).
static int run_bad(const bad_call *b, char *err, size_t err_n) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        call_bad(b);
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < err_n && (got = read(fds[0], err + n, err_n - n - 1)) > 0) n += (size_t)got;
    err[n] = '\0';
    if (n && err[n - 1] == '\n') err[n - 1] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_errors(void) {
    struct {
        const char *name;
        bad_call call;
        int status;
        const char *message;
    } cases[] = {
        {"knn error: ntrain (5) < k (6)", {.ntrain = 5, .D = 4, .C = 3, .k = 6, .T = 0.07f}, EXIT_BAD_INPUT, "k=6 is outside [1, 5]"},
        {"knn error: k = 0", {.ntrain = 10, .D = 4, .C = 3, .k = 0, .T = 0.07f}, EXIT_BAD_INPUT, "k=0"},
        {"knn error: temperature 0", {.ntrain = 10, .D = 4, .C = 3, .k = 3, .T = 0.0f}, EXIT_BAD_INPUT, "temperature"},
        {"knn error: temperature NaN", {.ntrain = 10, .D = 4, .C = 3, .k = 3, .T = NAN}, EXIT_BAD_INPUT, "temperature"},
        {"knn error: D 0", {.ntrain = 10, .D = 0, .C = 3, .k = 3, .T = 0.07f}, EXIT_RUN_FAILED, "D=0"},
        {"knn error: num_classes 0", {.ntrain = 10, .D = 4, .C = 0, .k = 3, .T = 0.07f}, EXIT_RUN_FAILED, "num_classes=0"},
        {"knn error: label out of range", {.ntrain = 10, .D = 4, .C = 3, .k = 3, .T = 0.07f, .bad_label = 1}, EXIT_RUN_FAILED, "label 3 of row 3"},
        {"knn error: NaN feature", {.ntrain = 10, .D = 4, .C = 3, .k = 3, .T = 0.07f, .bad_feature = 1}, EXIT_RUN_FAILED, "test feature row 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[512];
        int st = run_bad(&cases[i].call, err, sizeof err);
        test_check(cases[i].name, st == cases[i].status && strstr(err, cases[i].message) != NULL,
                   "exit %d (expected %d), stderr \"%s\" (expected to contain \"%s\")", st, cases[i].status, err,
                   cases[i].message);
    }
}

// ---- thread count ------------------------------------------------------------------------------

static void test_threads(void) {
    int ntrain = 3000, ntest = 700, D = 64, C = 10, k = 20;
    float *train = normals((size_t)ntrain * D, 1.0f, 50), *test = normals((size_t)ntest * D, 1.0f, 51);
    int32_t *ytr = random_labels(ntrain, C, 52), *yte = random_labels(ntest, C, 53);
    int32_t *p1 = xmalloc((size_t)ntest * sizeof(int32_t), "predictions"), *pn = xmalloc((size_t)ntest * sizeof(int32_t), "predictions");
    posbench_set_threads(1); // OpenMP and OpenBLAS
    double t5_1, t5_n, a1 = knn_probe_accuracy(train, ytr, ntrain, test, yte, ntest, D, C, k, 0.07f, &t5_1, p1);
    for (int threads = 2; threads <= 3; threads++) {
        posbench_set_threads(threads);
        double an = knn_probe_accuracy(train, ytr, ntrain, test, yte, ntest, D, C, k, 0.07f, &t5_n, pn);
        char name[96];
        snprintf(name, sizeof name, "knn result independent of threads (1 vs %d)", threads);
        int diff = count_diff(p1, pn, ntest);
        test_check(name, diff == 0 && a1 == an && t5_1 == t5_n, "%d predictions differ; top1 %.6f vs %.6f, top5 %.6f vs %.6f",
                   diff, a1, an, t5_1, t5_n);
    }
    posbench_set_threads(2);
    free(train); free(test); free(ytr); free(yte); free(p1); free(pn);
}

int main(void) {
    test_errors(); // first: the forked children must not inherit a running OpenMP pool
    posbench_set_threads(2);
    test_reference_random();
    test_clusters_and_chance();
    test_k1_nearest();
    test_temperature();
    test_ties();
    test_blocking();
    test_threads();
    return test_exit_code();
}
