// tests/parity/cases_kernels_v2.c — the CUDA backend's vectorised elementwise kernels
// (POSBENCH_KERNELS=v2: core/cuda/dense_vec_cuda.cu, optim_cuda.cu's one-launch AdamW), each case
// run under v2 against the CPU and against the scalar v1 kernels (the twin route). Bit for bit v1:
// GELU, residual with and without drop path, the bf16 operand conversion seen through a bf16
// product, AdamW over a segment table, and the column sums (bias and LayerNorm parameter
// gradients: the same order per column); LayerNorm's row statistics sum in another fixed order, so
// its outputs are within the reduction tolerance of the CPU and bitwise run to run. Sizes with n
// mod 4 and mod 8 != 0 and arrays at 4-, 8- and 12-byte offsets, also offset differently from each
// other (the scalar fallback). Run against cuda only.
#include "parity.h"
#include "../../core/rng.h"

#define SAME(t) PARITY_SAME_ROUTES(t)

// p: n, offset of the outputs, offset of the inputs
static void gelu_case(parity_run *r, const int *p) {
    size_t n = (size_t)p[0];
    float *in = pr_in_at(r, n, -4, 4, p[2]), *dout = pr_in_at(r, n, -1, 1, p[2]);
    float *din = pr_in_at(r, n, -1, 1, p[1]), *out = pr_buf_at(r, n, p[1]);
    pr_ops(r)->gelu_forward(out, in, n);
    pr_ops(r)->gelu_backward(din, dout, in, n);
    pr_out(r, "out", out, n, SAME(PARITY_EW));
    pr_out(r, "din +=", din, n, SAME(PARITY_EW));
}

// p: B, S, with drop path, offset. Bit for bit the CPU too (its products are rounded as __fmul_rn).
static void residual_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0];
    size_t S = (size_t)p[1], n = (size_t)B * S;
    static const rng_addr a = {.seed = 42, .purpose = RNG_DROPPATH, .epoch = 3, .step = 17, .index = 5};
    float *keep = p[2] ? pr_buf(r, (size_t)B * sizeof(float)) : NULL;
    if (keep) o->drop_path_scales(keep, B, 0.5f, a);
    float *x = pr_in_at(r, n, -1, 1, p[3]), *br = pr_in_at(r, n, -1, 1, p[3]), *dout = pr_in_at(r, n, -1, 1, p[3]);
    float *dx = pr_in_at(r, n, -1, 1, p[3]), *dbr = pr_in_at(r, n, -1, 1, p[3]), *out = pr_buf_at(r, n, p[3]);
    o->residual_forward(out, x, br, keep, B, S);
    o->residual_backward(dx, dbr, dout, keep, B, S);
    pr_out(r, "out", out, n, SAME(PARITY_BITWISE));
    pr_out(r, "dx +=", dx, n, SAME(PARITY_EW));
    pr_out(r, "dbranch +=", dbr, n, SAME(PARITY_BITWISE));
}

// p: N, C, offset of the rows. Forward and input gradient within the reduction tolerance (and
// bitwise run to run: repeat), the parameter gradients bitwise v1.
static void layernorm_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int N = p[0], C = p[1], off = p[2];
    size_t n = (size_t)N * C;
    float *in = pr_in_at(r, n, -2, 2, off), *w = pr_in(r, C, 0.5f, 1.5f), *b = pr_in(r, C, -1, 1);
    float *dout = pr_in_at(r, n, -1, 1, off), *din = pr_in_at(r, n, -1, 1, off), *dw = pr_in(r, C, -1, 1), *db = pr_in(r, C, -1, 1);
    float *out = pr_buf_at(r, n, off), *mean = pr_buf(r, (size_t)N * sizeof(float)), *rstd = pr_buf(r, (size_t)N * sizeof(float));
    o->layernorm_forward(out, mean, rstd, in, w, b, N, C);
    o->layernorm_backward(din, NULL, NULL, dout, in, w, mean, rstd, N, C);
    parity_tol t = {1e-5, 1e-4, 0};
    pr_out(r, "out", out, n, t);
    pr_out(r, "din +=", din, n, t);
    // the parameter gradients from statistics formed on the host, the same under both routes, so
    // that the column sums alone are compared
    float *hm = pr_host(r, (size_t)N * sizeof(float)), *hr = pr_host(r, (size_t)N * sizeof(float));
    parity_layernorm_stats(pr_host_of(r, in), N, C, hm, hr);
    o->layernorm_backward(NULL, dw, db, dout, in, w, pr_in_host(r, hm, N), pr_in_host(r, hr, N), N, C);
    pr_out(r, "dweight += (column sums)", dw, C, SAME(parity_sum_tol(N)));
    pr_out(r, "dbias += (column sums)", db, C, SAME(parity_sum_tol(N)));
}

