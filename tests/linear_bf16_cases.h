// tests/linear_bf16_cases.h — the linear layer on a bf16 input (core/ops_list.h
// linear_forward_bf16, linear_backward_bf16) on one backend: every output of both ops for a few
// shapes (with and without bias, fp32 and bf16 outputs and output gradients), computed either by
// the bf16 ops or by their fp32 twins (linear_forward / linear_backward under MATMUL_BF16 on the
// widened inputs, the bf16 outputs rounded from them), so a test compares the two on one backend
// bit for bit (tests/test_linear_bf16.c: cpu, cpu-guarded) or one backend's bf16 ops against the
// CPU's within a tolerance (tests/parity/cases_bf16.c).
#pragma once
#include "../core/ops.h"
#include <stddef.h>

#define LINEAR_BF16_CASES 3

// One case's outputs (host arrays): forward fp32 y (N, OC) and bf16 y16; backward from an fp32
// output gradient (din, dw, db accumulated onto fixed starting values; din_w the input gradient
// written, GRAD_WRITE, over NaN — the twins: accumulated onto zeros) and from a bf16 one (din16
// written over garbage, dw16, db16 accumulated onto the same starting values).
typedef struct {
    int N, IC, OC, has_bias;
    float *y, *din, *din_w, *dw, *db, *dw16, *db16;
    bfloat16 *y16, *din16;
} linear_bf16_outputs;

// Case k (0 <= k < LINEAR_BF16_CASES) on backend ops: with the bf16 ops (use_twins = 0, under
// `precision`, which they must ignore), or with the fp32 twins under MATMUL_BF16 (use_twins = 1).
// The inputs are the same for every backend (Philox-drawn, rounded to bf16 where stored bf16).
linear_bf16_outputs linear_bf16_run(const ops_backend *ops, int k, int use_twins, int precision);
void linear_bf16_outputs_free(linear_bf16_outputs *o);
// Elements of a and b that differ: bit for bit (atol < 0), else by more than atol + rtol·|b|
// (fp32 outputs) and by more than one bf16 step past that (bf16 outputs). Names the worst
// output in why (len bytes).
size_t linear_bf16_compare(const linear_bf16_outputs *a, const linear_bf16_outputs *b, double atol, double rtol,
                           char *why, size_t len);
