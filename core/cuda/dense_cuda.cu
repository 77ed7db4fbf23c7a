// core/cuda/dense_cuda.cu — the CUDA dense ops: linear (cuBLAS sgemm; in bf16 cublasGemmEx or
// the cuBLASLt path of linear_lt_cuda.cu), LayerNorm, exact GELU, residual / drop path /
// dropout, with their scalar (one element per thread) kernels; POSBENCH_KERNELS=v2 hands the
// elementwise ones and the column sums to dense_vec_cuda.cu where the arrays' alignment
// allows, and the GEMM operands' bf16 conversion to bf16_convert_cuda.cu. Each op follows
// core/ops_list.h and matches its CPU twin (core/cpu/dense_cpu.c) in math and float precision.
// Layout is row-major, shapes are written (N, C).
// Determinism: no floating-point atomics. Row reductions use one warp per row (lanes stride
// over columns, then an xor-butterfly that leaves the same bits in every lane); column
// (parameter-gradient) reductions run in two stages over fixed chunks of COL_CHUNK rows (blocks
// of 32 columns x 32 row lanes, each lane summing its rows in order, a fixed tree over the
// lanes; then the chunks in order). Results depend only on the shapes.
// Elementwise kernels multiply with __fmul_rn where the CPU rounds a product before adding
// (the CPU build, -std=c11, never fuses multiply-adds), so those ops match the CPU bit for bit.
#include "dense_common.cuh"
extern "C" {
#include "bf16_convert.h"
}
#include <math.h>

// Which elementwise kernels run (core/ops_cuda.h): V1 the scalar kernels of this file, V2 the
// vectorised ones of dense_vec_cuda.cu where the arrays' alignment allows (else V1's).
static int kernels_version = CUDA_KERNELS_V1;

extern "C" void cuda_set_kernels(int version) {
    if (version != CUDA_KERNELS_V1 && version != CUDA_KERNELS_V2)
        die_fail("cuda_set_kernels: %d is not CUDA_KERNELS_V1 or CUDA_KERNELS_V2", version);
    kernels_version = version;
}

extern "C" int cuda_kernels(void) { return kernels_version; }
#define V2 (kernels_version == CUDA_KERNELS_V2)

// ---------------------------------------------------------------- linear
// out (N, OC) = bias (OC) broadcast over rows.
__global__ void broadcast_rows_kernel(float *out, const float *bias, size_t N, int OC) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N * OC) out[i] = bias[i % OC];
}

// Column reductions (parameter gradients: dbias, LayerNorm's dweight and dbias) in two stages,
// so that every multiprocessor works (one block per 32 columns alone leaves most of a big GPU
// idle: 24 blocks for C = 768): stage 1, grid (⌈C/32⌉, R) with R = ⌈N / COL_CHUNK⌉, block
// (32 columns x 32 row lanes); lane y of chunk r sums rows r·COL_CHUNK + y, + 32, ... in order,
// then a fixed tree over the lanes gives partial[r, c]; stage 2, one thread per column, adds
// partial[0..R-1, c] in order into dst. The order depends on N and C only: deterministic.
// (COL_CHUNK, col_chunks and the lane tree col_tree are in dense_common.cuh.)

