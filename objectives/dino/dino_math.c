// objectives/dino/dino_math.c — DINO's schedules, loss, centre and head normalisations on the
// host (see dino.h). The head's outputs are small ((views·B, K) rows), so the objective
// downloads them and computes these here in a fixed order, the same on every backend.
#include "dino.h"
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

// softmax(x/τ) of one row into p (K), in double then rounded; returns log Σ exp(x/τ - max).
static double row_softmax(float *p, const float *x, const float *shift, int K, double tau) {
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

void dino_teacher_probs(float *q, const float *teacher, const float *center, int R, int K, double tau_t) {
    for (int r = 0; r < R; r++) row_softmax(q + (size_t)r * K, teacher + (size_t)r * K, center, K, tau_t);
}

int dino_pairs(int T, int V) { return T * V - T; }

double dino_loss_group(const float *q, int T, const float *student, int first_view, int S, int B, int K,
                       double tau_s, double scale, float *dstudent) {
    double total = 0.0;
    for (int s = 0; s < S; s++) {
        int v = first_view + s;
        for (int b = 0; b < B; b++) {
            const float *x = student + ((size_t)s * B + b) * K;
            double lse = row_softmax(NULL, x, NULL, K, tau_s); // log Σ exp(x/τ_s)
            float *dx = dstudent ? dstudent + ((size_t)s * B + b) * K : NULL;
            for (int a = 0; a < T; a++) {
                if (a == v) continue;
                const float *qa = q + ((size_t)a * B + b) * K;
                double h = 0.0; // -Σ q log softmax(x/τ_s)
                for (int k = 0; k < K; k++) h -= (double)qa[k] * ((double)x[k] / tau_s - lse);
                total += h / B;
            }
            if (!dx) continue;
            for (int k = 0; k < K; k++) {
                double p = exp((double)x[k] / tau_s - lse), g = 0.0;
                for (int a = 0; a < T; a++)
                    if (a != v) g += p - (double)q[((size_t)a * B + b) * K + k];
                dx[k] = (float)(g * scale / (tau_s * B));
            }
        }
    }
    return total;
}

void dino_center_update(float *center, const float *teacher, int R, int K, double m) {
    for (int k = 0; k < K; k++) {
        double sum = 0.0;
        for (int r = 0; r < R; r++) sum += teacher[(size_t)r * K + k];
        center[k] = (float)(m * center[k] + (1.0 - m) * (sum / R));
    }
}

void dino_diagnostics(const float *q, const float *student, int R, int K, double tau_s, double *entropy, double *kl) {
    double H = 0.0, D = 0.0;
    for (int r = 0; r < R; r++) {
        const float *qr = q + (size_t)r * K, *x = student + (size_t)r * K;
        double lse = row_softmax(NULL, x, NULL, K, tau_s), h = 0.0, cross = 0.0;
        for (int k = 0; k < K; k++) {
            double p = qr[k];
            if (!(p <= 0)) h -= p * log(p); // p = 0 adds nothing; a NaN p makes h NaN
            cross -= p * ((double)x[k] / tau_s - lse);
        }
        H += h, D += cross - h; // KL = H(q, p) - H(q)
    }
    *entropy = H / R, *kl = D / R;
}

static double row_norm(const float *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}

void dino_l2_forward(float *y, float *norms, const float *x, int R, int n) {
    for (int r = 0; r < R; r++) {
        double nr = row_norm(x + (size_t)r * n, n), d = nr > 1e-12 ? nr : 1e-12;
        norms[r] = (float)nr;
        for (int i = 0; i < n; i++) y[(size_t)r * n + i] = (float)(x[(size_t)r * n + i] / d);
    }
}

// (dy - y (y·dy)) / d per row, or dy/1e-12 when the norm is clamped (the constant divisor).
static void unit_backward(float *dx, const float *dy, const float *y, const float *norms, int R, int n) {
    for (int r = 0; r < R; r++) {
        const float *yr = y + (size_t)r * n, *dr = dy + (size_t)r * n;
        double nr = norms[r], dot = 0.0;
        float *out = dx + (size_t)r * n;
        if (nr <= 1e-12) {
            for (int i = 0; i < n; i++) out[i] = (float)(dr[i] / 1e-12);
            continue;
        }
        for (int i = 0; i < n; i++) dot += (double)yr[i] * dr[i];
        for (int i = 0; i < n; i++) out[i] = (float)((dr[i] - yr[i] * dot) / nr);
    }
}

void dino_l2_backward(float *dx, const float *dy, const float *y, const float *norms, int R, int n) {
    unit_backward(dx, dy, y, norms, R, n);
}

void dino_weightnorm_forward(float *W, float *norms, const float *v, int K, int n) {
    for (int k = 0; k < K; k++) { // torch's _weight_norm: v·(g/‖v‖), g = 1 (no clamp)
        double nk = row_norm(v + (size_t)k * n, n);
        norms[k] = (float)nk;
        for (int i = 0; i < n; i++) W[(size_t)k * n + i] = (float)(v[(size_t)k * n + i] / nk);
    }
}

void dino_weightnorm_backward(float *dv, const float *dW, const float *W, const float *norms, int K, int n) {
    unit_backward(dv, dW, W, norms, K, n);
}

int dino_collapse_kind(double entropy, double kl, int K) {
    double logK = log((double)K);
    if (entropy < 0.05 * logK) return 1;
    if (entropy > 0.95 * logK && kl < 0.01 * logK) return 2;
    return 0;
}
