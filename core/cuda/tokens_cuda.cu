// core/cuda/tokens_cuda.cu — CUDA token bookkeeping: patchify, embed tokens, gather/scatter,
// qkv pack, relative-bias gather, mean pool. Contracts are core/ops_list.h's; the CPU twin is
// core/cpu/tokens_cpu.c; every pointer is a device pointer; kernels run on the backend stream (cuda_stream.h)
// in call order.
// Determinism: no atomics. Every output element is written by exactly one thread, and every
// reduction (embed's batch sums, gather/bias-gather backward, mean pool) is a loop in one
// thread (or one warp walking its lanes in order) in the CPU backend's summation order,
// starting from the value already in the gradient buffer as the CPU does. Products and sums
// that the CPU forms as separate float operations use the explicit round-to-nearest
// intrinsics (__fmul_rn, __fadd_rn, ...) so nvcc cannot fuse them into FMAs: the GPU then
// rounds exactly where the CPU does (core/cpu/ is built with -std=c11, i.e. without
// contraction).
#include "ops_cuda_internal.cuh"

#define TOKENS_THREADS 256

// ---------------------------------------------------------------- patchify
// images (B, Cin, H, W) -> patches (B, N, D), N = (H/p)(W/p), D = Cin·p·p in (c, py, px) order
static __global__ void patchify_kernel(float *patches, const float *images, int B, int Cin, int H,
                                       int W, int p) {
    const int gw = W / p, N = (H / p) * gw, D = Cin * p * p;
    const size_t total = (size_t)B * N * D, idx = flat_index();
    if (idx >= total) return;
    const int d = (int)(idx % D), n = (int)((idx / D) % N);
    const size_t b = idx / ((size_t)N * D);
    const int c = d / (p * p), py = (d / p) % p, px = d % p;
    const int y = (n / gw) * p + py, x = (n % gw) * p + px;
    patches[idx] = images[((b * Cin + c) * H + y) * W + x];
}

