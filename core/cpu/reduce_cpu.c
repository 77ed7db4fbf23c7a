// core/cpu/reduce_cpu.c — the CPU backend's reductions (core/ops_list.h "reductions"): the loss sum,
// the rank of the true class (top-k accuracy; K for a row with NaN or ±Inf) and the row argmax
// (MP3's predicted position; -1 for a row with NaN or ±Inf, so it never matches a position).
// CUDA twin: core/cuda/reduce_cuda.cu.
#include "ops_cpu_internal.h"
#include <math.h>

double cpu_sum_in_order(const float *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i]; // sequential: the order is the contract
    return s;
}

double cpu_sum(const float *x, size_t n) {
    cpu_host_read_add(); // the value comes back to the caller
    return cpu_sum_in_order(x, n);
}

void cpu_sum_to(double *dst, const float *x, size_t n, double divisor) { *dst = cpu_sum_in_order(x, n) / divisor; }

void cpu_class_rank(int *rank, const float *logits, const int *target, int N, int K) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *z = logits + (size_t)n * K;
        int y = target[n], ahead = 0, finite = 1;
        for (int k = 0; k < K; k++) {
            if (!isfinite(z[k])) finite = 0;
            if (z[k] > z[y] || (z[k] == z[y] && k < y)) ahead++;
        }
        rank[n] = finite ? ahead : K;
    }
}

void cpu_argmax_rows(int *index, const float *x, int N, int K) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *z = x + (size_t)n * K;
        int best = 0, finite = isfinite(z[0]);
        for (int k = 1; k < K; k++) {
            if (!isfinite(z[k])) finite = 0;
            if (z[k] > z[best]) best = k;
        }
        index[n] = finite ? best : -1; // a row with NaN or ±Inf predicts nothing
    }
}
