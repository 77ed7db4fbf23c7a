// core/cpu/linear_bf16_cpu.c — the linear layer on a bf16 input (core/ops_list.h
// linear_forward_bf16, linear_backward_bf16) on the CPU: the bf16 values are widened (exactly)
// into dense_cpu.c's operand scratch and dense_cpu.c's own products run on them — the same sgemm
// calls linear_forward / linear_backward make under MATMUL_BF16, so on the same values the same
// bits — and a bf16 output is rounded once from the fp32 result (core/bf16.h's rule). Scratch
// slots: 0 the input (forward) or the output gradient (backward), 1 the weight's bf16 copy and
// then the input, 2 the fp32 result a bf16 output is rounded from. An emulation of the storage's
// rounding points for tests and the guarded backend; the CUDA twin is core/cuda/linear_bf16_cuda.cu.
#include "ops_cpu_internal.h"
#include "../common.h"
#include <string.h>

// x (n) bf16 widened to fp32 in scratch `slot`.
static const float *widened(int slot, const bfloat16 *x, size_t n) {
    float *r = cpu_matmul_scratch(slot, n);
    cpu_from_bf16(r, x, n);
    return r;
}

void cpu_linear_forward_bf16(float *out, bfloat16 *out16, const bfloat16 *in, const float *weight, const float *bias,
                             int N, int IC, int OC) {
    if (!out == !out16) die_fail("linear_forward_bf16: give exactly one of out (fp32) and out16 (bf16)");
    size_t n_out = (size_t)N * OC;
    // out (N, OC) = in (N, IC) · bf16(weight) (OC, IC)ᵀ + bias, in fp32
    float *y = out ? out : cpu_matmul_scratch(2, n_out);
    cpu_linear_product(y, widened(0, in, (size_t)N * IC), cpu_bf16_operand(1, weight, (size_t)OC * IC), bias, N, IC, OC);
    if (out16) cpu_to_bf16(out16, y, n_out);
}

void cpu_linear_backward_bf16(float *din, bfloat16 *din16, float *dweight, float *dbias, const float *dout,
                              const bfloat16 *dout16, const bfloat16 *in, const float *weight, int N, int IC, int OC,
                              int din_mode) {
    if (!dout == !dout16) die_fail("linear_backward_bf16: give exactly one of dout (fp32) and dout16 (bf16)");
    if (din && din16) die_fail("linear_backward_bf16: give at most one of din (fp32) and din16 (bf16)");
    if (din_mode != GRAD_WRITE && din_mode != GRAD_ACCUMULATE)
        die_fail("linear_backward_bf16: din_mode %d is neither GRAD_WRITE (%d) nor GRAD_ACCUMULATE (%d)", din_mode,
                 GRAD_WRITE, GRAD_ACCUMULATE);
    size_t n_out = (size_t)N * OC, n_in = (size_t)N * IC;
    // g (N, OC): the output gradient as both products read it (bf16 values)
    const float *g;
    if (dout16) {
        g = widened(0, dout16, n_out);
        if (dbias) cpu_column_sums_add(dbias, g, N, OC);
    } else {
        if (dbias) cpu_column_sums_add(dbias, dout, N, OC); // the fp32 dout, as linear_backward
        g = cpu_bf16_operand(0, dout, n_out);
    }
    if (din || din16) { // din (N, IC) (+)= g · bf16(weight); din16 = bf16(0 + that)
        const float *w = cpu_bf16_operand(1, weight, (size_t)OC * IC);
        float *dx = din16 ? cpu_matmul_scratch(2, n_in) : din;
        // Written: accumulated onto zeros (sgemm's beta = 0 may store -0 where 0 + -0 is +0; this
        // keeps the accumulating path's bits, GRAD_WRITE's contract)
        if ((din16 || din_mode == GRAD_WRITE) && n_in) memset(dx, 0, n_in * sizeof(float));
        cpu_linear_input_grad(dx, g, w, N, IC, OC);
        if (din16) cpu_to_bf16(din16, dx, n_in);
    }
    if (dweight) cpu_linear_weight_grad(dweight, g, widened(1, in, n_in), N, IC, OC); // dweight (OC, IC) += gᵀ · in
}
