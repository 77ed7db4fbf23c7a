// tests/parity/cases_mixing.c — parity cases of gMLP's token mixing (core/cpu/mixing_cpu.c,
// core/cuda/mixing_cuda.cu): the spatial projection along tokens with and without bias, its
// backward into input, W and bias (accumulating; bitwise run to run), and the gate (bit for bit:
// one rounded product). Tolerances: a T-term sum parity_gemm_tol(T); W's and the bias's gradients
// sum B·C terms.
#include "parity.h"

// p: B, T, C
static void token_mix_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0], T = p[1], C = p[2];
    size_t n = (size_t)B * T * C, nw = (size_t)T * T;
    float *in = pr_in(r, n, -1, 1), *W = pr_in(r, nw, -1, 1), *b = pr_in(r, T, -1, 1), *dout = pr_in(r, n, -1, 1);
    float *din = pr_in(r, n, -1, 1), *dW = pr_in(r, nw, -1, 1), *db = pr_in(r, T, -1, 1);
    float *out = pr_buf(r, n * sizeof(float)), *out0 = pr_buf(r, n * sizeof(float));
    o->token_mix_forward(out, in, W, b, B, T, C);
    o->token_mix_forward(out0, in, W, NULL, B, T, C);
    o->token_mix_backward(din, dW, db, dout, in, W, B, T, C);
    pr_out(r, "out", out, n, parity_gemm_tol(T));
    pr_out(r, "out, no bias", out0, n, parity_gemm_tol(T));
    pr_out(r, "din +=", din, n, parity_gemm_tol(T));
    pr_out(r, "dW +=", dW, nw, parity_gemm_tol((double)B * C));
    pr_out(r, "dbias +=", db, T, parity_sum_tol((double)B * C));
}

static void gate_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *a = pr_in(r, n, -2, 2), *g = pr_in(r, n, -2, 2), *dout = pr_in(r, n, -1, 1);
    float *da = pr_in(r, n, -1, 1), *dg = pr_in(r, n, -1, 1), *out = pr_buf(r, n * sizeof(float));
    pr_ops(r)->gate_forward(out, a, g, n);
    pr_ops(r)->gate_backward(da, dg, dout, a, g, n);
    pr_out(r, "out", out, n, PARITY_BITWISE);
    pr_out(r, "da +=", da, n, PARITY_BITWISE);
    pr_out(r, "dg +=", dg, n, PARITY_BITWISE);
}

const parity_case parity_cases_mixing[] = {
    {"token_mix_forward token_mix_backward", "3x50x37", token_mix_case, {3, 50, 37}, .repeat = 1},
    {"token_mix_forward token_mix_backward", "1x17x5", token_mix_case, {1, 17, 5}, .repeat = 1},
    {"gate_forward gate_backward", "10007", gate_case, {10007}, .repeat = 0},
};
const int parity_cases_mixing_count = (int)(sizeof parity_cases_mixing / sizeof parity_cases_mixing[0]);