void cuda_patchify(float *patches, const float *images, int B, int Cin, int H, int W, int p) {
    const size_t total = (size_t)B * (H / p) * (W / p) * Cin * p * p;
    patchify_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(patches, images, B, Cin,
                                                                            H, W, p);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- embed tokens
// x (B, T, C) = [cls; patch (B, N, C)] (+ pos (T, C)), T = N + t0
static __global__ void embed_tokens_forward_kernel(float *x, const float *patch, const float *cls,
                                                   const float *pos, int B, int N, int C) {
    const int t0 = cls ? 1 : 0, T = N + t0;
    const size_t total = (size_t)B * T * C, idx = flat_index();
    if (idx >= total) return;
    const int c = (int)(idx % C), t = (int)((idx / C) % T);
    const size_t b = idx / ((size_t)T * C);
    float v = t < t0 ? cls[c] : patch[(b * N + (t - t0)) * C + c];
    if (pos) v = __fadd_rn(v, pos[(size_t)t * C + c]);
    x[idx] = v;
}

// dpatch (B, N, C) += dx[:, t0:, :] with dx (B, T, C)
static __global__ void embed_dpatch_kernel(float *dpatch, const float *dx, int B, int N, int C,
                                           int t0) {
    const int T = N + t0;
    const size_t total = (size_t)B * N * C, idx = flat_index();
    if (idx >= total) return;
    const size_t b = idx / ((size_t)N * C), rest = idx % ((size_t)N * C); // rest = n·C + c
    dpatch[idx] = __fadd_rn(dpatch[idx], dx[(b * T + t0) * C + rest]);
}

// dst (n) += Σ_b src[b·stride + i] for b = 0..B-1 in order (dpos: n = T·C; dcls: n = C)
static __global__ void batch_sum_kernel(float *dst, const float *src, int B, size_t stride,
                                        size_t n) {
    const size_t i = flat_index();
    if (i >= n) return;
    float acc = dst[i];
    for (int b = 0; b < B; b++) acc = __fadd_rn(acc, src[(size_t)b * stride + i]);
    dst[i] = acc;
}

void cuda_embed_tokens_forward(float *x, const float *patch, const float *cls, const float *pos,
                               int B, int N, int C) {
    const size_t total = (size_t)B * (N + (cls ? 1 : 0)) * C;
    embed_tokens_forward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        x, patch, cls, pos, B, N, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_embed_tokens_backward(float *dpatch, float *dcls, float *dpos, const float *dx, int B,
                                int N, int C, int has_cls) {
    const int t0 = has_cls ? 1 : 0, T = N + t0;
    const size_t row = (size_t)T * C; // one image of dx
    if (dpatch) {
        const size_t total = (size_t)B * N * C;
        embed_dpatch_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(dpatch, dx, B,
                                                                                    N, C, t0);
        CUDA_LAUNCH_CHECK();
    }
    if (dpos) {
        batch_sum_kernel<<<cuda_blocks(row, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(dpos, dx, B, row,
                                                                               row);
        CUDA_LAUNCH_CHECK();
    }
    if (dcls && has_cls) {
        batch_sum_kernel<<<cuda_blocks((size_t)C, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
            dcls, dx, B, row, (size_t)C);
        CUDA_LAUNCH_CHECK();
    }
}

// ---------------------------------------------------------------- gather / scatter
// out (B, M, C) = in (B, T, C)[b, idx[b, m], :]
static __global__ void gather_tokens_forward_kernel(float *out, const float *in, const int *idx_bm,
                                                    int B, int T, int M, int C) {
    const size_t total = (size_t)B * M * C, idx = flat_index();
    if (idx >= total) return;
    const int c = (int)(idx % C);
    const size_t bm = idx / C, b = bm / M; // bm = b·M + m
    out[idx] = in[(b * T + idx_bm[bm]) * C + c];
}

// din (B, T, C) += Σ_{m: idx[b,m] = t} dout (B, M, C)[b, m, :], m = 0..M-1 in order
// (indices may repeat: one thread per din element scans the image's index row)
static __global__ void gather_tokens_backward_kernel(float *din, const float *dout,
                                                     const int *idx_bm, int B, int T, int M,
                                                     int C) {
    const size_t total = (size_t)B * T * C, idx = flat_index();
    if (idx >= total) return;
    const int c = (int)(idx % C), t = (int)((idx / C) % T);
    const size_t b = idx / ((size_t)T * C);
    const int *row = idx_bm + b * M;
    float acc = din[idx];
    for (int m = 0; m < M; m++)
        if (row[m] == t) acc = __fadd_rn(acc, dout[(b * M + m) * C + c]);
    din[idx] = acc;
}

// out (B, T, C)[b, idx[b, m], :] = in (B, M, C)[b, m, :] (idx must not repeat in an image)
static __global__ void scatter_tokens_forward_kernel(float *out, const float *in, const int *idx_bm,
                                                     int B, int T, int M, int C) {
    const size_t total = (size_t)B * M * C, idx = flat_index();
    if (idx >= total) return;
    const int c = (int)(idx % C);
    const size_t bm = idx / C, b = bm / M;
    out[(b * T + idx_bm[bm]) * C + c] = in[idx];
}

// din (B, M, C) += dout (B, T, C)[b, idx[b, m], :]
static __global__ void scatter_tokens_backward_kernel(float *din, const float *dout,
                                                      const int *idx_bm, int B, int T, int M,
                                                      int C) {
    const size_t total = (size_t)B * M * C, idx = flat_index();
    if (idx >= total) return;
    const int c = (int)(idx % C);
    const size_t bm = idx / C, b = bm / M;
    din[idx] = __fadd_rn(din[idx], dout[(b * T + idx_bm[bm]) * C + c]);
}

void cuda_gather_tokens_forward(float *out, const float *in, const int *idx, int B, int T, int M,
                                int C) {
    const size_t total = (size_t)B * M * C;
    gather_tokens_forward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        out, in, idx, B, T, M, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_gather_tokens_backward(float *din, const float *dout, const int *idx, int B, int T,
                                 int M, int C) {
    const size_t total = (size_t)B * T * C;
    gather_tokens_backward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        din, dout, idx, B, T, M, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_scatter_tokens_forward(float *out, const float *in, const int *idx, int B, int T, int M,
                                 int C) {
    const size_t total = (size_t)B * M * C;
    scatter_tokens_forward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        out, in, idx, B, T, M, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_scatter_tokens_backward(float *din, const float *dout, const int *idx, int B, int T,
                                  int M, int C) {
    const size_t total = (size_t)B * M * C;
    scatter_tokens_backward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        din, dout, idx, B, T, M, C);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- qkv pack (MP3)
// qkv (B, T, 3C)[..., 0:C] = q (B, T, C)
static __global__ void qkv_pack_q_kernel(float *qkv, const float *q, int B, int T, int C) {
    const size_t total = (size_t)B * T * C, idx = flat_index();
    if (idx >= total) return;
    const size_t bt = idx / C, c = idx % C;
    qkv[bt * 3 * C + c] = q[idx];
}

// qkv (B, T, 3C)[b, idx[b, m], C:3C] = kv (B, M, 2C)[b, m, :]
static __global__ void qkv_pack_kv_kernel(float *qkv, const float *kv, const int *idx_bm, int B,
                                          int T, int M, int C) {
    const size_t C2 = 2 * (size_t)C, total = (size_t)B * M * C2, idx = flat_index();
    if (idx >= total) return;
    const size_t bm = idx / C2, c = idx % C2, b = bm / M;
    qkv[(b * T + idx_bm[bm]) * 3 * C + C + c] = kv[idx];
}

// dq (B, T, C) += dqkv (B, T, 3C)[..., 0:C]
static __global__ void qkv_unpack_dq_kernel(float *dq, const float *dqkv, int B, int T, int C) {
    const size_t total = (size_t)B * T * C, idx = flat_index();
    if (idx >= total) return;
    const size_t bt = idx / C, c = idx % C;
    dq[idx] = __fadd_rn(dq[idx], dqkv[bt * 3 * C + c]);
}

// dkv (B, M, 2C) += dqkv (B, T, 3C)[b, idx[b, m], C:3C]
static __global__ void qkv_unpack_dkv_kernel(float *dkv, const float *dqkv, const int *idx_bm,
                                             int B, int T, int M, int C) {
    const size_t C2 = 2 * (size_t)C, total = (size_t)B * M * C2, idx = flat_index();
    if (idx >= total) return;
    const size_t bm = idx / C2, c = idx % C2, b = bm / M;
    dkv[idx] = __fadd_rn(dkv[idx], dqkv[(b * T + idx_bm[bm]) * 3 * C + C + c]);
}

void cuda_qkv_pack_forward(float *qkv, const float *q, const float *kv, const int *idx, int B,
                           int T, int M, int C) {
    const size_t nq = (size_t)B * T * C, nkv = (size_t)B * M * 2 * C;
    qkv_pack_q_kernel<<<cuda_blocks(nq, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(qkv, q, B, T, C);
    CUDA_LAUNCH_CHECK();
    qkv_pack_kv_kernel<<<cuda_blocks(nkv, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(qkv, kv, idx, B, T, M,
                                                                             C);
    CUDA_LAUNCH_CHECK();
}

void cuda_qkv_pack_backward(float *dq, float *dkv, const float *dqkv, const int *idx, int B,
                            int T, int M, int C) {
    if (dq) {
        const size_t nq = (size_t)B * T * C;
        qkv_unpack_dq_kernel<<<cuda_blocks(nq, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(dq, dqkv, B, T,
                                                                                  C);
        CUDA_LAUNCH_CHECK();
    }
    if (dkv) {
        const size_t nkv = (size_t)B * M * 2 * C;
        qkv_unpack_dkv_kernel<<<cuda_blocks(nkv, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
            dkv, dqkv, idx, B, T, M, C);
        CUDA_LAUNCH_CHECK();
    }
}

// ---------------------------------------------------------------- relative-bias gather
// out (H, E) = table (H, K)[h, index[e]]
static __global__ void bias_gather_forward_kernel(float *out, const float *table, const int *index,
                                                  int H, int E, int K) {
    const size_t total = (size_t)H * E, idx = flat_index();
    if (idx >= total) return;
    const size_t h = idx / E, e = idx % E;
    out[idx] = table[h * K + index[e]];
}

// dtable (H, K)[h, k] += Σ_{e: index[e] = k} dout (H, E)[h, e], e = 0..E-1 in order.
// One warp per (h, k): lanes test 32 consecutive e at a time, then the matches are added in
// lane (= e) order, every lane keeping the same running sum.
static __global__ void bias_gather_backward_kernel(float *dtable, const float *dout,
                                                   const int *index, int H, int E, int K) {
    const size_t warp = flat_index() / 32;
    const int lane = threadIdx.x % 32;
    if (warp >= (size_t)H * K) return; // whole warps leave together (blockDim is a multiple of 32)
    const size_t h = warp / K;
    const int k = (int)(warp % K);
    const float *drow = dout + h * E;
    float acc = dtable[warp];
    for (int e0 = 0; e0 < E; e0 += 32) {
        const int e = e0 + lane;
        const bool hit = e < E && index[e] == k;
        const float v = hit ? drow[e] : 0.0f;
        unsigned mask = __ballot_sync(0xffffffffu, hit);
        while (mask) { // warp-uniform: every lane runs the same iterations
            const int src = __ffs(mask) - 1;
            acc = __fadd_rn(acc, __shfl_sync(0xffffffffu, v, src));
            mask &= mask - 1;
        }
    }
    if (lane == 0) dtable[warp] = acc;
}

void cuda_bias_gather_forward(float *out, const float *table, const int *index, int H, int E,
                              int K) {
    const size_t total = (size_t)H * E;
    bias_gather_forward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        out, table, index, H, E, K);
    CUDA_LAUNCH_CHECK();
}

void cuda_bias_gather_backward(float *dtable, const float *dout, const int *index, int H, int E,
                               int K) {
    const size_t threads = (size_t)H * K * 32; // one warp per table entry
    bias_gather_backward_kernel<<<cuda_blocks(threads, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        dtable, dout, index, H, E, K);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- mean pool
// out (B, C) = (Σ_{t = t0..T-1} in (B, T, C)[b, t, :]) · 1/(T - t0), t in order
static __global__ void mean_pool_forward_kernel(float *out, const float *in, int B, int T, int C,
                                                int t0, float inv) {
    const size_t total = (size_t)B * C, idx = flat_index();
    if (idx >= total) return;
    const size_t b = idx / C, c = idx % C;
    float acc = 0.0f;
    for (int t = t0; t < T; t++) acc = __fadd_rn(acc, in[(b * T + t) * C + c]);
    out[idx] = __fmul_rn(acc, inv);
}

// din (B, T, C)[:, t0:, :] += dout (B, C) · inv
static __global__ void mean_pool_backward_kernel(float *din, const float *dout, int B, int T, int C,
                                                 int t0, float inv) {
    const int N = T - t0;
    const size_t total = (size_t)B * N * C, idx = flat_index();
    if (idx >= total) return;
    const size_t c = idx % C, n = (idx / C) % N, b = idx / ((size_t)N * C);
    float *dst = din + (b * T + t0 + n) * C + c;
    *dst = __fadd_rn(*dst, __fmul_rn(dout[b * C + c], inv));
}

void cuda_mean_pool_forward(float *out, const float *in, int B, int T, int C, int t0) {
    const float inv = 1.0f / (float)(T - t0); // as the CPU: one float reciprocal
    const size_t total = (size_t)B * C;
    mean_pool_forward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        out, in, B, T, C, t0, inv);
    CUDA_LAUNCH_CHECK();
}

void cuda_mean_pool_backward(float *din, const float *dout, int B, int T, int C, int t0) {
    const float inv = 1.0f / (float)(T - t0);
    const size_t total = (size_t)B * (T - t0) * C;
    mean_pool_backward_kernel<<<cuda_blocks(total, TOKENS_THREADS), TOKENS_THREADS, 0, cuda_stream()>>>(
        din, dout, B, T, C, t0, inv);
    CUDA_LAUNCH_CHECK();
}