// partial (R, C) = Σ over chunk r's rows of src (N, C).
__global__ void column_sums_partial_kernel(float *partial, const float *src, int N, int C) {
    __shared__ float part[COL_LANES][COL_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * COL_TILE + tx, r = blockIdx.y;
    int end = min(N, (r + 1) * COL_CHUNK);
    float acc = 0.0f;
    if (c < C)
        for (int n = r * COL_CHUNK + ty; n < end; n += COL_LANES) acc += src[(size_t)n * C + c];
    part[ty][tx] = acc;
    col_tree<COL_TILE>(part, tx, ty);
    if (ty == 0 && c < C) partial[(size_t)r * C + c] = part[0][tx];
}

// dst (C) += Σ_{r=0..R-1} partial (R, C), in order.
__global__ void column_partials_add_kernel(float *dst, const float *partial, int R, int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float acc = 0.0f;
    for (int r = 0; r < R; r++) acc += partial[(size_t)r * C + c];
    dst[c] += acc;
}

// dst (C) += Σ_n src (N, C).
void cuda_column_sums_add(float *dst, const float *src, int N, int C) {
    int R = col_chunks(N);
    float *partial = (float *)cuda_alloc_transient((size_t)R * C * sizeof(float), "column-sum partials");
    if (!(V2 && vec_column_sums_partial(partial, src, N, C))) {
        column_sums_partial_kernel<<<dim3(cuda_blocks((size_t)C, COL_TILE), (unsigned)R),
                                     dim3(COL_TILE, COL_LANES), 0, cuda_stream()>>>(partial, src, N, C);
        CUDA_LAUNCH_CHECK();
    }
    column_partials_add_kernel<<<cuda_blocks((size_t)C, THREADS), THREADS, 0, cuda_stream()>>>(dst, partial, R, C);
    CUDA_LAUNCH_CHECK();
    cuda_free_transient(partial);
}

// train.precision (core/ops.h). BF16: each operand is converted to bfloat16 with
// __float2bfloat16_rn (round to nearest even, the CPU's bf16_round in core/bf16.h) into one of
// two device scratch buffers that grow to the largest operand seen, then the tensor cores
// multiply with fp32 accumulation (CUBLAS_COMPUTE_32F) into the fp32 output: cublasGemmEx
// (CUDA_LINEAR_GEMMEX), or cuBLASLt with the bias in the epilogue and the weights' bf16 copies
// cached across calls (CUDA_LINEAR_LT, linear_lt_cuda.cu).
static int matmul_precision = MATMUL_FP32;
static __nv_bfloat16 *bf16_scratch[2];
static size_t bf16_scratch_elems[2];

void cuda_set_matmul_precision(int precision) {
    if (precision != MATMUL_FP32 && precision != MATMUL_BF16)
        die_fail("set_matmul_precision: %d is not MATMUL_FP32 or MATMUL_BF16", precision);
    matmul_precision = precision;
}

int cuda_matmul_precision(void) { return matmul_precision; }

__global__ void to_bf16_kernel(__nv_bfloat16 *out, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2bfloat16_rn(in[i]);
}

void cuda_operand_to_bf16(__nv_bfloat16 *out, const float *in, size_t n) {
    if (n == 0) return;
    if (V2) { // bf16_convert_cuda.cu: 8 elements per thread, 16-byte accesses where aligned
        cuda_f32_to_bf16((uint16_t *)out, in, n);
        return;
    }
    to_bf16_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, in, n);
    CUDA_LAUNCH_CHECK();
}

const __nv_bfloat16 *cuda_bf16_scratch_operand(int slot, const float *x, size_t n) {
    if (n > bf16_scratch_elems[slot]) {
        if (bf16_scratch[slot]) CUDA_CHECK(cudaFree(bf16_scratch[slot]));
        CUDA_CHECK(cudaMalloc(&bf16_scratch[slot], n * sizeof(__nv_bfloat16)));
        bf16_scratch_elems[slot] = n;
    }
    cuda_operand_to_bf16(bf16_scratch[slot], x, n);
    return bf16_scratch[slot];
}

const __nv_bfloat16 *cuda_linear_weight_bf16(const float *w, size_t n) {
    const __nv_bfloat16 *w16 = cuda_linear_route() == CUDA_LINEAR_LT ? cuda_bf16_weight(w, n) : NULL;
    return w16 ? w16 : cuda_bf16_scratch_operand(0, w, n);
}

