// tests/test_ops.c — finite-difference gradient checks of every non-attention CPU op
// (attention has tests/test_attention.c), reference values for the losses and AdamW,
// Philox known-answer vectors, and thread-count independence of the reductions.
// Tolerances: GRADCHECK_DEFAULT (central differences, eps 1e-2, |err| <= 2e-3 + 2e-2·|g|)
// unless a check says otherwise.
#include "testing.h"
#include "gradcheck.h"
#include "../core/bf16.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/optimizer.h"
#include "../core/rng.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ops_backend *ops = &ops_cpu;

// ---------------------------------------------------------------- linear
typedef struct { float *out, *in, *w, *b, *dout; int N, IC, OC; } linear_ctx;
static double linear_loss(void *p) {
    linear_ctx *c = p;
    ops->linear_forward(c->out, c->in, c->w, c->b, c->N, c->IC, c->OC);
    return gradcheck_dot(c->out, c->dout, (size_t)c->N * c->OC);
}
static void test_linear(void) {
    linear_ctx c = {.N = 5, .IC = 7, .OC = 6};
    c.in = test_rnd(35, -1, 1, 1); c.w = test_rnd(42, -1, 1, 2); c.b = test_rnd(6, -1, 1, 3);
    c.out = test_zeros(30); c.dout = test_rnd(30, -1, 1, 4);
    float *din = test_zeros(35), *dw = test_zeros(42), *db = test_zeros(6);
    ops->linear_backward(din, dw, db, c.dout, c.in, c.w, c.N, c.IC, c.OC);
    gradcheck("linear input", &c, linear_loss, c.in, din, 35, GRADCHECK_DEFAULT);
    gradcheck("linear weight", &c, linear_loss, c.w, dw, 42, GRADCHECK_DEFAULT);
    gradcheck("linear bias", &c, linear_loss, c.b, db, 6, GRADCHECK_DEFAULT);
    // Accumulation: a second backward doubles every gradient.
    float before = dw[3];
    ops->linear_backward(din, dw, db, c.dout, c.in, c.w, c.N, c.IC, c.OC);
    test_check("linear backward accumulates", fabsf(dw[3] - 2 * before) <= 1e-6f * fabsf(before) + 1e-7f,
               "dw[3] %g after two passes, %g after one", dw[3], before);
    free(c.in); free(c.w); free(c.b); free(c.out); free(c.dout); free(din); free(dw); free(db);
}

// ---------------------------------------------------------------- bf16 linear (train.precision)
// bf16_round on values with known answers: exact ones stay, halfway cases go to the even
// mantissa, overflow goes to inf, inf and NaN survive.
static void test_bf16_round_known(void) {
    struct { float x, want; } cases[] = {
        {1.0f, 1.0f}, {-2.5f, -2.5f}, {0.0f, 0.0f},
        {1.00390625f, 1.0f},              // 1 + 2^-8: halfway between 1 and 1 + 2^-7, even is 1
        {1.01171875f, 1.015625f},         // 1 + 3·2^-8: halfway, 1 + 2^-7 is odd, so up to 1 + 2^-6
        {0x1.010002p+0f, 1.0078125f},     // 1 + 2^-8 + 2^-23, just above halfway: up
        {3.4028235e38f, INFINITY},        // FLT_MAX is past the largest bf16 (3.3895e38)
        {-INFINITY, -INFINITY},
    };
    int ok = 1;
    char why[200] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float got = bf16_round(cases[i].x);
        if (memcmp(&got, &cases[i].want, sizeof got) != 0 && ok) {
            ok = 0;
            snprintf(why, sizeof why, "bf16_round(%.9g) = %.9g, expected %.9g", cases[i].x, got, cases[i].want);
        }
    }
    float nan = bf16_round(NAN);
    if (!isnan(nan) && ok) ok = 0, snprintf(why, sizeof why, "bf16_round(NaN) = %g", nan);
    test_check("bf16_round: exact, ties to even, overflow to inf, inf and NaN kept", ok, "%s", why[0] ? why : "8 cases and NaN");
}

