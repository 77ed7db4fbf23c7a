// core/cuda/posenc_cuda.cu — CUDA ops for position encodings applied to activations: adding
// CAPE's sin2d embedding to the tokens (sincos2d_add), 1D sinusoids at continuous positions
// (sincos1d_add) and rotating q/k by RoPE angles
// (rope_forward / rope_backward). Contracts in core/ops_list.h; the CPU twin is
// core/cpu/posenc_cpu.c; the position and angle tables come from models/posenc.c. One thread
// per output element or channel pair (no reductions, no atomics); products and sums use the
// explicit round-to-nearest intrinsics (__fmul_rn, __dmul_rn, ...) where the CPU rounds.
#include "ops_cuda_internal.cuh"

#define POSENC_THREADS 256

// ---------------------------------------------------------------- sin2d (CAPE)
#define POSENC_PI 3.14159265358979323846 // M_PI's value

// x (B, T, C)[b, t0 + n, k-1] += cos(phase_k), [.., K+k-1] += sin(phase_k); one thread per
// (b, n, k), phases in double exactly as core/cpu/posenc_cpu.c forms them
static __global__ void sincos2d_add_kernel(float *x, const float *px, const float *py, int B, int T,
                                           int C, int t0) {
    const int K = C / 2, N = T - t0;
    const size_t total = (size_t)B * N * K, idx = flat_index();
    if (idx >= total) return;
    const int i = (int)(idx % K), k = i + 1;
    const size_t row = idx / K, b = row / N, n = row % N; // row = b·N + n indexes px, py
    const double rho = __dmul_rn(POSENC_PI, pow(10.0, 2.0 * k / C));
    const double wkx = __dmul_rn(rho, cos((double)k)), wky = __dmul_rn(rho, sin((double)k));
    const double phase = __dadd_rn(__dmul_rn(wkx, (double)px[row]), __dmul_rn(wky,
        (double)py[row]));
    double s, c;
    sincos(phase, &s, &c);
    float *dst = x + (b * T + t0 + n) * C;
    dst[i] = __fadd_rn(dst[i], (float)c);
    dst[K + i] = __fadd_rn(dst[K + i], (float)s);
}

void cuda_sincos2d_add(float *x, const float *px, const float *py, int B, int T, int C, int t0) {
    if (C % 2 != 0) die_fail("internal: sincos2d_add needs an even channel count, got %d", C);
    const long rows = (long)B * (T - t0);
    if (rows <= 0) return;
    const size_t total = (size_t)rows * (C / 2);
    sincos2d_add_kernel<<<cuda_blocks(total, POSENC_THREADS), POSENC_THREADS, 0, cuda_stream()>>>(x, px, py, B, T,
                                                                                C, t0);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- sin1d at continuous positions
// x (B, T, C)[b, t0 + n, 2k] += cos(w_k·t), [.., 2k+1] += sin(w_k·t), w_k = freq_scale·
// 10000^(-2k/C); one thread per (b, n, k), the phase in double as core/cpu/posenc_cpu.c forms it
static __global__ void sincos1d_add_kernel(float *x, const float *pt, int B, int T, int C, int t0,
                                           float freq_scale) {
    const int K = C / 2, N = T - t0;
    const size_t total = (size_t)B * N * K, idx = flat_index();
    if (idx >= total) return;
    const int k = (int)(idx % K);
    const size_t row = idx / K, b = row / N, n = row % N; // row = b·N + n indexes pt
    const double w = __dmul_rn((double)freq_scale, pow(10000.0, -2.0 * k / C));
    double s, c;
    sincos(__dmul_rn(w, (double)pt[row]), &s, &c);
    float *dst = x + (b * T + t0 + n) * C;
    dst[2 * k] = __fadd_rn(dst[2 * k], (float)c);
    dst[2 * k + 1] = __fadd_rn(dst[2 * k + 1], (float)s);
}

void cuda_sincos1d_add(float *x, const float *pt, int B, int T, int C, int t0, float freq_scale) {
    if (C % 2 != 0) die_fail("internal: sincos1d_add needs an even channel count, got %d", C);
    const long rows = (long)B * (T - t0);
    if (rows <= 0) return;
    const size_t total = (size_t)rows * (C / 2);
    sincos1d_add_kernel<<<cuda_blocks(total, POSENC_THREADS), POSENC_THREADS, 0, cuda_stream()>>>(x, pt, B, T, C, t0,
                                                                                freq_scale);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- RoPE
// qkv (B, T, 3C) in place: channel pair (2j, 2j+1) of head h of q and k on rows t0 + n is
// rotated by sign·angle[n, j] (tables (N, J), J = Dh/2). One thread per pair: pair index
// r in [0, C) of a row covers q (r < C/2) then k; its channels are part·C + 2·(h·J + j).
static __global__ void rope_kernel(float *qkv, const float *cos_table, const float *sin_table,
                                   int B, int T, int C, int H, int t0, float sign) {
    const int N = T - t0, half = C / 2, J = (C / H) / 2;
    const size_t total = (size_t)B * N * C, idx = flat_index();
    if (idx >= total) return;
    const int r = (int)(idx % C), part = r / half, q = r % half, j = q % J;
    const size_t row = idx / C, b = row / N, n = row % N;
    float *v = qkv + (b * T + t0 + n) * 3 * C + (size_t)part * C + 2 * (size_t)q;
    const float c = cos_table[n * J + j], s = sign * sin_table[n * J + j];
    const float a = v[0], bb = v[1];
    v[0] = __fsub_rn(__fmul_rn(a, c), __fmul_rn(bb, s));
    v[1] = __fadd_rn(__fmul_rn(a, s), __fmul_rn(bb, c));
}

static void rope_run(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                     int C, int H, int t0, float sign) {
    if (H < 1 || C % H != 0 || (C / H) % 2 != 0)
        die_fail("internal: rope needs C %% H == 0 and an even head dimension (C=%d, H=%d)", C, H);
    const long rows = (long)B * (T - t0);
    if (rows <= 0) return;
    const size_t total = (size_t)rows * C; // C / 2 pairs each of q and k
    rope_kernel<<<cuda_blocks(total, POSENC_THREADS), POSENC_THREADS, 0, cuda_stream()>>>(qkv, cos_table,
                                                                        sin_table, B, T, C, H,
                                                                        t0, sign);
    CUDA_LAUNCH_CHECK();
}

void cuda_rope_forward(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                       int C, int H, int t0) {
    rope_run(qkv, cos_table, sin_table, B, T, C, H, t0, 1.0f);
}

void cuda_rope_backward(float *dqkv, const float *cos_table, const float *sin_table, int B, int T,
                        int C, int H, int t0) {
    rope_run(dqkv, cos_table, sin_table, B, T, C, H, t0, -1.0f);
}