void cuda_gemm_bf16(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
                    const __nv_bfloat16 *a16, int lda, const __nv_bfloat16 *b16, int ldb, const float *beta, float *C,
                    int ldc, const float *bias) {
    // (The Lt epilogue reads a 16-byte aligned bias; arena tensors are 64-byte aligned.)
    if (cuda_linear_route() == CUDA_LINEAR_LT && (!bias || (uintptr_t)bias % 16 == 0) &&
        cuda_lt_matmul(ta == CUBLAS_OP_T, tb == CUBLAS_OP_T, m, n, k, a16, lda, b16, ldb, *beta, C, 0, ldc, bias))
        return;
    float one = 1.0f;
    if (bias) { // no Lt algorithm for this key: the bias is written first and added to (ldc == m)
        broadcast_rows_kernel<<<cuda_blocks((size_t)m * n, THREADS), THREADS, 0, cuda_stream()>>>(C, bias, (size_t)n, m);
        CUDA_LAUNCH_CHECK();
        beta = &one;
    }
    CUBLAS_CHECK(cublasGemmEx(cuda_cublas(), ta, tb, m, n, k, alpha, a16, CUDA_R_16BF, lda, b16,
                              CUDA_R_16BF, ldb, beta, C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

// Column-major C (m, n) = alpha·op(A)·op(B) + beta·C (+ bias (m) per column on the Lt route;
// the GEMMEX and fp32 routes take bias NULL: the caller wrote it into C), as cublasSgemm, in the
// current precision; a_elems and b_elems are A's and B's element counts (dense operands).
// a_weight = 1: A is a layer's weight (the Lt route takes its cached bf16 copy). b_converted = 1:
// B's bf16 copy is already in scratch slot 1 (the previous call converted the same B:
// linear_backward's dout serves both of its products), so it is not converted again.
static void linear_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                        const float *alpha, const float *A, int lda, size_t a_elems, int a_weight,
                        const float *B, int ldb, size_t b_elems, const float *beta, float *C, int ldc,
                        int b_converted, const float *bias) {
    if (matmul_precision == MATMUL_FP32) {
        CUBLAS_CHECK(cublasSgemm(cuda_cublas(), ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
        return;
    }
    const __nv_bfloat16 *a16 = a_weight ? cuda_linear_weight_bf16(A, a_elems) : cuda_bf16_scratch_operand(0, A, a_elems);
    const __nv_bfloat16 *b16 = b_converted ? bf16_scratch[1] : cuda_bf16_scratch_operand(1, B, b_elems);
    cuda_gemm_bf16(ta, tb, m, n, k, alpha, a16, lda, b16, ldb, beta, C, ldc, bias);
}

void cuda_linear_forward(float *out, const float *in, const float *weight, const float *bias,
                         int N, int IC, int OC) {
    if (N == 0 || OC == 0) return;
    size_t n = (size_t)N * OC;
    float one = 1.0f, beta = 0.0f;
    // The Lt route adds the bias in the GEMM's epilogue (D = W·in + bias, beta = 0); the others
    // write out = bias first, then the product adds to it (beta = 1), as the CPU does.
    // (The epilogue reads a 16-byte aligned bias; arena tensors are 64-byte aligned.)
    int epilogue_bias = bias && IC > 0 && matmul_precision == MATMUL_BF16 &&
                        cuda_linear_route() == CUDA_LINEAR_LT && (uintptr_t)bias % 16 == 0;
    if (bias && !epilogue_bias) {
        broadcast_rows_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, bias, (size_t)N, OC);
        CUDA_LAUNCH_CHECK();
        beta = 1.0f;
    }
    if (IC == 0) { // empty product: out = bias, or zeros
        if (!bias) cuda_zero(out, n);
        return;
    }
    // Row-major out (N, OC) is column-major outᵀ (OC, N) = W (OC, IC) · inᵀ (IC, N), where the
    // row-major weight (OC, IC) reads as column-major Wᵀ (IC, OC), hence OP_T.
    linear_gemm(CUBLAS_OP_T, CUBLAS_OP_N, OC, N, IC, &one, weight, IC, (size_t)OC * IC, 1, in, IC,
                (size_t)N * IC, &beta, out, OC, 0, epilogue_bias ? bias : NULL);
}

void cuda_linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                          const float *in, const float *weight, int N, int IC, int OC) {
    if (N == 0 || OC == 0) return; // every gradient would gain an empty sum
    float one = 1.0f;
    // Both products accumulate (beta = 1: din and dW are "+=" gradients, core/ops_list.h).
    // dout is operand B of both products: in bf16 it is converted once, by the first. (The
    // stream orders the second call's conversion of `in` into slot 0 after the first product.)
    int dout_converted = 0;
    if (din && IC > 0) { // din (N, IC) += dout (N, OC) · W (OC, IC); column-major: dinᵀ += Wᵀ · doutᵀ
        linear_gemm(CUBLAS_OP_N, CUBLAS_OP_N, IC, N, OC, &one, weight, IC, (size_t)OC * IC, 1, dout,
                    OC, (size_t)N * OC, &one, din, IC, 0, NULL);
        dout_converted = 1;
    }
    if (dweight && IC > 0) // dW (OC, IC) += doutᵀ · in; column-major: dWᵀ (IC, OC) += inᵀ · dout
        linear_gemm(CUBLAS_OP_N, CUBLAS_OP_T, IC, OC, N, &one, in, IC, (size_t)N * IC, 0, dout, OC,
                    (size_t)N * OC, &one, dweight, IC, dout_converted, NULL);
    if (dbias) cuda_column_sums_add(dbias, dout, N, OC);
}

// ---------------------------------------------------------------- layernorm
// (N, C) -> out (N, C), mean (N), rstd (N): one warp per row, two-pass variance as the CPU.
__global__ void layernorm_forward_kernel(float *out, float *mean, float *rstd, const float *in,
                                         const float *weight, const float *bias, int N, int C) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return; // the whole warp leaves together
    const float *x = in + (size_t)row * C;
    float *y = out + (size_t)row * C;
    float sum = 0.0f;
    for (int c = lane; c < C; c += WARP) sum += x[c];
    float m = warp_sum(sum) / (float)C;
    float var = 0.0f;
    for (int c = lane; c < C; c += WARP) var += (x[c] - m) * (x[c] - m);
    var = warp_sum(var) / (float)C;
    float s = 1.0f / sqrtf(var + LAYERNORM_EPS);
    for (int c = lane; c < C; c += WARP) y[c] = (x[c] - m) * s * weight[c] + bias[c];
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = s;
    }
}

