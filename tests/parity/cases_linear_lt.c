// tests/parity/cases_linear_lt.c — the CUDA backend's cuBLASLt linear path (POSBENCH_LINEAR=lt,
// core/cuda/linear_lt_cuda.cu) under train.precision=bf16 against the CPU op: forward with the
// bias in the epilogue and without bias, backward (din, dweight accumulating, dbias), at sizes that
// are not multiples of 8 and with operands at unaligned offsets (4 and 12 bytes past an allocation's
// start), also fed by the v2 bf16 conversion; bitwise run to run (the cached algorithm, no in-place
// split-K reduction); and the cached bf16 weight copies kept true when the weights change (two AdamW
// steps, an upload, a scale), the cached copy reused bitwise. Both sides round the operands to bf16
// the same way and accumulate in fp32, so the fp32 product tolerances hold (parity_gemm_tol, with
// 1e-5 more for the backward). Run against cuda only. (That the Lt workspace is counted by the
// memory meter is tests/test_cuda_linear_lt.c's check.)
#include "parity.h"
#include <string.h>

// p: N, IC, OC, offset in floats
static void lt_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int N = p[0], IC = p[1], OC = p[2], off = p[3];
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = pr_in_at(r, nin, -1, 1, off), *w = pr_in_at(r, nw, -1, 1, off), *b = pr_in_at(r, OC, -1, 1, off);
    float *dout = pr_in_at(r, nout, -1, 1, off), *din = pr_in_at(r, nin, -1, 1, off), *dw = pr_in_at(r, nw, -1, 1, off);
    float *db = pr_in_at(r, OC, -1, 1, off), *out = pr_buf_at(r, nout, off), *out0 = pr_buf_at(r, nout, off);
    o->linear_forward(out, in, w, b, N, IC, OC);
    o->linear_forward(out0, in, w, NULL, N, IC, OC);
    o->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    parity_tol ti = parity_gemm_tol(OC), tw = parity_gemm_tol(N);
    ti.atol += 1e-5;
    tw.atol += 1e-5;
    pr_out(r, "out, bias epilogue", out, nout, parity_gemm_tol(IC));
    pr_out(r, "out, no bias", out0, nout, parity_gemm_tol(IC));
    pr_out(r, "din +=", din, nin, ti);
    pr_out(r, "dweight +=", dw, nw, tw);
    pr_out(r, "dbias +=", db, OC, parity_sum_tol(N));
}

// The bf16 copy of a trained weight is reused while the weight is unchanged and refreshed after
// AdamW, an upload (a checkpoint load) or a scale (an EMA-style write) writes it.
static void weight_copies_case(parity_run *r, const int *p) {
    (void)p;
    const ops_backend *o = pr_ops(r);
    int N = 37, IC = 45, OC = 29;
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = pr_in(r, nin, -1, 1), *w = pr_in(r, nw, -1, 1), *g = pr_in(r, nw, -1, 1);
    float *m = pr_buf(r, nw * sizeof(float)), *v = pr_buf(r, nw * sizeof(float));
    float *out = pr_buf(r, nout * sizeof(float)), *again = pr_buf(r, nout * sizeof(float));
    float *host_out = pr_host(r, nout * sizeof(float)), *host_again = pr_host(r, nout * sizeof(float));
    adamw_segment seg = {0, nw, 1};
    static const char *const after[4] = {"after AdamW step 1", "after AdamW step 2", "after an upload", "after a scale"};
    for (int k = 0; k < 4; k++) {
        if (k < 2) o->adamw_update_multi(w, g, m, v, &seg, 1, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.05f, k + 1);
        if (k == 2) o->upload(w, pr_host_of(r, g), nw * sizeof(float)); // new weights
        if (k == 3) o->scale(w, nw, 0.5f);
        o->linear_forward(out, in, w, NULL, N, IC, OC);
        o->linear_forward(again, in, w, NULL, N, IC, OC); // the cached copy again
        o->download(host_out, out, nout * sizeof(float));
        o->download(host_again, again, nout * sizeof(float));
        pr_require(r, "the cached copy reused gives the same bits", memcmp(host_out, host_again, nout * sizeof(float)) == 0);
        pr_out(r, after[k], out, nout, parity_gemm_tol(IC));
    }
}

#define LT .precision = MATMUL_BF16, .cuda = "POSBENCH_LINEAR=lt"
#define LT_V2 .precision = MATMUL_BF16, .cuda = "POSBENCH_LINEAR=lt POSBENCH_KERNELS=v2"
const parity_case parity_cases_linear_lt[] = {
    {"linear_forward linear_backward", "37x45 -> 29: nothing a multiple of 8", lt_case, {37, 45, 29, 0}, LT, .repeat = 1},
    {"linear_forward linear_backward", "37x45 -> 29, every operand 4 bytes off", lt_case, {37, 45, 29, 1}, LT, .repeat = 1},
    {"linear_forward linear_backward", "394x768 -> 2304 (ViT-B's qkv at 2 images), 12 bytes off", lt_case, {394, 768, 2304, 3}, LT,
     .large = 1},
    {"linear_forward linear_backward", "394x768 -> 3072", lt_case, {394, 768, 3072, 0}, LT, .repeat = 1, .large = 1},
    {"linear_forward linear_backward", "4096x384 -> 1152", lt_case, {4096, 384, 1152, 0}, LT, .large = 1},
    {"linear_forward adamw_update_multi upload scale", "the cached bf16 weight copies", weight_copies_case, {0}, LT},
    {"linear_forward linear_backward", "37x45 -> 29, 4 bytes off, v2 bf16 conversion", lt_case, {37, 45, 29, 1}, LT_V2},
    {"linear_forward linear_backward", "394x768 -> 2304, v2 bf16 conversion", lt_case, {394, 768, 2304, 0}, LT_V2, .large = 1},
};
const int parity_cases_linear_lt_count = (int)(sizeof parity_cases_linear_lt / sizeof parity_cases_linear_lt[0]);
