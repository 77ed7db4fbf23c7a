// tests/parity/cases_bf16.c — parity cases of the bf16-activation ops (core/cpu/dense_bf16_cpu.c,
// core/cuda/dense_bf16_cuda.cu) and of the linear layer on a bf16 input (linear_bf16_cpu.c,
// linear_bf16_cuda.cu, on both CUDA linear routes: cublasGemmEx and cuBLASLt). Each bf16 op against
// the CPU's: fp32 results within the fp32 twin's tolerance, bf16 results within that plus one bf16
// step (a value near a rounding boundary may round the other way): rtol 2^-7 on top. (That each
// bf16 op equals bf16_round of its fp32 twin bit for bit on one backend is
// tests/test_dense_bf16.c's and test_linear_bf16.c's check, for every backend present.)
#include "parity.h"
#include "../linear_bf16_cases.h"

#define BF16_STEP (1.0 / 128)

// p: n
static void convert_gelu_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    size_t n = (size_t)p[0];
    float *x = pr_in(r, n, -4, 4), *back = pr_buf(r, n * sizeof(float));
    bfloat16 *x16 = pr_buf(r, n * sizeof(bfloat16)), *y16 = pr_buf(r, n * sizeof(bfloat16));
    bfloat16 *g16 = pr_buf(r, n * sizeof(bfloat16)), *din16 = pr_buf(r, n * sizeof(bfloat16));
    float *g = pr_in(r, n, -1, 1);
    o->to_bf16(x16, x, n);
    o->from_bf16(back, x16, n);
    o->to_bf16(g16, g, n);
    o->gelu_forward_bf16(y16, x16, n);
    o->gelu_backward_bf16(din16, g16, x16, n);
    pr_out_bf16(r, "to_bf16 (round to nearest even)", x16, n, PARITY_BITWISE);
    pr_out(r, "from_bf16", back, n, PARITY_BITWISE);
    pr_out_bf16(r, "gelu out", y16, n, (parity_tol){1e-6, 1e-5 + BF16_STEP, 0});
    pr_out_bf16(r, "gelu din (written)", din16, n, (parity_tol){1e-6, 1e-5 + BF16_STEP, 0});
}

// p: B, T, C. The residual add with drop path and the next LayerNorm in one pass (and with no
// branch: a block's first LayerNorm), then LayerNorm's backward from a bf16 output gradient.
static void residual_layernorm_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0], T = p[1], C = p[2], N = B * T;
    size_t n = (size_t)N * C;
    static const rng_addr a = {.seed = 42, .purpose = RNG_DROPPATH, .epoch = 3, .step = 17, .index = 5};
    float *keep = pr_buf(r, (size_t)B * sizeof(float));
    o->drop_path_scales(keep, B, 0.5f, a);
    float *x = pr_in(r, n, -2, 2), *brf = pr_in(r, n, -1, 1), *w = pr_in(r, C, 0.5f, 1.5f), *b = pr_in(r, C, -1, 1);
    float *gf = pr_in(r, n, -1, 1), *din = pr_in(r, n, -1, 1), *dw = pr_in(r, C, -1, 1), *db = pr_in(r, C, -1, 1);
    bfloat16 *br16 = pr_buf(r, n * sizeof(bfloat16)), *g16 = pr_buf(r, n * sizeof(bfloat16));
    bfloat16 *ln16 = pr_buf(r, n * sizeof(bfloat16)), *ln0 = pr_buf(r, n * sizeof(bfloat16));
    float *res = pr_buf(r, n * sizeof(float)), *mean = pr_buf(r, (size_t)N * sizeof(float)), *rstd = pr_buf(r, (size_t)N * sizeof(float));
    float *mean0 = pr_buf(r, (size_t)N * sizeof(float)), *rstd0 = pr_buf(r, (size_t)N * sizeof(float));
    o->to_bf16(br16, brf, n);
    o->to_bf16(g16, gf, n);
    o->residual_layernorm_forward_bf16(res, ln16, mean, rstd, x, br16, keep, w, b, B, T, C);
    o->residual_layernorm_forward_bf16(NULL, ln0, mean0, rstd0, x, NULL, NULL, w, b, B, T, C);
    parity_tol t = {1e-5, 1e-4, 0};
    pr_out(r, "res = x + keep·branch", res, n, PARITY_EW);
    pr_out_bf16(r, "bf16 LayerNorm of res", ln16, n, (parity_tol){1e-5, 1e-4 + BF16_STEP, 0});
    pr_out(r, "mean", mean, N, t);
    pr_out(r, "rstd", rstd, N, t);
    pr_out_bf16(r, "bf16 LayerNorm of x (no branch)", ln0, n, (parity_tol){1e-5, 1e-4 + BF16_STEP, 0});
    o->layernorm_backward_bf16(din, dw, db, g16, res, w, mean, rstd, N, C);
    pr_out(r, "layernorm_backward_bf16 din +=", din, n, (parity_tol){1e-4, 1e-3, 0});
    pr_out(r, "layernorm_backward_bf16 dweight +=", dw, C, parity_sum_tol(N));
    pr_out(r, "layernorm_backward_bf16 dbias +=", db, C, parity_sum_tol(N));
}