// p: N, IC, OC, offset, bf16. The bias gradient's column sums bitwise v1; in bf16 also the
// products (the operands' bf16 conversion is the same rounding, vectorised).
static void linear_case(parity_run *r, const int *p) {
    int N = p[0], IC = p[1], OC = p[2], off = p[3], bf16 = p[4];
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = pr_in_at(r, nin, -1, 1, off), *w = pr_in_at(r, nw, -1, 1, off), *b = pr_in(r, OC, -1, 1);
    float *dout = pr_in_at(r, nout, -1, 1, off);
    float *out = pr_buf_at(r, nout, off), *din = pr_buf_at(r, nin, off), *dw = pr_buf(r, nw * sizeof(float));
    float *db = pr_buf(r, (size_t)OC * sizeof(float));
    pr_ops(r)->linear_forward(out, in, w, b, N, IC, OC);
    pr_ops(r)->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    parity_tol fo = parity_gemm_tol(IC), fi = parity_gemm_tol(OC), fw = parity_gemm_tol(N);
    pr_out(r, "out", out, nout, bf16 ? SAME(fo) : fo);
    pr_out(r, "din", din, nin, bf16 ? SAME(fi) : fi);
    pr_out(r, "dweight", dw, nw, bf16 ? SAME(fw) : fw);
    pr_out(r, "dbias (column sums)", db, OC, SAME(parity_sum_tol(N)));
}

// AdamW over a table of segments (odd sizes, offsets not multiples of 4, one without decay), two
// steps: the one-launch v2 kernel bitwise v1's per-tensor launches.
static void adamw_multi_case(parity_run *r, const int *p) {
    (void)p;
    static const adamw_segment segs[4] = {{0, 1001, 1}, {1003, 7, 0}, {1011, 70001, 1}, {71013, 16384 * 2 + 5, 1}};
    size_t n = 71013 + 16384 * 2 + 5;
    float *w = pr_in(r, n, -1, 1), *g = pr_in(r, n, -1, 1), *m = pr_in(r, n, -0.1f, 0.1f), *v = pr_in(r, n, 0, 1e-2f);
    for (int t = 1; t <= 2; t++) pr_ops(r)->adamw_update_multi(w, g, m, v, segs, 4, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, t);
    pr_out(r, "params", w, n, SAME(PARITY_EW));
    pr_out(r, "first moments", m, n, SAME(PARITY_EW));
    pr_out(r, "second moments", v, n, SAME(PARITY_EW));
}

#define V2 .cuda = "POSBENCH_KERNELS=v2", .twin = "POSBENCH_KERNELS=v1"
const parity_case parity_cases_kernels_v2[] = {
    {"gelu_forward gelu_backward", "100003, aligned", gelu_case, {100003, 0, 0}, V2},
    {"gelu_forward gelu_backward", "100003, both 4 bytes off: scalar prefix, vectors, tail", gelu_case, {100003, 1, 1}, V2},
    {"gelu_forward gelu_backward", "100003, offsets 12 and 8 bytes: the scalar kernel", gelu_case, {100003, 3, 2}, V2},
    {"gelu_forward gelu_backward", "5: shorter than a vector's prefix and body", gelu_case, {5, 0, 0}, V2},
    {"residual_forward residual_backward", "7x1001 with drop path: the scalar kernel", residual_case, {7, 1001, 1, 0}, V2},
    {"residual_forward residual_backward", "7x1004 with drop path: vectors within samples", residual_case, {7, 1004, 1, 0}, V2},
    {"residual_forward residual_backward", "7x1004 with drop path, 4 bytes off: the scalar kernel", residual_case, {7, 1004, 1, 1},
     V2},
    {"residual_forward residual_backward", "7x1001 plain, 8 bytes off", residual_case, {7, 1001, 0, 2}, V2},
    {"layernorm_forward layernorm_backward", "37x768", layernorm_case, {37, 768, 0}, V2, .repeat = 1},
    {"layernorm_forward layernorm_backward", "1000x768: parameter gradients over 4 row chunks", layernorm_case, {1000, 768, 0}, V2,
     .repeat = 1},
    {"layernorm_forward layernorm_backward", "37x19: C mod 4 != 0, the scalar kernels", layernorm_case, {37, 19, 0}, V2, .repeat = 1},
    {"layernorm_forward layernorm_backward", "37x768, rows 4 bytes off: the scalar kernels", layernorm_case, {37, 768, 1}, V2,
     .repeat = 1},
    {"linear_forward linear_backward", "1000x64 -> 96, fp32", linear_case, {1000, 64, 96, 0, 0}, V2},
    {"linear_forward linear_backward", "37x45 -> 29, bf16", linear_case, {37, 45, 29, 0, 1}, V2, .precision = MATMUL_BF16},
    {"linear_forward linear_backward", "37x45 -> 29, bf16, input 4 bytes off: scalar loads, 16-byte bf16 stores", linear_case,
     {37, 45, 29, 1, 1}, V2, .precision = MATMUL_BF16},
    {"linear_forward linear_backward", "394x768 -> 2304, bf16, 12 bytes off", linear_case, {394, 768, 2304, 3, 1}, V2,
     .precision = MATMUL_BF16, .large = 1},
    {"adamw_update_multi", "4 segments, 104786 values, 2 steps", adamw_multi_case, {0}, V2},
};
const int parity_cases_kernels_v2_count = (int)(sizeof parity_cases_kernels_v2 / sizeof parity_cases_kernels_v2[0]);
