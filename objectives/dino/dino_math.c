// objectives/dino/dino_math.c — DINO's schedules and collapse diagnostics on the host (see
// dino.h). The head's normalisations, the teacher probabilities, the loss and the centre are
// backend ops (core/ops_list.h; their CPU kernels in core/cpu/dino_cpu.c); the diagnostics of
// an evaluation read the downloaded rows through the same row softmax.
#include "dino.h"
#include "../../core/cpu/dino_rows.h"
#include <math.h>

double dino_cosine(double base, double final, long step, long total) {
    if (total <= 0) return base;
    return final + 0.5 * (base - final) * (1.0 + cos(M_PI * (double)step / (double)total));
}

double dino_teacher_temp(double warmup, double temp, int W, int epoch) {
    if (epoch >= W) return temp;
    if (W == 1) return warmup; // linspace(a, b, 1) = [a]
    return warmup + (temp - warmup) * (double)epoch / (double)(W - 1);
}

int dino_pairs(int T, int V) { return T * V - T; }

void dino_diagnostics(const float *q, const float *student, int R, int K, double tau_s, double *entropy, double *kl) {
    double H = 0.0, D = 0.0;
    for (int r = 0; r < R; r++) {
        const float *qr = q + (size_t)r * K, *x = student + (size_t)r * K;
        double lse = cpu_dino_row_softmax(NULL, x, NULL, K, tau_s), h = 0.0, cross = 0.0;
        for (int k = 0; k < K; k++) {
            double p = qr[k];
            if (!(p <= 0)) h -= p * log(p); // p = 0 adds nothing; a NaN p makes h NaN
            cross -= p * ((double)x[k] / tau_s - lse);
        }
        H += h, D += cross - h; // KL = H(q, p) - H(q)
    }
    *entropy = H / R, *kl = D / R;
}

int dino_collapse_kind(double entropy, double kl, int K) {
    double logK = log((double)K);
    if (entropy < 0.05 * logK) return 1;
    if (entropy > 0.95 * logK && kl < 0.01 * logK) return 2;
    return 0;
}
