// core/cuda/attention_bf16_cuda.cu — attention on bf16 storage (core/ops_list.h attention_forward_bf16,
// attention_backward_bf16) on the GPU, on the route attention_forward takes for d (attention_cuda.cu):
//  - cuDNN: q, k and v are read in place from the stored qkv16 through their strides, cuDNN writes
//    O into out16 and dq, dk, dv into dqkv16, dO is the stored dout16: no conversion pass, only
//    cuDNN's workspace (attention_cudnn.cpp);
//  - materialised (route A): the head matrices are packed from the stored bf16 bits (the layout
//    pass the route always makes, now without rounding), out16 and dqkv16 are rounded once by the
//    unpack (attention_gemm_cuda.cu); under the setting materialised-inplace, where the heads are
//    16-byte aligned, cuBLAS reads qkv16 and dout16 and writes out16 and dqkv16 in place instead;
//  - the fp32 kernels (fused: fp32 training with long sequences; kept probabilities: the attention
//    statistics) through the fp32 op: the bf16 inputs widened into one transient, the op run on
//    it, its output (its input gradient from zero) rounded once — the contract's definition.
// Each route gives the fp32 op's bits on the widened inputs, rounded (cuDNN and route A round
// their inputs to bf16 themselves), except route A in place: within bf16 rounding of them. The CPU twin is core/cpu/attention_bf16_cpu.c.
// The compact layout (attention_kv_forward_bf16 / attention_kv_backward_bf16: q16 (B, T, C), kv16
// (B, M, 2C), MP3 under train.activations=bf16) takes the same routes by cuda_attention_kv_route_of:
// cuDNN with its own graphs (T queries, M keys, q and k|v read in place), route A with packs and
// unpacks that read and write those rows (or, in place, cuBLAS on those rows), and the fp32 kernels on the widened inputs packed as
// (B, T, 3C) (qkv_pack_forward) with kv_index = 0..M-1 per image, as the CPU twin does.
#include "ops_cuda_internal.cuh"
#include "attention_cuda.cuh"
extern "C" {
#include "../attention_route.h"
#include "attention_cudnn.h"
}

void cuda_attention_forward_bf16(bfloat16 *out16, float *probs, const bfloat16 *qkv16, const attention_desc *d) {
    attention_desc_check_bf16(d, "attention_forward_bf16");
    switch (cuda_attention_route_of(d)) {
    case ATTN_ROUTE_CUDNN: cuda_attention_cudnn_forward_bf16(out16, probs, qkv16, d); return;
    case ATTN_ROUTE_MATERIALISED: cuda_attention_gemm_forward_bf16(out16, probs, qkv16, d); return;
    default: break;
    }
    const size_t n_out = (size_t)d->B * d->T * d->C, n_qkv = 3 * n_out;
    float *qkv = (float *)cuda_alloc_transient((n_qkv + n_out) * sizeof(float), "attention_forward_bf16 (fp32 qkv, out)");
    float *out = qkv + n_qkv;
    cuda_from_bf16(qkv, qkv16, n_qkv);
    cuda_attention_forward(out, probs, qkv, d);
    cuda_to_bf16(out16, out, n_out);
    cuda_free_transient(qkv);
}

void cuda_attention_backward_bf16(bfloat16 *dqkv16, const bfloat16 *dout16, const bfloat16 *qkv16, const bfloat16 *out16,
                                  const float *probs, const attention_desc *d) {
    attention_desc_check_bf16(d, "attention_backward_bf16");
    switch (cuda_attention_route_of(d)) {
    case ATTN_ROUTE_CUDNN: cuda_attention_cudnn_backward_bf16(dqkv16, dout16, qkv16, out16, probs, d); return;
    case ATTN_ROUTE_MATERIALISED: cuda_attention_gemm_backward_bf16(dqkv16, dout16, qkv16, probs, d); return;
    default: break;
    }
    const size_t n_out = (size_t)d->B * d->T * d->C, n_qkv = 3 * n_out;
    float *qkv = (float *)cuda_alloc_transient((2 * n_qkv + 2 * n_out) * sizeof(float),
                                               "attention_backward_bf16 (fp32 qkv, dqkv, out, dout)");
    float *dqkv = qkv + n_qkv, *out = dqkv + n_qkv, *dout = out + n_out;
    cuda_from_bf16(qkv, qkv16, n_qkv);
    cuda_from_bf16(out, out16, n_out);
    cuda_from_bf16(dout, dout16, n_out);
    cuda_zero(dqkv, n_qkv);
    cuda_attention_backward(dqkv, NULL, NULL, dout, qkv, out, probs, d);
    cuda_to_bf16(dqkv16, dqkv, n_qkv);
    cuda_free_transient(qkv);
}

// ---------------------------------------------------------------- the compact layout
// idx (B, M) = m: the key slots of the packed fp32 fallback are rows 0..M-1.
static __global__ void identity_index_kernel(int *idx, int M, unsigned n) {
    const unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < n) idx[e] = (int)(e % (unsigned)M);
}

