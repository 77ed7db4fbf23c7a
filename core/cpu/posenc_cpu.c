// core/cpu/posenc_cpu.c — CPU ops for position encodings applied to activations: adding CAPE's
// sin2d embedding to the tokens (sincos2d_add), 1D sinusoids at continuous positions
// (sincos1d_add: 1D CAPE, positions in seconds) and rotating q/k by RoPE angles
// (rope_forward / rope_backward). Contracts in core/ops_list.h; the position and angle tables
// come from models/posenc.c. Every output element is computed by exactly one thread from
// its own inputs (no reductions), so results are bitwise independent of the thread count.
// CUDA twin: core/cuda/posenc_cuda.cu.
#include "ops_cpu_internal.h"
#include "../common.h"
#include <math.h>

// ---------------------------------------------------------------- sin2d
// Frequencies are handled in blocks so that their (double) coefficients live on the stack
// of the calling thread for any C: no allocation, one parallel region per block.
#define SIN2D_FREQ_BLOCK 256

void cpu_sincos2d_add(float *x, const float *px, const float *py, int B, int T, int C, int t0) {
    if (C % 2 != 0) die_fail("internal: sincos2d_add needs an even channel count, got %d", C);
    int K = C / 2, N = T - t0;
    long rows = (long)B * N;
    if (rows <= 0) return;
    for (int k0 = 0; k0 < K; k0 += SIN2D_FREQ_BLOCK) {
        int kn = K - k0 < SIN2D_FREQ_BLOCK ? K - k0 : SIN2D_FREQ_BLOCK;
        // π·w_kx, π·w_ky for k = k0+1 .. k0+kn (k is 1-based in CAPE's eq. 4)
        double wx[SIN2D_FREQ_BLOCK], wy[SIN2D_FREQ_BLOCK];
        for (int i = 0; i < kn; i++) {
            int k = k0 + i + 1;
            double rho = M_PI * pow(10.0, 2.0 * k / C);
            wx[i] = rho * cos((double)k);
            wy[i] = rho * sin((double)k);
        }
#pragma omp parallel for schedule(static)
        for (long row = 0; row < rows; row++) { // row = b·N + n indexes px, py (B, N)
            long b = row / N, n = row % N;
            double xv = px[row], yv = py[row];
            float *dst = x + ((size_t)b * T + t0 + n) * C; // (C) token row t0 + n of image b
            for (int i = 0; i < kn; i++) {
                // The phase reaches |π·10·(|x| + |y|)|: formed and reduced in double so float
                // rounding of the phase (~1e-5 at |phase| ≈ 100) never reaches the output.
                double s, c;
                sincos(wx[i] * xv + wy[i] * yv, &s, &c);
                dst[k0 + i] += (float)c;
                dst[K + k0 + i] += (float)s;
            }
        }
    }
}

// ---------------------------------------------------------------- sin1d at continuous positions
void cpu_sincos1d_add(float *x, const float *pt, int B, int T, int C, int t0, float freq_scale) {
    if (C % 2 != 0) die_fail("internal: sincos1d_add needs an even channel count, got %d", C);
    int K = C / 2, N = T - t0;
    long rows = (long)B * N;
    if (rows <= 0) return;
    for (int k0 = 0; k0 < K; k0 += SIN2D_FREQ_BLOCK) {
        int kn = K - k0 < SIN2D_FREQ_BLOCK ? K - k0 : SIN2D_FREQ_BLOCK;
        double w[SIN2D_FREQ_BLOCK]; // w_k for k = k0 .. k0+kn-1 (0-based, CAPE's speech ω_k)
        for (int i = 0; i < kn; i++) w[i] = (double)freq_scale * pow(10000.0, -2.0 * (k0 + i) / C);
#pragma omp parallel for schedule(static)
        for (long row = 0; row < rows; row++) { // row = b·N + n indexes pt (B, N)
            long b = row / N, n = row % N;
            double tv = pt[row];
            float *dst = x + ((size_t)b * T + t0 + n) * C; // (C) token row t0 + n of sequence b
            for (int i = 0; i < kn; i++) {
                double s, c;
                sincos(w[i] * tv, &s, &c); // |phase| reaches freq_scale·|t|: formed in double
                dst[2 * (k0 + i)] += (float)c;
                dst[2 * (k0 + i) + 1] += (float)s;
            }
        }
    }
}

// ---------------------------------------------------------------- RoPE
// Rotates channel pairs of the q and k parts of qkv (B, T, 3C) on rows t0..T-1 by
// sign·angle[n, j]: sign = +1 is rope_forward, -1 its inverse (= transpose).
static void rope_rotate(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                        int C, int H, int t0, float sign) {
    if (H < 1 || C % H != 0 || (C / H) % 2 != 0)
        die_fail("internal: rope needs C %% H == 0 and an even head dimension (C=%d, H=%d)", C, H);
    int Dh = C / H, J = Dh / 2, N = T - t0;
    long rows = (long)B * N;
#pragma omp parallel for schedule(static)
    for (long row = 0; row < rows; row++) {
        long b = row / N, n = row % N;
        float *tok = qkv + ((size_t)b * T + t0 + n) * 3 * C; // (3C): q | k | v
        const float *ct = cos_table + (size_t)n * J, *st = sin_table + (size_t)n * J; // (J)
        for (int part = 0; part < 2; part++) // q, then k; v is left alone
            for (int h = 0; h < H; h++) {
                float *v = tok + (size_t)part * C + (size_t)h * Dh; // (Dh) one head
                for (int j = 0; j < J; j++) {
                    float c = ct[j], s = sign * st[j];
                    float a = v[2 * j], bb = v[2 * j + 1];
                    v[2 * j] = a * c - bb * s;
                    v[2 * j + 1] = a * s + bb * c;
                }
            }
    }
}

void cpu_rope_forward(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                      int C, int H, int t0) {
    rope_rotate(qkv, cos_table, sin_table, B, T, C, H, t0, 1.0f);
}

void cpu_rope_backward(float *dqkv, const float *cos_table, const float *sin_table, int B, int T,
                       int C, int H, int t0) {
    rope_rotate(dqkv, cos_table, sin_table, B, T, C, H, t0, -1.0f);
}
