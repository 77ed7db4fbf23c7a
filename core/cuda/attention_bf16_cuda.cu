// core/cuda/attention_bf16_cuda.cu — attention on bf16 storage (core/ops_list.h attention_forward_bf16,
// attention_backward_bf16) on the GPU, on the route attention_forward takes for d (attention_cuda.cu):
//  - cuDNN: q, k and v are read in place from the stored qkv16 through their strides, cuDNN writes
//    O into out16 and dq, dk, dv into dqkv16, dO is the stored dout16: no conversion pass, only
//    cuDNN's workspace (attention_cudnn.cpp);
//  - materialised (route A): the head matrices are packed from the stored bf16 bits (the layout
//    pass the route always makes, now without rounding), out16 and dqkv16 are rounded once by the
//    unpack (attention_gemm_cuda.cu);
//  - the fp32 kernels (fused: fp32 training with long sequences; kept probabilities: the attention
//    statistics) through the fp32 op: the bf16 inputs widened into one transient, the op run on
//    it, its output (its input gradient from zero) rounded once — the contract's definition.
// Each route gives the fp32 op's bits on the widened inputs, rounded (cuDNN and route A round
// their inputs to bf16 themselves). The CPU twin is core/cpu/attention_bf16_cpu.c.
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