// The fp32 fallback's transient: the widened q (B, T, C) and kv (B, M, 2C), the packed qkv
// (B, T, 3C), the identity kv_index (B, M) and the caller's extra_bytes (extra), in one allocation,
// each part 256-byte aligned; the packed qkv filled (qkv_pack_forward with the identity index).
typedef struct {
    float *q, *kv, *qkv;
    int *idx;
    void *extra, *base;
} kv_fallback;

static size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

static kv_fallback kv_fallback_open(const bfloat16 *q16, const bfloat16 *kv16, const attention_desc *d, size_t extra_bytes,
                                    const char *what) {
    const size_t n_q = (size_t)d->B * d->T * d->C, n_kv = (size_t)d->B * d->M * 2 * d->C, n_idx = (size_t)d->B * d->M;
    const size_t at_kv = align256(n_q * 4), at_qkv = at_kv + align256(n_kv * 4), at_idx = at_qkv + align256(3 * n_q * 4);
    const size_t at_extra = at_idx + align256(n_idx * sizeof(int));
    kv_fallback f;
    f.base = cuda_alloc_transient(at_extra + extra_bytes, what);
    char *b = (char *)f.base;
    f.q = (float *)b, f.kv = (float *)(b + at_kv), f.qkv = (float *)(b + at_qkv);
    f.idx = (int *)(b + at_idx), f.extra = b + at_extra;
    identity_index_kernel<<<cuda_blocks(n_idx, 256), 256, 0, cuda_stream()>>>(f.idx, d->M, (unsigned)n_idx);
    CUDA_LAUNCH_CHECK();
    cuda_from_bf16(f.q, q16, n_q);
    cuda_from_bf16(f.kv, kv16, n_kv);
    cuda_qkv_pack_forward(f.qkv, f.q, f.kv, f.idx, d->B, d->T, d->M, d->C);
    return f;
}

void cuda_attention_kv_forward_bf16(bfloat16 *out16, float *probs, const bfloat16 *q16, const bfloat16 *kv16,
                                    const attention_desc *d) {
    attention_desc_check_kv_bf16(d, "attention_kv_forward_bf16");
    switch (cuda_attention_kv_route_of(d)) {
    case ATTN_ROUTE_CUDNN: cuda_attention_cudnn_kv_forward_bf16(out16, probs, q16, kv16, d); return;
    case ATTN_ROUTE_MATERIALISED: cuda_attention_gemm_kv_forward_bf16(out16, probs, q16, kv16, d); return;
    default: break;
    }
    const size_t n_out = (size_t)d->B * d->T * d->C;
    kv_fallback f = kv_fallback_open(q16, kv16, d, n_out * sizeof(float), "attention_kv_forward_bf16 (fp32 q, k|v, qkv, out)");
    float *out = (float *)f.extra;
    attention_desc packed = *d;
    packed.kv_index = f.idx;
    cuda_attention_forward(out, probs, f.qkv, &packed);
    cuda_to_bf16(out16, out, n_out);
    cuda_free_transient(f.base);
}

void cuda_attention_kv_backward_bf16(bfloat16 *dq16, bfloat16 *dkv16, const bfloat16 *dout16, const bfloat16 *q16,
                                     const bfloat16 *kv16, const bfloat16 *out16, const float *probs, const attention_desc *d) {
    attention_desc_check_kv_bf16(d, "attention_kv_backward_bf16");
    switch (cuda_attention_kv_route_of(d)) {
    case ATTN_ROUTE_CUDNN: cuda_attention_cudnn_kv_backward_bf16(dq16, dkv16, dout16, q16, kv16, out16, probs, d); return;
    case ATTN_ROUTE_MATERIALISED: cuda_attention_gemm_kv_backward_bf16(dq16, dkv16, dout16, q16, kv16, probs, d); return;
    default: break;
    }
    const size_t n_out = (size_t)d->B * d->T * d->C, n_kv = (size_t)d->B * d->M * 2 * d->C;
    kv_fallback f = kv_fallback_open(q16, kv16, d, (3 * n_out + 2 * n_out) * sizeof(float),
                                     "attention_kv_backward_bf16 (fp32 q, k|v, qkv, idx, dqkv, out, dout)");
    float *dqkv = (float *)f.extra, *out = dqkv + 3 * n_out, *dout = out + n_out;
    cuda_from_bf16(out, out16, n_out);
    cuda_from_bf16(dout, dout16, n_out);
    cuda_zero(dqkv, 3 * n_out);
    attention_desc packed = *d;
    packed.kv_index = f.idx;
    cuda_attention_backward(dqkv, NULL, NULL, dout, f.qkv, out, probs, &packed);
    // dq and dk|v from zero: the widened q and kv are dead, their buffers take the gradients
    cuda_zero(f.q, n_out);
    cuda_zero(f.kv, n_kv);
    cuda_qkv_pack_backward(f.q, f.kv, dqkv, f.idx, d->B, d->T, d->M, d->C);
    cuda_to_bf16(dq16, f.q, n_out);
    cuda_to_bf16(dkv16, f.kv, n_kv);
    cuda_free_transient(f.base);
}