// p: k, the case of tests/linear_bf16_cases.c (its own inputs, on the backend under test)
static void linear_bf16_case(parity_run *r, const int *p) {
    linear_bf16_outputs o = linear_bf16_run(pr_ops(r), p[0], 0, MATMUL_BF16);
    size_t ny = (size_t)o.N * o.OC, nx = (size_t)o.N * o.IC, nw = (size_t)o.OC * o.IC;
    parity_tol t = {1e-4, 1e-4, 0}, t16 = {1e-4, 1e-4 + BF16_STEP, 0};
    pr_out_host(r, "forward out", o.y, ny, t);
    pr_out_host_bf16(r, "forward out16", o.y16, ny, t16);
    pr_out_host(r, "din +=", o.din, nx, t);
    pr_out_host(r, "din written over NaN (GRAD_WRITE)", o.din_w, nx, t);
    pr_out_host(r, "dweight +=", o.dw, nw, t);
    pr_out_host(r, "dbias +=", o.db, (size_t)o.OC, t);
    pr_out_host_bf16(r, "din16 from dout16 (written)", o.din16, nx, t16);
    pr_out_host(r, "dweight += from dout16", o.dw16, nw, t);
    pr_out_host(r, "dbias += from dout16", o.db16, (size_t)o.OC, t);
    linear_bf16_outputs_free(&o);
}

#define LINEAR(k, route) \
    {"linear_forward_bf16 linear_backward_bf16", "linear_bf16_cases.c case " #k, linear_bf16_case, {k}, .repeat = 1, .cuda = route}
const parity_case parity_cases_bf16[] = {
    {"to_bf16 from_bf16 gelu_forward_bf16 gelu_backward_bf16", "100003", convert_gelu_case, {100003}, .repeat = 0},
    {"residual_layernorm_forward_bf16 layernorm_backward_bf16", "B 3 T 17 C 19", residual_layernorm_case, {3, 17, 19}, .repeat = 0},
    {"residual_layernorm_forward_bf16 layernorm_backward_bf16", "B 2 T 65 C 768", residual_layernorm_case, {2, 65, 768}, .repeat = 0},
    LINEAR(0, NULL), LINEAR(1, NULL), LINEAR(2, NULL),
    LINEAR(0, "POSBENCH_LINEAR=gemmex"), LINEAR(1, "POSBENCH_LINEAR=gemmex"), LINEAR(2, "POSBENCH_LINEAR=gemmex"),
    LINEAR(0, "POSBENCH_LINEAR=lt"), LINEAR(1, "POSBENCH_LINEAR=lt"), LINEAR(2, "POSBENCH_LINEAR=lt"),
};
const int parity_cases_bf16_count = (int)(sizeof parity_cases_bf16 / sizeof parity_cases_bf16[0]);