// bf16_round against PyTorch's float -> bfloat16 conversion on 200k floats of every exponent
// (random bit patterns, NaNs compared as NaN): the independent oracle for the rounding rule.
static void test_bf16_round_torch(void) {
    const char *name = "bf16_round = torch .bfloat16() on 200000 random bit patterns";
    char dir[] = "/tmp/posbench_bf16_XXXXXX";
    if (!test_torch_dir(name, dir)) return;
    enum { N = 200000 };
    float *x = xmalloc(N * sizeof(float), "bf16 inputs"), *want = xmalloc(N * sizeof(float), "torch bf16");
    rng_stream s = rng_stream_make(7, RNG_TEST, 0, 0, 0);
    for (int i = 0; i < N; i++) {
        uint32_t bits = rng_u32(&s);
        memcpy(&x[i], &bits, sizeof bits);
    }
    char in_path[256], out_path[256], cmd[1024];
    snprintf(in_path, sizeof in_path, "%s/in.f32", dir);
    snprintf(out_path, sizeof out_path, "%s/out.f32", dir);
    FILE *f = fopen(in_path, "wb");
    int ok = f && fwrite(x, sizeof(float), N, f) == N;
    if (f && fclose(f) != 0) ok = 0;
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import sys, numpy, torch; a = numpy.fromfile(sys.argv[1], dtype=numpy.float32); "
             "torch.from_numpy(a).bfloat16().float().numpy().tofile(sys.argv[2])\" %s %s", in_path, out_path);
    ok = ok && system(cmd) == 0;
    f = ok ? fopen(out_path, "rb") : NULL;
    ok = f && fread(want, sizeof(float), N, f) == N;
    if (f) fclose(f);
    int bad = 0, first = -1;
    for (int i = 0; ok && i < N; i++) {
        float got = bf16_round(x[i]);
        int same = isnan(want[i]) ? isnan(got) : memcmp(&got, &want[i], sizeof got) == 0;
        if (!same && bad++ == 0) first = i;
    }
    if (!ok) test_fail(name, "could not run the torch conversion in %s", dir);
    else if (bad) test_fail(name, "%d differ; first: %.9g -> ours %.9g, torch %.9g", bad, x[first], bf16_round(x[first]), want[first]);
    else test_pass(name, "all %d equal bit for bit", N);
    remove(in_path);
    remove(out_path);
    rmdir(dir);
    free(x);
    free(want);
}

// linear forward and backward with MATMUL_BF16 equal the double-precision products of the
// bf16-rounded operands (to fp32 accumulation error), differ from fp32, and MATMUL_FP32 after it
// gives back the fp32 bits: the setting is the only state.
static void test_linear_bf16(void) {
    enum { N = 33, IC = 70, OC = 21 };
    float *in = test_rnd(N * IC, -1, 1, 11), *w = test_rnd(OC * IC, -1, 1, 12), *b = test_rnd(OC, -1, 1, 13);
    float *dout = test_rnd(N * OC, -1, 1, 14);
    float *out = test_zeros(N * OC), *out32 = test_zeros(N * OC), *again = test_zeros(N * OC);
    float *din = test_zeros(N * IC), *dw = test_zeros(OC * IC), *db = test_zeros(OC);
    ops->linear_forward(out32, in, w, b, N, IC, OC);
    ops->set_matmul_precision(MATMUL_BF16);
    ops->linear_forward(out, in, w, b, N, IC, OC);
    ops->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    ops->set_matmul_precision(MATMUL_FP32);
    ops->linear_forward(again, in, w, b, N, IC, OC);
    double err_out = 0, err_din = 0, err_dw = 0, err_db = 0, diff32 = 0;
    for (int n = 0; n < N; n++)
        for (int o = 0; o < OC; o++) {
            double acc = b[o];
            for (int i = 0; i < IC; i++) acc += (double)bf16_round(in[n * IC + i]) * bf16_round(w[o * IC + i]);
            err_out = fmax(err_out, fabs(out[n * OC + o] - acc));
            diff32 = fmax(diff32, fabs(out32[n * OC + o] - out[n * OC + o]));
        }
    for (int n = 0; n < N; n++)
        for (int i = 0; i < IC; i++) {
            double acc = 0;
            for (int o = 0; o < OC; o++) acc += (double)bf16_round(dout[n * OC + o]) * bf16_round(w[o * IC + i]);
            err_din = fmax(err_din, fabs(din[n * IC + i] - acc));
        }
    for (int o = 0; o < OC; o++) {
        double acc_b = 0;
        for (int n = 0; n < N; n++) acc_b += dout[n * OC + o]; // the bias gradient sums the fp32 dout
        err_db = fmax(err_db, fabs(db[o] - acc_b));
        for (int i = 0; i < IC; i++) {
            double acc = 0;
            for (int n = 0; n < N; n++) acc += (double)bf16_round(dout[n * OC + o]) * bf16_round(in[n * IC + i]);
            err_dw = fmax(err_dw, fabs(dw[o * IC + i] - acc));
        }
    }
    // fp32 accumulation of at most 70 products of magnitude <= 1: error well under 1e-5;
    // bf16 rounding (relative 2^-9 per operand) moves an fp32 result by ~1e-2.
    test_check("linear bf16: forward = double product of bf16-rounded operands", err_out < 1e-5, "max |err| %.3g", err_out);
    test_check("linear bf16: din = dout_bf16 · w_bf16", err_din < 1e-5, "max |err| %.3g", err_din);
    test_check("linear bf16: dweight = dout_bf16ᵀ · in_bf16", err_dw < 1e-5, "max |err| %.3g", err_dw);
    test_check("linear bf16: dbias sums the fp32 dout", err_db < 1e-5, "max |err| %.3g", err_db);
    test_check("linear bf16 differs from fp32 by bf16 rounding", diff32 > 1e-4 && diff32 < 0.1, "max |bf16 - fp32| %.3g", diff32);
    test_check("linear: back to MATMUL_FP32 gives the fp32 bits again", memcmp(out32, again, sizeof(float) * N * OC) == 0,
               "forward after set_matmul_precision(MATMUL_FP32)");
    free(in); free(w); free(b); free(dout); free(out); free(out32); free(again); free(din); free(dw); free(db);
}

