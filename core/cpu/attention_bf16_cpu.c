// core/cpu/attention_bf16_cpu.c — attention on bf16 storage (core/ops_list.h attention_forward_bf16,
// attention_backward_bf16) on the CPU: the bf16 q/k/v (and output gradient) are widened exactly into
// dense_cpu.c's host scratch slots and attention_cpu.c's own forward / backward runs on them — the
// same code, so on bf16-exact inputs the same bits as the fp32 op — then the output (the input
// gradient, computed from zero) is rounded to bf16 once. An emulation of the storage's rounding
// points for tests and the guarded backend; the CUDA twin is core/cuda/attention_bf16_cuda.cu.
// Scratch slots: 0 the widened qkv (B, T, 3C); forward 1 the fp32 output (B, T, C); backward 1 the
// widened output gradient (B, T, C), 2 the fp32 input gradient (B, T, 3C).
#include "ops_cpu_internal.h"
#include "../common.h"
#include <string.h>

void cpu_attention_forward_bf16(bfloat16 *out16, float *probs, const bfloat16 *qkv16, const attention_desc *d) {
    attention_desc_check_bf16(d, "attention_forward_bf16");
    size_t n_out = (size_t)d->B * d->T * d->C, n_qkv = 3 * n_out;
    float *qkv = cpu_matmul_scratch(0, n_qkv), *out = cpu_matmul_scratch(1, n_out);
    cpu_from_bf16(qkv, qkv16, n_qkv);
    cpu_attention_forward(out, probs, qkv, d);
    cpu_to_bf16(out16, out, n_out);
}

void cpu_attention_backward_bf16(bfloat16 *dqkv16, const bfloat16 *dout16, const bfloat16 *qkv16, const bfloat16 *out16,
                                 const float *probs, const attention_desc *d) {
    (void)out16; // the CPU keeps the probabilities: Σ p·dp needs no output (attention_cpu.c)
    attention_desc_check_bf16(d, "attention_backward_bf16");
    size_t n_out = (size_t)d->B * d->T * d->C, n_qkv = 3 * n_out;
    float *qkv = cpu_matmul_scratch(0, n_qkv), *dout = cpu_matmul_scratch(1, n_out), *dqkv = cpu_matmul_scratch(2, n_qkv);
    cpu_from_bf16(qkv, qkv16, n_qkv);
    cpu_from_bf16(dout, dout16, n_out);
    if (n_qkv) memset(dqkv, 0, n_qkv * sizeof(float));
    cpu_attention_backward(dqkv, NULL, NULL, dout, qkv, NULL, probs, d);
    cpu_to_bf16(dqkv16, dqkv, n_qkv);
}
