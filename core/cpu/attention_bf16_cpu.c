// core/cpu/attention_bf16_cpu.c — attention on bf16 storage (core/ops_list.h attention_forward_bf16,
// attention_backward_bf16) on the CPU: the bf16 q/k/v (and output gradient) are widened exactly into
// dense_cpu.c's host scratch slots and attention_cpu.c's own forward / backward runs on them — the
// same code, so on bf16-exact inputs the same bits as the fp32 op — then the output (the input
// gradient, computed from zero) is rounded to bf16 once. An emulation of the storage's rounding
// points for tests and the guarded backend; the CUDA twin is core/cuda/attention_bf16_cuda.cu.
// The compact layout (attention_kv_forward_bf16 / attention_kv_backward_bf16: q16 (B, T, C), kv16
// (B, M, 2C)) is widened into the same packed scratch, key slot m's k|v in row m, and the same ops
// run with kv_index = 0..M-1 per image; the gradient's q channels and rows 0..M-1 of its k|v
// channels are rounded back into dq16 and dkv16.
// Scratch slots: 0 the widened qkv (B, T, 3C); forward 1 the fp32 output (B, T, C); backward 1 the
// widened output gradient (B, T, C), 2 the fp32 input gradient (B, T, 3C); 3 the compact layout's
// identity kv_index (B, M) ints.
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

_Static_assert(sizeof(int) == sizeof(float), "the identity kv_index lives in a float scratch slot");

// The compact layout widened into the packed (B, T, 3C) scratch qkv: q16 (B, T, C) into every row's
// channels [0, C), kv16 (B, M, 2C) slot m into row m's channels [C, 3C) (rows M.. of those channels
// zero: never read); and the identity kv_index (B, M) that names those rows as the keys.
static const int *widen_compact(float *qkv, const bfloat16 *q16, const bfloat16 *kv16, const attention_desc *d) {
    const int B = d->B, T = d->T, M = d->M, C = d->C;
    const size_t C3 = 3 * (size_t)C;
    int *idx = (int *)cpu_matmul_scratch(3, (size_t)B * M);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            float *row = qkv + ((size_t)b * T + t) * C3;
            const bfloat16 *q = q16 + ((size_t)b * T + t) * C, *kv = t < M ? kv16 + ((size_t)b * M + t) * 2 * C : NULL;
            for (int c = 0; c < C; c++) row[c] = bf16_to_float(q[c]);
            for (int c = 0; c < 2 * C; c++) row[C + c] = kv ? bf16_to_float(kv[c]) : 0.0f;
        }
        for (int m = 0; m < M; m++) idx[(size_t)b * M + m] = m;
    }
    return idx;
}

void cpu_attention_kv_forward_bf16(bfloat16 *out16, float *probs, const bfloat16 *q16, const bfloat16 *kv16,
                                   const attention_desc *d) {
    attention_desc_check_kv_bf16(d, "attention_kv_forward_bf16");
    size_t n_out = (size_t)d->B * d->T * d->C;
    float *qkv = cpu_matmul_scratch(0, 3 * n_out), *out = cpu_matmul_scratch(1, n_out);
    attention_desc packed = *d;
    packed.kv_index = widen_compact(qkv, q16, kv16, d);
    cpu_attention_forward(out, probs, qkv, &packed);
    cpu_to_bf16(out16, out, n_out);
}

void cpu_attention_kv_backward_bf16(bfloat16 *dq16, bfloat16 *dkv16, const bfloat16 *dout16, const bfloat16 *q16,
                                    const bfloat16 *kv16, const bfloat16 *out16, const float *probs, const attention_desc *d) {
    (void)out16; // the CPU keeps the probabilities (attention_cpu.c)
    attention_desc_check_kv_bf16(d, "attention_kv_backward_bf16");
    const int B = d->B, T = d->T, M = d->M, C = d->C;
    size_t n_out = (size_t)B * T * C, n_qkv = 3 * n_out;
    float *qkv = cpu_matmul_scratch(0, n_qkv), *dout = cpu_matmul_scratch(1, n_out), *dqkv = cpu_matmul_scratch(2, n_qkv);
    attention_desc packed = *d;
    packed.kv_index = widen_compact(qkv, q16, kv16, d);
    cpu_from_bf16(dout, dout16, n_out);
    memset(dqkv, 0, n_qkv * sizeof(float));
    cpu_attention_backward(dqkv, NULL, NULL, dout, qkv, NULL, probs, &packed);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const float *row = dqkv + ((size_t)b * T + t) * 3 * C;
            bfloat16 *dq = dq16 + ((size_t)b * T + t) * C;
            for (int c = 0; c < C; c++) dq[c] = bf16_from_float(row[c]);
            if (t < M) {
                bfloat16 *dkv = dkv16 + ((size_t)b * M + t) * 2 * C;
                for (int c = 0; c < 2 * C; c++) dkv[c] = bf16_from_float(row[C + c]);
            }
        }
    }
}