// ---------------------------------------------------------------- memory_peak
// The arena meter of the CPU and guarded backends: live bytes rise with alloc and fall with
// free, the peak holds the high-water mark until a reset starts a new window at the live bytes.
static void test_memory_peak(const ops_backend *b) {
    b->memory_peak(1);
    size_t base = b->memory_peak(0);
    void *x = b->alloc(1000, "meter x"), *y = b->alloc(3000, "meter y");
    size_t both = b->memory_peak(0);
    b->free(y);
    void *z = b->alloc(500, "meter z");
    size_t after = b->memory_peak(1), window = b->memory_peak(0);
    b->free(x);
    b->free(z);
    b->free(NULL);
    size_t end = b->memory_peak(1), live = b->memory_peak(0);
    char name[96];
    snprintf(name, sizeof name, "memory_peak (%s): peak, free, reset", b->name);
    test_check(name, both == base + 4000 && after == base + 4000 && window == base + 1500 && end == base + 1500 && live == base,
               "base %zu, +4000 -> %zu, peak kept %zu, new window %zu, after frees %zu then %zu", base, both, after, window, end, live);
}

// ---------------------------------------------------------------- layernorm
typedef struct { float *out, *mean, *rstd, *in, *w, *b, *dout; int N, C; } ln_ctx;
static double ln_loss(void *p) {
    ln_ctx *c = p;
    ops->layernorm_forward(c->out, c->mean, c->rstd, c->in, c->w, c->b, c->N, c->C);
    return gradcheck_dot(c->out, c->dout, (size_t)c->N * c->C);
}
static void test_layernorm(void) {
    ln_ctx c = {.N = 4, .C = 19};
    size_t n = 76;
    c.in = test_rnd(n, -2, 2, 5); c.w = test_rnd(19, 0.5f, 1.5f, 6); c.b = test_rnd(19, -1, 1, 7);
    c.out = test_zeros(n); c.mean = test_zeros(4); c.rstd = test_zeros(4); c.dout = test_rnd(n, -1, 1, 8);
    ln_loss(&c);
    float *din = test_zeros(n), *dw = test_zeros(19), *db = test_zeros(19);
    ops->layernorm_backward(din, dw, db, c.dout, c.in, c.w, c.mean, c.rstd, c.N, c.C);
    gradcheck_tol tol = GRADCHECK_DEFAULT;
    tol.eps = 3e-3; // the normalisation is more curved than a linear map
    gradcheck("layernorm input", &c, ln_loss, c.in, din, n, tol);
    gradcheck("layernorm weight", &c, ln_loss, c.w, dw, 19, tol);
    gradcheck("layernorm bias", &c, ln_loss, c.b, db, 19, tol);
    double m = 0, v = 0;
    for (int i = 0; i < 19; i++) m += c.in[i];
    m /= 19;
    for (int i = 0; i < 19; i++) v += (c.in[i] - m) * (c.in[i] - m);
    v /= 19;
    double expect = (c.in[0] - m) / sqrt(v + 1e-6) * c.w[0] + c.b[0];
    test_check("layernorm forward formula", fabs(c.out[0] - expect) < 1e-5, "out %g expected %g", c.out[0], expect);
    free(c.in); free(c.w); free(c.b); free(c.out); free(c.mean); free(c.rstd); free(c.dout); free(din); free(dw); free(db);
}

// ---------------------------------------------------------------- GELU
typedef struct { float *out, *in, *dout; size_t n; } ew_ctx;
static double gelu_loss(void *p) {
    ew_ctx *c = p;
    ops->gelu_forward(c->out, c->in, c->n);
    return gradcheck_dot(c->out, c->dout, c->n);
}
static void test_gelu(void) {
    ew_ctx c = {.n = 64};
    c.in = test_rnd(64, -3, 3, 9); c.out = test_zeros(64); c.dout = test_rnd(64, -1, 1, 10);
    float *din = test_zeros(64);
    ops->gelu_backward(din, c.dout, c.in, 64);
    gradcheck("gelu", &c, gelu_loss, c.in, din, 64, GRADCHECK_DEFAULT);
    float x = 1.0f, y;
    ops->gelu_forward(&y, &x, 1);
    test_check("gelu(1) exact erf form", fabsf(y - 0.8413447f) < 1e-6f, "gelu(1) = %.7f (expected 0.8413447)", y);
    free(c.in); free(c.out); free(c.dout); free(din);
}