// din (N, C) += LayerNorm input gradient: one warp per row.
__global__ void layernorm_backward_input_kernel(float *din, const float *dout, const float *in,
                                                const float *weight, const float *mean,
                                                const float *rstd, int N, int C) {
    int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (row >= N) return;
    const float *x = in + (size_t)row * C, *dy = dout + (size_t)row * C;
    float *dx = din + (size_t)row * C;
    float m = mean[row], s = rstd[row];
    float sum_dxhat = 0.0f, sum_dxhat_xhat = 0.0f;
    for (int c = lane; c < C; c += WARP) {
        float dxhat = dy[c] * weight[c];
        sum_dxhat += dxhat;
        sum_dxhat_xhat += dxhat * (x[c] - m) * s;
    }
    sum_dxhat = warp_sum(sum_dxhat) / (float)C;
    sum_dxhat_xhat = warp_sum(sum_dxhat_xhat) / (float)C;
    for (int c = lane; c < C; c += WARP) {
        float xhat = (x[c] - m) * s;
        dx[c] += s * (dy[c] * weight[c] - sum_dxhat - xhat * sum_dxhat_xhat);
    }
}

// Stage 1 of dweight (C) += Σ_n dout·xhat and dbias (C) += Σ_n dout over (N, C), in the two
// stages of the column sums above: pw, pb (R, C) = the sums over chunk r's rows.
__global__ void layernorm_backward_params_partial_kernel(float *pw, float *pb, const float *dout,
                                                         const float *in, const float *mean,
                                                         const float *rstd, int N, int C) {
    __shared__ float part_w[COL_LANES][COL_TILE], part_b[COL_LANES][COL_TILE];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * COL_TILE + tx, r = blockIdx.y;
    int end = min(N, (r + 1) * COL_CHUNK);
    float acc_w = 0.0f, acc_b = 0.0f;
    if (c < C)
        for (int n = r * COL_CHUNK + ty; n < end; n += COL_LANES) {
            float dy = dout[(size_t)n * C + c], x = in[(size_t)n * C + c];
            acc_w += dy * (x - mean[n]) * rstd[n];
            acc_b += dy;
        }
    part_w[ty][tx] = acc_w;
    part_b[ty][tx] = acc_b;
    col_tree<COL_TILE>(part_w, tx, ty);
    col_tree<COL_TILE>(part_b, tx, ty);
    if (ty == 0 && c < C) {
        pw[(size_t)r * C + c] = part_w[0][tx];
        pb[(size_t)r * C + c] = part_b[0][tx];
    }
}

void cuda_layernorm_forward(float *out, float *mean, float *rstd, const float *in,
                            const float *weight, const float *bias, int N, int C) {
    if (N == 0 || C == 0) return;
    if (V2 && vec_layernorm_forward(out, mean, rstd, in, weight, bias, N, C)) return;
    layernorm_forward_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS, 0, cuda_stream()>>>(
        out, mean, rstd, in, weight, bias, N, C);
    CUDA_LAUNCH_CHECK();
}

