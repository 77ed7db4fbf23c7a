// tests/test_scoring.c — non-finite logits are never counted as correct, on every scoring path
// of the CPU backend: supervised top-1/top-5 (also when the class count K <= 5, where rank K
// would otherwise pass "rank < 5"), the row argmax MP3 predicts positions with (-1 for a row
// with NaN or ±Inf), MP3's position accuracy on such predictions, and its reassembly (a patch
// without a prediction is left out rather than indexing out of bounds). CUDA twins are held to
// the same integers by tests/test_parity.c (tests/parity/cases_reduce.c; its rows include NaN).
#include "testing.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../objectives/mp3/mp3.h"
#include "../objectives/supervised/supervised.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Rows of K logits, the label's logit the largest of its row, except one non-finite entry per
// poisoned row. Returns top1/top5 counts.
static void count(int K, float poison, long *top1, long *top5) {
    enum { B = 4 };
    supervised s;
    supervised_create(&s, &ops_cpu, B, K, 0.0f);
    float *logits = xmalloc((size_t)B * K * sizeof(float), "logits");
    int32_t labels[B];
    for (int b = 0; b < B; b++) {
        labels[b] = b % K;
        for (int k = 0; k < K; k++) logits[b * K + k] = k == labels[b] ? 5.0f : (float)-k;
        if (b % 2 == 1) logits[b * K + (labels[b] + 1) % K] = poison; // rows 1 and 3 are poisoned
    }
    *top1 = *top5 = 0;
    supervised_count_topk(&s, logits, labels, B, top1, top5);
    free(logits);
    supervised_free(&s);
}

static void test_topk(void) {
    const float poisons[3] = {NAN, INFINITY, -INFINITY};
    const char *names[3] = {"NaN", "+Inf", "-Inf"};
    const int ks[3] = {3, 5, 10};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 3; i++) {
            long t1, t5;
            count(ks[i], poisons[p], &t1, &t5);
            char name[160];
            snprintf(name, sizeof name, "top-1/top-5: rows with a %s logit count as wrong (K = %d classes)", names[p], ks[i]);
            test_check(name, t1 == 2 && t5 == 2, "top1 %ld/4, top5 %ld/4 (want 2 and 2: the 2 finite rows)", t1, t5);
        }
}

static void test_argmax_nonfinite(void) {
    enum { N = 4, K = 3 };
    const float x[N][K] = {{NAN, NAN, NAN}, {1, NAN, 0}, {INFINITY, 0, 0}, {0, 2, 1}};
    int got[N];
    ops_cpu.argmax_rows(got, &x[0][0], N, K);
    test_check("argmax_rows: a row with NaN or ±Inf predicts nothing (-1)", got[0] == -1 && got[1] == -1 && got[2] == -1 && got[3] == 1,
               "got %d %d %d %d, want -1 -1 -1 1", got[0], got[1], got[2], got[3]);
}

static void test_mp3_nonfinite(void) {
    enum { C = 1, S = 4, P = 2, N = 4 }; // a 2x2 grid of 2x2 patches
    const mp3_layout L = {C, S, S, P, P};
    float image[C * S * S], out[C * S * S];
    for (int i = 0; i < C * S * S; i++) image[i] = (float)i; // no blank patch
    // All-NaN logits: the argmax used to be 0, which is patch 0's true position.
    float logits[N * N];
    for (int i = 0; i < N * N; i++) logits[i] = NAN;
    int pred[N];
    ops_cpu.argmax_rows(pred, logits, N, N);
    long correct = 0, total = 0, cnb = 0, tnb = 0;
    mp3_count_correct(pred, image, 1, &L, NULL, 0, 0, &correct, &total, &cnb, &tnb);
    test_check("MP3 position accuracy: all-NaN logits score 0, not patch 0's position", correct == 0 && total == N,
               "%ld of %ld correct", correct, total);
    mp3_reassemble(image, pred, &L, 0.5f, out);
    int empty = 1;
    for (int i = 0; i < C * S * S; i++) empty &= out[i] == 0.5f;
    test_check("MP3 reassembly: patches without a prediction are left out (no out-of-bounds index)", empty,
               "out[0] = %g", (double)out[0]);
}

int main(void) {
    test_topk();
    test_argmax_nonfinite();
    test_mp3_nonfinite();
    return test_exit_code();
}