// ---------------------------------------------------------------- residual with drop path
typedef struct { float *out, *x, *branch, *keep, *dout; int B; size_t S; } res_ctx;
static double res_loss(void *p) {
    res_ctx *c = p;
    ops->residual_forward(c->out, c->x, c->branch, c->keep, c->B, c->S);
    return gradcheck_dot(c->out, c->dout, (size_t)c->B * c->S);
}
static void test_residual_drop_path(void) {
    res_ctx c = {.B = 8, .S = 6};
    size_t n = 48;
    c.x = test_rnd(n, -1, 1, 11); c.branch = test_rnd(n, -1, 1, 12); c.out = test_zeros(n); c.dout = test_rnd(n, -1, 1, 13);
    c.keep = test_zeros(8);
    rng_addr a = {.seed = 3, .purpose = RNG_DROPPATH, .epoch = 1, .step = 2, .index = 0};
    ops->drop_path_scales(c.keep, 8, 0.5f, a);
    int dropped = 0, valid = 1;
    for (int b = 0; b < 8; b++) {
        dropped += c.keep[b] == 0.0f;
        valid &= c.keep[b] == 0.0f || c.keep[b] == 2.0f;
    }
    test_check("drop path scales are 0 or 1/(1-p)", valid && dropped > 0 && dropped < 8, "%d of 8 dropped at p=0.5", dropped);
    float *dx = test_zeros(n), *dbr = test_zeros(n);
    ops->residual_backward(dx, dbr, c.dout, c.keep, c.B, c.S);
    gradcheck("residual x", &c, res_loss, c.x, dx, n, GRADCHECK_DEFAULT);
    gradcheck("residual branch (drop path)", &c, res_loss, c.branch, dbr, n, GRADCHECK_DEFAULT);
    // Drop-rate statistics over many samples: p = 0.25 drops about a quarter.
    float *many = test_zeros(20000);
    ops->drop_path_scales(many, 20000, 0.25f, a);
    int d = 0;
    for (int i = 0; i < 20000; i++) d += many[i] == 0.0f;
    test_check("drop path rate", fabs(d / 20000.0 - 0.25) < 0.015, "dropped %.4f (p=0.25)", d / 20000.0);
    free(many); free(c.x); free(c.branch); free(c.out); free(c.dout); free(c.keep); free(dx); free(dbr);
}

// ---------------------------------------------------------------- dropout
typedef struct { float *out, *mask, *in, *dout; size_t n; float p; rng_addr a; } drop_ctx;
static double drop_loss(void *p) {
    drop_ctx *c = p;
    ops->dropout_forward(c->out, c->mask, c->in, c->n, c->p, c->a, 0);
    return gradcheck_dot(c->out, c->dout, c->n);
}
static void test_dropout(void) {
    drop_ctx c = {.n = 4096, .p = 0.3f, .a = {.seed = 9, .purpose = RNG_DROPOUT, .epoch = 0, .step = 5, .index = 2}};
    c.in = test_rnd(c.n, -1, 1, 14); c.out = test_zeros(c.n); c.mask = test_zeros(c.n); c.dout = test_rnd(c.n, -1, 1, 15);
    drop_loss(&c);
    float *din = test_zeros(c.n);
    ops->dropout_backward(din, c.dout, c.mask, c.n);
    gradcheck("dropout", &c, drop_loss, c.in, din, c.n, GRADCHECK_DEFAULT);
    size_t zeroed = 0;
    for (size_t i = 0; i < c.n; i++) zeroed += c.mask[i] == 0.0f;
    test_check("dropout rate", fabs((double)zeroed / c.n - 0.3) < 0.03, "%.3f of elements dropped at p=0.3", (double)zeroed / c.n);
    float *mask1 = test_zeros(c.n);
    memcpy(mask1, c.mask, c.n * sizeof(float));
    omp_set_num_threads(1);
    drop_loss(&c);
    omp_set_num_threads(2);
    test_check("dropout mask independent of threads", memcmp(mask1, c.mask, c.n * sizeof(float)) == 0, "1 vs 2 threads");
    // The mask is element i's rng_uniform_at draw (the contract rng.h states; the CPU op draws
    // four elements per Philox call), n not a multiple of 4 so the tail block is covered.
    size_t n_odd = 4093, wrong = 0;
    ops->dropout_forward(c.out, c.mask, c.in, n_odd, c.p, c.a, 0);
    for (size_t i = 0; i < n_odd; i++) {
        float u = rng_uniform_at(c.a.seed, c.a.purpose, c.a.epoch, c.a.step, c.a.index, (uint64_t)i);
        wrong += c.mask[i] != (u < c.p ? 0.0f : 1.0f / (1.0f - c.p));
    }
    float u4[4];
    for (uint64_t blk = 0; blk < 1000; blk++) {
        rng_uniform4_at(3, RNG_DROPOUT, 1, 2, 3, blk, u4);
        for (int l = 0; l < 4; l++) wrong += u4[l] != rng_uniform_at(3, RNG_DROPOUT, 1, 2, 3, 4 * blk + (uint64_t)l);
    }
    test_check("dropout mask = rng_uniform_at per element; rng_uniform4_at = 4 rng_uniform_at", wrong == 0, "%zu differ", wrong);
    // A micro-batch's slice: first = element offset into the whole tensor's stream; the slice's
    // mask is that part of the whole mask (offsets on and off Philox's 4-element blocks, odd lengths).
    const size_t firsts[] = {0, 1, 6, 1024, 2047}, lens[] = {4096, 7, 1001, 2048, 2049};
    ops->dropout_forward(c.out, c.mask, c.in, c.n, c.p, c.a, 0); // the whole tensor's mask
    memcpy(mask1, c.mask, c.n * sizeof(float));
    float *part = test_zeros(c.n), *part_out = test_zeros(c.n);
    size_t bad = 0;
    for (size_t k = 0; k < sizeof firsts / sizeof firsts[0]; k++) {
        size_t f = firsts[k], len = lens[k];
        ops->dropout_forward(part_out, part, c.in + f, len, c.p, c.a, f);
        bad += memcmp(part, mask1 + f, len * sizeof(float)) != 0;
        for (size_t i = 0; i < len; i++) bad += part_out[i] != c.in[f + i] * mask1[f + i];
    }
    test_check("dropout at an element offset = that slice of the whole mask (micro-batches, ranks)", bad == 0,
               "%zu of %zu slices differ", bad, sizeof firsts / sizeof firsts[0]);
    free(part); free(part_out);
    free(mask1); free(c.in); free(c.out); free(c.mask); free(c.dout); free(din);
}

