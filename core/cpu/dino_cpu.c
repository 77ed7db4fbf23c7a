// core/cpu/dino_cpu.c — DINO's head normalisations, teacher probabilities, loss and centre
// (objectives/dino; docs/dino.md) and the teacher's EMA on the CPU: the one copy of that math,
// which tests/test_dino.c checks against PyTorch. Every row's sums run in index order in double
// (the same bits for any thread count: rows are independent). CUDA twin: core/cuda/dino_cuda.cu.
#include "ops_cpu_internal.h"
#include "dino_rows.h"
#include <math.h>

#define UNIT_EPS 1e-12 // F.normalize's clamp of the norm

double cpu_dino_row_softmax(float *p, const float *x, const float *shift, int K, double tau) {
    double mx = -INFINITY;
    for (int k = 0; k < K; k++) {
        double z = ((double)x[k] - (shift ? (double)shift[k] : 0.0)) / tau;
        if (z > mx) mx = z;
    }
    double sum = 0.0;
    for (int k = 0; k < K; k++) sum += exp(((double)x[k] - (shift ? (double)shift[k] : 0.0)) / tau - mx);
    if (p)
        for (int k = 0; k < K; k++) p[k] = (float)(exp(((double)x[k] - (shift ? (double)shift[k] : 0.0)) / tau - mx) / sum);
    return mx + log(sum);
}

void cpu_unit_rows_forward(float *y, float *norms, const float *x, int R, int n, int clamp) {
#pragma omp parallel for schedule(static)
    for (int r = 0; r < R; r++) {
        const float *xr = x + (size_t)r * n;
        double s = 0.0;
        for (int i = 0; i < n; i++) s += (double)xr[i] * xr[i];
        double nr = sqrt(s), d = !clamp ? nr : nr > UNIT_EPS ? nr : UNIT_EPS;
        norms[r] = (float)nr;
        for (int i = 0; i < n; i++) y[(size_t)r * n + i] = (float)(xr[i] / d);
    }
}

void cpu_unit_rows_backward(float *dx, const float *dy, const float *y, const float *norms, int R, int n) {
#pragma omp parallel for schedule(static)
    for (int r = 0; r < R; r++) {
        const float *yr = y + (size_t)r * n, *dr = dy + (size_t)r * n;
        double nr = norms[r], dot = 0.0;
        float *out = dx + (size_t)r * n;
        if (nr <= UNIT_EPS) { // the clamped divisor is a constant: dx = dy / 1e-12
            for (int i = 0; i < n; i++) out[i] = (float)(dr[i] / UNIT_EPS);
            continue;
        }
        for (int i = 0; i < n; i++) dot += (double)yr[i] * dr[i];
        for (int i = 0; i < n; i++) out[i] = (float)((dr[i] - yr[i] * dot) / nr); // dr, yr read before out (in place)
    }
}

void cpu_dino_teacher_probs(float *q, const float *teacher, const float *center, int R, int K, const double *tau) {
    double tau_t = *tau;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < R; r++) cpu_dino_row_softmax(q + (size_t)r * K, teacher + (size_t)r * K, center, K, tau_t);
}

// The terms of student row (s, b): Σ over teacher views a ≠ v of H(q_a[b], softmax(x/τ_s)) / B,
// added to *total in a's order; its gradient row into dx (when not NULL).
static void loss_row(double *total, float *dx, const float *q, int T, const float *x, int v, int b, int B, int K,
                     double tau_s, double scale) {
    double lse = cpu_dino_row_softmax(NULL, x, NULL, K, tau_s); // log Σ exp(x/τ_s)
    for (int a = 0; a < T; a++) {
        if (a == v) continue;
        const float *qa = q + ((size_t)a * B + b) * K;
        double h = 0.0; // -Σ q log softmax(x/τ_s)
        for (int k = 0; k < K; k++) h -= (double)qa[k] * ((double)x[k] / tau_s - lse);
        *total += h / B;
    }
    if (!dx) return;
    for (int k = 0; k < K; k++) {
        double p = exp((double)x[k] / tau_s - lse), g = 0.0;
        for (int a = 0; a < T; a++)
            if (a != v) g += p - (double)q[((size_t)a * B + b) * K + k];
        dx[k] = (float)(g * scale / (tau_s * B));
    }
}

void cpu_dino_loss_group(double *loss, float *dstudent, const float *q, int T, const float *student, int first_view,
                         int S, int B, int K, double tau_s, double scale) {
    double total = 0.0;
    for (int s = 0; s < S; s++)
        for (int b = 0; b < B; b++) {
            size_t row = ((size_t)s * B + b) * K;
            loss_row(&total, dstudent ? dstudent + row : NULL, q, T, student + row, first_view + s, b, B, K, tau_s, scale);
        }
    loss[0] += total;
    loss[1] = loss[0] * scale;
}

void cpu_dino_center_update(float *center, const float *teacher, int R, int K, double m) {
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; k++) {
        double sum = 0.0;
        for (int r = 0; r < R; r++) sum += teacher[(size_t)r * K + k];
        center[k] = (float)(m * center[k] + (1.0 - m) * (sum / R));
    }
}

void cpu_ema_update(float *teacher, const float *student, size_t n, const float *coef, const float *skip) {
    if (skip && *skip != 0.0f) return;
    float keep = coef[0], take = coef[1];
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        float kept = teacher[i] * keep, taken = student[i] * take; // each product rounded, then the sum
        teacher[i] = kept + taken;
    }
}