void cuda_layernorm_backward(float *din, float *dweight, float *dbias, const float *dout,
                             const float *in, const float *weight, const float *mean,
                             const float *rstd, int N, int C) {
    if (N == 0 || C == 0) return;
    if (din && !(V2 && vec_layernorm_backward_input(din, dout, in, weight, mean, rstd, N, C))) {
        layernorm_backward_input_kernel<<<cuda_blocks((size_t)N, THREADS / WARP), THREADS, 0, cuda_stream()>>>(
            din, dout, in, weight, mean, rstd, N, C);
        CUDA_LAUNCH_CHECK();
    }
    if (dweight || dbias) {
        int R = col_chunks(N);
        float *pw = (float *)cuda_alloc_transient(2 * (size_t)R * C * sizeof(float),
                                                  "layernorm parameter-gradient partials");
        float *pb = pw + (size_t)R * C;
        if (!(V2 && vec_layernorm_params_partial(pw, pb, dout, in, mean, rstd, N, C))) {
            layernorm_backward_params_partial_kernel<<<dim3(cuda_blocks((size_t)C, COL_TILE), (unsigned)R),
                                                       dim3(COL_TILE, COL_LANES), 0, cuda_stream()>>>(pw, pb, dout, in,
                                                                                    mean, rstd, N, C);
            CUDA_LAUNCH_CHECK();
        }
        if (dweight) {
            column_partials_add_kernel<<<cuda_blocks((size_t)C, THREADS), THREADS, 0, cuda_stream()>>>(dweight, pw, R, C);
            CUDA_LAUNCH_CHECK();
        }
        if (dbias) {
            column_partials_add_kernel<<<cuda_blocks((size_t)C, THREADS), THREADS, 0, cuda_stream()>>>(dbias, pb, R, C);
            CUDA_LAUNCH_CHECK();
        }
        cuda_free_transient(pw);
    }
}

// ---------------------------------------------------------------- GELU (exact, erf)
// (n): out = x·Φ(x) (gelu_value, dense_common.cuh).
__global__ void gelu_forward_kernel(float *out, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gelu_value(in[i]);
}

// (n): din += dout·(Φ(x) + x·φ(x)) (gelu_grad_add).
__global__ void gelu_backward_kernel(float *din, const float *dout, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) din[i] = gelu_grad_add(din[i], dout[i], in[i]);
}

void cuda_gelu_forward(float *out, const float *in, size_t n) {
    if (n == 0 || (V2 && vec_gelu_forward(out, in, n))) return;
    gelu_forward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, in, n);
    CUDA_LAUNCH_CHECK();
}

void cuda_gelu_backward(float *din, const float *dout, const float *in, size_t n) {
    if (n == 0 || (V2 && vec_gelu_backward(din, dout, in, n))) return;
    gelu_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(din, dout, in, n);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- residual, drop path, dropout
// (B, S): out = x + keep_scale[b]·branch (keep_scale NULL = 1).
__global__ void residual_forward_kernel(float *out, const float *x, const float *branch,
                                        const float *keep_scale, size_t n, size_t S) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float k = keep_scale ? keep_scale[i / S] : 1.0f;
    out[i] = x[i] + __fmul_rn(k, branch[i]);
}

// (B, S): dx += dout, dbranch += keep_scale[b]·dout; either may be NULL.
__global__ void residual_backward_kernel(float *dx, float *dbranch, const float *dout,
                                         const float *keep_scale, size_t n, size_t S) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float g = dout[i];
    if (dx) dx[i] += g;
    if (dbranch) dbranch[i] += __fmul_rn(keep_scale ? keep_scale[i / S] : 1.0f, g);
}

// The address a random op draws at: addr, with its epoch (plus addr's epoch slot,
// RNG_EPOCH_SLOT_MASK) and step from clock (2 uint32 of device memory: set_rng_clock) when clock
// is not NULL, read as the kernel runs.
static __device__ __forceinline__ rng_addr clocked(rng_addr addr, const uint32_t *clock) {
    if (clock) addr.epoch = clock[0] + (addr.epoch & RNG_EPOCH_SLOT_MASK), addr.step = clock[1];
    return addr;
}