// ---------------------------------------------------------------- token ops
typedef struct { float *x, *patch, *cls, *pos, *dout; int B, N, C; } embed_ctx;
static double embed_loss(void *p) {
    embed_ctx *c = p;
    ops->embed_tokens_forward(c->x, c->patch, c->cls, c->pos, c->B, c->N, c->C);
    return gradcheck_dot(c->x, c->dout, (size_t)c->B * (c->N + (c->cls != NULL)) * c->C);
}
static void test_embed_tokens(void) {
    for (int with_cls = 0; with_cls <= 1; with_cls++) {
        embed_ctx c = {.B = 3, .N = 4, .C = 5};
        int T = c.N + with_cls;
        c.patch = test_rnd(60, -1, 1, 16); c.cls = with_cls ? test_rnd(5, -1, 1, 17) : NULL; c.pos = test_rnd((size_t)T * 5, -1, 1, 18);
        c.x = test_zeros((size_t)3 * T * 5); c.dout = test_rnd((size_t)3 * T * 5, -1, 1, 19);
        float *dpatch = test_zeros(60), *dcls = test_zeros(5), *dpos = test_zeros((size_t)T * 5);
        ops->embed_tokens_backward(dpatch, dcls, dpos, c.dout, c.B, c.N, c.C, with_cls);
        char name[64];
        snprintf(name, sizeof name, "embed tokens patch (cls=%d)", with_cls);
        gradcheck(name, &c, embed_loss, c.patch, dpatch, 60, GRADCHECK_DEFAULT);
        snprintf(name, sizeof name, "embed tokens pos (cls=%d)", with_cls);
        gradcheck(name, &c, embed_loss, c.pos, dpos, (size_t)T * 5, GRADCHECK_DEFAULT);
        if (with_cls) gradcheck("embed tokens cls", &c, embed_loss, c.cls, dcls, 5, GRADCHECK_DEFAULT);
        free(c.patch); free(c.cls); free(c.pos); free(c.x); free(c.dout); free(dpatch); free(dcls); free(dpos);
    }
}

