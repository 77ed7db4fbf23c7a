// core/cuda/ops_cuda.cu — the CUDA backend's frame and op table: the cuBLAS handle and
// `ops_cuda` (GPU discovery: device_probe_cuda.cu), which gathers the op functions of core/cuda/*_cuda.cu (declared in
// ops_cuda_internal.cuh) behind core/ops.h's interface (device pointers). Its twin is
// core/cpu/ops_cpu.c; the op families are mirrored file for file (dense, tokens, attention,
// posenc, resize, losses, reduce, optim, memory).
#include "ops_cuda_internal.cuh"
extern "C" {
#include "../ops_cuda.h"
}
#include <stdio.h>
#include <string.h>

cublasHandle_t cuda_cublas(void) {
    static cublasHandle_t handle = NULL;
    if (!handle) {
        CUBLAS_CHECK(cublasCreate(&handle));
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH)); // FP32, no TF32
    }
    return handle;
}

extern "C" const ops_backend ops_cuda = {
    .name = "cuda",
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_to_device,
    .download = cuda_to_host,
    .copy = cuda_copy,
    .synchronize = cuda_sync,
    .memory_peak = cuda_memory_peak,
    .zero = cuda_zero,
    .set_matmul_precision = cuda_set_matmul_precision,
    .linear_forward = cuda_linear_forward,
    .linear_backward = cuda_linear_backward,
    .layernorm_forward = cuda_layernorm_forward,
    .layernorm_backward = cuda_layernorm_backward,
    .gelu_forward = cuda_gelu_forward,
    .gelu_backward = cuda_gelu_backward,
    .residual_forward = cuda_residual_forward,
    .residual_backward = cuda_residual_backward,
    .drop_path_scales = cuda_drop_path_scales,
    .dropout_forward = cuda_dropout_forward,
    .dropout_backward = cuda_dropout_backward,
    .patchify = cuda_patchify,
    .embed_tokens_forward = cuda_embed_tokens_forward,
    .embed_tokens_backward = cuda_embed_tokens_backward,
    .gather_tokens_forward = cuda_gather_tokens_forward,
    .gather_tokens_backward = cuda_gather_tokens_backward,
    .scatter_tokens_forward = cuda_scatter_tokens_forward,
    .scatter_tokens_backward = cuda_scatter_tokens_backward,
    .qkv_pack_forward = cuda_qkv_pack_forward,
    .qkv_pack_backward = cuda_qkv_pack_backward,
    .bias_gather_forward = cuda_bias_gather_forward,
    .bias_gather_backward = cuda_bias_gather_backward,
    .mean_pool_forward = cuda_mean_pool_forward,
    .mean_pool_backward = cuda_mean_pool_backward,
    .token_mix_forward = cuda_token_mix_forward,
    .token_mix_backward = cuda_token_mix_backward,
    .gate_forward = cuda_gate_forward,
    .gate_backward = cuda_gate_backward,
    .resize2d_forward = cuda_resize2d_forward,
    .resize2d_backward = cuda_resize2d_backward,
    .attention_forward = cuda_attention_forward,
    .attention_backward = cuda_attention_backward,
    .attention_state_floats = cuda_attention_state_floats,
    .sincos2d_add = cuda_sincos2d_add,
    .sincos1d_add = cuda_sincos1d_add,
    .rope_forward = cuda_rope_forward,
    .rope_backward = cuda_rope_backward,
    .softmax_xent_forward = cuda_softmax_xent_forward,
    .softmax_xent_backward = cuda_softmax_xent_backward,
    .mse_forward = cuda_mse_forward,
    .mse_backward = cuda_mse_backward,
    .sum = cuda_sum,
    .class_rank = cuda_class_rank,
    .argmax_rows = cuda_argmax_rows,
    .sum_squares = cuda_sum_squares,
    .scale = cuda_scale,
    .adamw_update = cuda_adamw_update,
};