// The clock set_rng_clock last set (NULL: the addresses passed).
static const uint32_t *rng_clock;

void cuda_set_rng_clock(const uint32_t *clock) { rng_clock = clock; }

// (B): keep_scale[b] = 0 when uniform(addr, b) < p, else scale.
__global__ void drop_path_scales_kernel(float *keep_scale, int B, float p, float scale,
                                        rng_addr addr, const uint32_t *clock) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    addr = clocked(addr, clock);
    keep_scale[b] = cuda_uniform_at(addr, (uint64_t)b) < p ? 0.0f : scale;
}

// (n): mask = 0 when uniform(addr, first + e) < p, else keep; out = in·mask.
__global__ void dropout_forward_kernel(float *out, float *mask, const float *in, size_t n,
                                       float p, float keep, rng_addr addr, const uint32_t *clock, uint64_t first) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    addr = clocked(addr, clock);
    float m = cuda_uniform_at(addr, first + (uint64_t)i) < p ? 0.0f : keep;
    mask[i] = m;
    out[i] = in[i] * m;
}

// (n): din += dout·mask.
__global__ void dropout_backward_kernel(float *din, const float *dout, const float *mask,
                                        size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) din[i] += __fmul_rn(dout[i], mask[i]);
}

void cuda_residual_forward(float *out, const float *x, const float *branch,
                           const float *keep_scale, int B, size_t S) {
    size_t n = (size_t)(B > 0 ? B : 0) * S;
    if (n == 0 || (V2 && vec_residual_forward(out, x, branch, keep_scale, n, S))) return;
    residual_forward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, x, branch, keep_scale, n, S);
    CUDA_LAUNCH_CHECK();
}

void cuda_residual_backward(float *dx, float *dbranch, const float *dout,
                            const float *keep_scale, int B, size_t S) {
    size_t n = (size_t)(B > 0 ? B : 0) * S;
    if (n == 0 || (!dx && !dbranch)) return;
    if (V2 && vec_residual_backward(dx, dbranch, dout, keep_scale, n, S)) return;
    residual_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(dx, dbranch, dout, keep_scale,
                                                                   n, S);
    CUDA_LAUNCH_CHECK();
}

void cuda_drop_path_scales(float *keep_scale, int B, float p, rng_addr addr) {
    if (B <= 0) return;
    // As the CPU: p <= 0 keeps every sample at scale 1 (u >= 0 is never < p, so the kernel's
    // test agrees); otherwise u < p drops (0), else 1/(1-p) (at p = 1 every sample drops).
    float scale = p <= 0.0f ? 1.0f : 1.0f / (1.0f - p);
    drop_path_scales_kernel<<<cuda_blocks((size_t)B, THREADS), THREADS, 0, cuda_stream()>>>(keep_scale, B, p, scale,
                                                                          addr, rng_clock);
    CUDA_LAUNCH_CHECK();
}

void cuda_dropout_forward(float *out, float *mask, const float *in, size_t n, float p,
                          rng_addr addr, uint64_t first) {
    if (n == 0) return;
    float keep = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f; // as the CPU: p >= 1 zeroes everything
    dropout_forward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, mask, in, n, p, keep, addr, rng_clock,
                                                                                   first);
    CUDA_LAUNCH_CHECK();
}

void cuda_dropout_backward(float *din, const float *dout, const float *mask, size_t n) {
    if (n == 0) return;
    dropout_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(din, dout, mask, n);
    CUDA_LAUNCH_CHECK();
}

// ---------------------------------------------------------------- ReLU (SimCLR's projection head)
__global__ void relu_forward_kernel(float *out, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] <= 0.0f ? 0.0f : in[i]; // NaN stays NaN (torch.relu), never 0
}

__global__ void relu_backward_kernel(float *din, const float *dout, const float *in, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.0f) din[i] += dout[i];
}

void cuda_relu_forward(float *out, const float *in, size_t n) {
    if (n == 0) return;
    relu_forward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(out, in, n);
    CUDA_LAUNCH_CHECK();
}

void cuda_relu_backward(float *din, const float *dout, const float *in, size_t n) {
    if (n == 0) return;
    relu_backward_kernel<<<cuda_blocks(n, THREADS), THREADS, 0, cuda_stream()>>>(din, dout, in, n);
    CUDA_LAUNCH_CHECK();
}