typedef struct { float *out, *in, *dout; const int *idx; int B, T, M, C, scatter; } tok_ctx;
static double tok_loss(void *p) {
    tok_ctx *c = p;
    size_t n;
    if (c->scatter) {
        memset(c->out, 0, (size_t)c->B * c->T * c->C * sizeof(float));
        ops->scatter_tokens_forward(c->out, c->in, c->idx, c->B, c->T, c->M, c->C);
        n = (size_t)c->B * c->T * c->C;
    } else {
        ops->gather_tokens_forward(c->out, c->in, c->idx, c->B, c->T, c->M, c->C);
        n = (size_t)c->B * c->M * c->C;
    }
    return gradcheck_dot(c->out, c->dout, n);
}
static void test_gather_scatter(void) {
    int idx[6] = {3, 0, 4, 1, 1, 2}; // image 1 repeats token 1 (gather must add both)
    tok_ctx g = {.B = 2, .T = 5, .M = 3, .C = 4, .idx = idx};
    g.in = test_rnd(40, -1, 1, 20); g.out = test_zeros(24); g.dout = test_rnd(24, -1, 1, 21);
    float *din = test_zeros(40);
    ops->gather_tokens_backward(din, g.dout, idx, 2, 5, 3, 4);
    gradcheck("gather tokens (repeated index)", &g, tok_loss, g.in, din, 40, GRADCHECK_DEFAULT);
    int uidx[6] = {3, 0, 4, 1, 2, 0};
    tok_ctx s = {.B = 2, .T = 5, .M = 3, .C = 4, .idx = uidx, .scatter = 1};
    s.in = test_rnd(24, -1, 1, 22); s.out = test_zeros(40); s.dout = test_rnd(40, -1, 1, 23);
    float *dsin = test_zeros(24);
    ops->scatter_tokens_backward(dsin, s.dout, uidx, 2, 5, 3, 4);
    gradcheck("scatter tokens", &s, tok_loss, s.in, dsin, 24, GRADCHECK_DEFAULT);
    free(g.in); free(g.out); free(g.dout); free(din); free(s.in); free(s.out); free(s.dout); free(dsin);
}

typedef struct { float *out, *in, *dout; int B, T, C, t0; } pool_ctx;
static double pool_loss(void *p) {
    pool_ctx *c = p;
    ops->mean_pool_forward(c->out, c->in, c->B, c->T, c->C, c->t0);
    return gradcheck_dot(c->out, c->dout, (size_t)c->B * c->C);
}
static void test_mean_pool(void) {
    pool_ctx c = {.B = 2, .T = 5, .C = 3, .t0 = 1};
    c.in = test_rnd(30, -1, 1, 24); c.out = test_zeros(6); c.dout = test_rnd(6, -1, 1, 25);
    float *din = test_zeros(30);
    ops->mean_pool_backward(din, c.dout, 2, 5, 3, 1);
    gradcheck("mean pool (skipping cls)", &c, pool_loss, c.in, din, 30, GRADCHECK_DEFAULT);
    test_check("mean pool ignores token 0", din[0] == 0.0f && din[1] == 0.0f, "din of cls = %g", din[0]);
    free(c.in); free(c.out); free(c.dout); free(din);
}

static void test_patchify(void) {
    // (B=1, Cin=2, 4x4) with patch 2: patch n=1 is rows 0-1, cols 2-3, channel-major.
    float img[32], patches[32];
    for (int i = 0; i < 32; i++) img[i] = (float)i;
    ops->patchify(patches, img, 1, 2, 4, 4, 2);
    float expect[8] = {2, 3, 6, 7, 18, 19, 22, 23};
    test_check("patchify order (c, py, px) per raster patch", memcmp(patches + 8, expect, sizeof expect) == 0,
               "patch 1 = %g %g %g %g %g %g %g %g", patches[8], patches[9], patches[10], patches[11], patches[12],
               patches[13], patches[14], patches[15]);
}

// ---------------------------------------------------------------- losses
typedef struct { float *loss, *probs, *logits; const int *target; int N, K; float s; } xent_ctx;
static double xent_loss(void *p) {
    xent_ctx *c = p;
    ops->softmax_xent_forward(c->loss, c->probs, c->logits, c->target, c->N, c->K, c->s);
    double sum = 0;
    for (int n = 0; n < c->N; n++) sum += c->loss[n];
    return sum / c->N;
}
static void test_softmax_xent(void) {
    int target[4] = {2, -1, 0, 4}; // row 1 ignored
    xent_ctx c = {.N = 4, .K = 5, .s = 0.1f, .target = target};
    c.logits = test_rnd(20, -3, 3, 26); c.probs = test_zeros(20); c.loss = test_zeros(4);
    xent_loss(&c);
    float *dl = test_zeros(20);
    ops->softmax_xent_backward(dl, c.probs, target, 4, 5, 0.1f, 1.0f / 4);
    gradcheck("softmax cross entropy (label smoothing 0.1, ignored row)", &c, xent_loss, c.logits, dl, 20, GRADCHECK_DEFAULT);
    // Reference: row 0 against the formula in double.
    double mx = c.logits[0], lse = 0, mean_lp = 0;
    for (int k = 1; k < 5; k++) mx = fmax(mx, c.logits[k]);
    for (int k = 0; k < 5; k++) lse += exp(c.logits[k] - mx);
    lse = mx + log(lse);
    for (int k = 0; k < 5; k++) mean_lp += (c.logits[k] - lse) / 5;
    double expect = 0.9 * (lse - c.logits[2]) - 0.1 * mean_lp;
    test_check("softmax cross entropy value", fabs(c.loss[0] - expect) < 1e-5 && c.loss[1] == 0.0f,
               "row 0 %.7f expected %.7f; ignored row %g", c.loss[0], expect, c.loss[1]);
    free(c.logits); free(c.probs); free(c.loss); free(dl);
}

typedef struct { float *loss, *pred, *target; int N, D; } mse_ctx;
static double mse_loss(void *p) {
    mse_ctx *c = p;
    ops->mse_forward(c->loss, c->pred, c->target, c->N, c->D);
    double s = 0;
    for (int n = 0; n < c->N; n++) s += c->loss[n];
    return s;
}
static void test_mse(void) {
    mse_ctx c = {.N = 3, .D = 7};
    c.pred = test_rnd(21, -1, 1, 27); c.target = test_rnd(21, -1, 1, 28); c.loss = test_zeros(3);
    float *dp = test_zeros(21);
    ops->mse_backward(dp, c.pred, c.target, 3, 7, 1.0f);
    gradcheck("mse", &c, mse_loss, c.pred, dp, 21, GRADCHECK_DEFAULT);
    free(c.pred); free(c.target); free(c.loss); free(dp);
}

// ---------------------------------------------------------------- optimizer, schedule, reductions
static void test_adamw(void) {
    float p[2] = {1.0f, -2.0f}, g[2] = {0.5f, 0.1f}, m[2] = {0}, v[2] = {0};
    ops->adamw_update(p, g, m, v, 2, 0.1f, 0.9f, 0.999f, 1e-8f, 0.05f, 1);
    // step 1: m̂ = g, v̂ = g², update = g/|g| = sign; p -= lr (sign + wd p)
    double e0 = 1.0 - 0.1 * (1.0 + 0.05 * 1.0), e1 = -2.0 - 0.1 * (1.0 + 0.05 * -2.0);
    test_check("adamw first step", fabs(p[0] - e0) < 1e-6 && fabs(p[1] - e1) < 1e-6, "p = %.7f %.7f expected %.7f %.7f",
               p[0], p[1], e0, e1);
    optim_config oc = {.lr = 1.0f, .min_lr = 0.0f, .warmup_steps = 10, .total_steps = 110};
    float a = optim_lr_at(&oc, 0), b = optim_lr_at(&oc, 9), mid = optim_lr_at(&oc, 60), end = optim_lr_at(&oc, 110);
    test_check("lr schedule: linear warmup then cosine", fabsf(a - 0.1f) < 1e-6f && fabsf(b - 1.0f) < 1e-6f &&
               fabsf(mid - 0.5f) < 1e-6f && fabsf(end) < 1e-6f, "lr(0)=%g lr(9)=%g lr(60)=%g lr(110)=%g", a, b, mid, end);
    // The MP3 paper's speech recipe: 500 updates at 1e-4, then 1e-3 halved every 10k updates.
    optim_config sh = {.lr = 1e-3f, .warmup_steps = 500, .total_steps = 30000, .schedule = OPTIM_STEP_HALVING,
                       .warmup_lr = 1e-4f, .halve_every = 10000};
    float w0 = optim_lr_at(&sh, 0), w499 = optim_lr_at(&sh, 499), p500 = optim_lr_at(&sh, 500);
    float p10499 = optim_lr_at(&sh, 10499), p10500 = optim_lr_at(&sh, 10500), p29999 = optim_lr_at(&sh, 29999);
    test_check("lr schedule step_halving: constant warmup, then halved every halve_every steps after it",
               w0 == 1e-4f && w499 == 1e-4f && p500 == 1e-3f && p10499 == 1e-3f && p10500 == 5e-4f && p29999 == 2.5e-4f,
               "lr(0)=%g lr(499)=%g lr(500)=%g lr(10499)=%g lr(10500)=%g lr(29999)=%g", w0, w499, p500, p10499, p10500, p29999);
    sh.warmup_lr = 0.0f; // no warmup rate: linear warmup as the cosine schedule's
    test_check("lr schedule step_halving without warmup_lr: linear warmup", optim_lr_at(&sh, 249) == 1e-3f * 250.0f / 500.0f,
               "lr(249)=%g", optim_lr_at(&sh, 249));
}

// adamw_update_multi = adamw_update per segment (with or without decay), bit for bit, on the
// CPU and on the guarded backend; the segments outside the table are untouched.
static void test_adamw_multi(const ops_backend *b) {
    size_t n = 300;
    adamw_segment segs[3] = {{0, 101, 1}, {112, 7, 0}, {128, 150, 1}};
    float *h[2][4];
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < 4; a++) h[k][a] = test_rnd(n, a == 3 ? 0.0f : -1.0f, 1.0f, 600 + a);
    for (int t = 1; t <= 3; t++) {
        for (int s = 0; s < 3; s++) {
            size_t o = segs[s].offset;
            ops_cpu.adamw_update(h[0][0] + o, h[0][1] + o, h[0][2] + o, h[0][3] + o, segs[s].numel, 1e-2f, 0.9f,
                                 0.999f, 1e-8f, segs[s].decay ? 0.05f : 0.0f, t);
        }
    }
    float *dev[4];
    for (int a = 0; a < 4; a++) {
        dev[a] = b->alloc(n * sizeof(float), "adamw multi");
        b->upload(dev[a], h[1][a], n * sizeof(float));
    }
    for (int t = 1; t <= 3; t++) b->adamw_update_multi(dev[0], dev[1], dev[2], dev[3], segs, 3, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.05f, t);
    int same = 1;
    for (int a = 0; a < 4; a++) {
        b->download(h[1][a], dev[a], n * sizeof(float));
        same = same && memcmp(h[0][a], h[1][a], n * sizeof(float)) == 0;
        b->free(dev[a]);
    }
    char name[120];
    snprintf(name, sizeof name, "%s adamw_update_multi = adamw_update per segment, bitwise (3 steps)", b->name);
    test_check(name, same, "params, both moments and the gaps between segments compared over %zu floats", n);
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < 4; a++) free(h[k][a]);
}

// pin_host / unpin_host on the CPU backends: nothing happens to the buffer.
static void test_pin_host(const ops_backend *b) {
    float *x = test_rnd(100, -1, 1, 700), *y = test_rnd(100, -1, 1, 700);
    b->pin_host(x, 100 * sizeof(float));
    b->unpin_host(x);
    char name[120];
    snprintf(name, sizeof name, "%s pin_host and unpin_host leave the buffer as it was", b->name);
    test_check(name, memcmp(x, y, 100 * sizeof(float)) == 0, "100 floats compared after pin and unpin");
    free(x); free(y);
}

static void test_sum_squares_threads(void) {
    size_t n = 1000003;
    float *x = test_rnd(n, -1, 1, 29);
    omp_set_num_threads(1);
    double one = ops->sum_squares(x, n);
    omp_set_num_threads(2);
    double two = ops->sum_squares(x, n);
    double ref = 0;
    for (size_t i = 0; i < n; i++) ref += (double)x[i] * x[i];
    test_check("sum of squares: bitwise equal for 1 and 2 threads", one == two && fabs(one - ref) < 1e-9 * ref,
               "%.17g vs %.17g (sequential %.17g)", one, two, ref);
    free(x);
}

static void test_philox(void) {
    // Known-answer vectors of Philox4x32-10 from Random123 (kat_vectors).
    uint32_t out[4];
    uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0};
    philox4x32_10(c0, k0, out);
    int ok0 = out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu && out[3] == 0x9b00dbd8u;
    uint32_t c1[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, k1[2] = {0xffffffffu, 0xffffffffu};
    uint32_t out1[4];
    philox4x32_10(c1, k1, out1);
    int ok1 = out1[0] == 0x408f276du && out1[1] == 0x41c83b0eu && out1[2] == 0xa20bc7c6u && out1[3] == 0x6d5451fdu;
    uint32_t c2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, k2[2] = {0xa4093822u, 0x299f31d0u};
    uint32_t out2[4];
    philox4x32_10(c2, k2, out2);
    int ok2 = out2[0] == 0xd16cfe09u && out2[1] == 0x94fdccebu && out2[2] == 0x5001e420u && out2[3] == 0x24126ea1u;
    test_check("philox4x32-10 known answers", ok0 && ok1 && ok2, "zero %08x %08x %08x %08x", out[0], out[1], out[2], out[3]);
    rng_stream s = rng_stream_make(1, RNG_TEST, 0, 0, 0);
    double sum = 0, sq = 0;
    for (int i = 0; i < 100000; i++) {
        float z = rng_normal(&s);
        sum += z;
        sq += z * z;
    }
    test_check("normal draws: mean 0, variance 1", fabs(sum / 1e5) < 0.02 && fabs(sq / 1e5 - 1) < 0.02,
               "mean %.4f var %.4f", sum / 1e5, sq / 1e5);
    int perm[10], seen = 0;
    rng_permutation(&s, 10, perm);
    for (int i = 0; i < 10; i++) seen |= 1 << perm[i];
    test_check("permutation is a permutation", seen == 0x3ff, "mask %x", seen);
}

int main(void) {
    omp_set_num_threads(2);
    test_philox();
    test_linear();
    test_bf16_round_known();
    test_bf16_round_torch();
    test_linear_bf16();
    test_memory_peak(&ops_cpu);
    test_memory_peak(&ops_cpu_guarded);
    test_layernorm();
    test_gelu();
    test_residual_drop_path();
    test_dropout();
    test_embed_tokens();
    test_gather_scatter();
    test_mean_pool();
    test_patchify();
    test_softmax_xent();
    test_mse();
    test_adamw();
    test_adamw_multi(&ops_cpu);
    test_adamw_multi(&ops_cpu_guarded);
    test_pin_host(&ops_cpu);
    test_pin_host(&ops_cpu_guarded);
    test_sum_squares_threads();
    return test_exit_code();
}
