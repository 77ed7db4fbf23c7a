// tests/test_cuda_tokens.c — CPU/GPU parity of the CUDA token ops (core/cuda/tokens_cuda.cu):
// patchify, embed_tokens, gather/scatter tokens, qkv_pack, bias_gather, mean_pool; and of
// resize2d (core/cuda/resize_cuda.cu), sincos2d_add, sincos1d_add and rope (core/cuda/posenc_cuda.cu). Every op runs on ops_cpu with host buffers and on ops_cuda with
// device copies of the same inputs; every output and gradient is compared element by element.
// Gradient buffers start non-zero (the same values on both sides), so the "gradients
// accumulate" contract is checked too; in-place ops start from the same non-trivial buffer.
// Sizes are odd on purpose: T = 17, 50, 65 tokens, with and without a cls token, C = 12, 64.
// Tolerances (|gpu - cpu| <= atol + rtol·|cpu|):
//   copies and gathers (patchify, gather/scatter/qkv_pack forward, bias_gather forward)
//                             exact (0, 0): no arithmetic at all
//   anything that adds or multiplies (embed, backward sums, mean pool, resize, rope)
//                             1e-6 + 1e-5·|cpu|: the kernels round where the CPU does and
//                             sum in its order, so they should agree to the bit; the slack
//                             only keeps a compiler's operation fusion from failing a check
//   sincos2d_add, sincos1d_add 2e-6 absolute: the double phase goes through the GPU's own
//                             pow/cos/sincos (a few ulp of double), rounded to float once
// Plus one determinism check: bias_gather_backward twice into fresh buffers, bitwise equal.
// Without a usable GPU (or a CUDA build) the program prints one SKIP line.
#include "testing.h"
#include "cuda_parity.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include "../core/resize.h"
#include "../models/posenc/tables.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef POSBENCH_CUDA

#define EXACT 0.0, 0.0
#define SUMS 1e-6, 1e-5
#define SIN2D 2e-6, 0.0

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;
static unsigned next_tag = 1; // every random tensor draws from its own stream

static float *rnd(size_t n, float lo, float hi) {
    float *x = xmalloc(n * sizeof(float) + 1, "test tensor");
    test_fill_uniform(x, n, lo, hi, next_tag++);
    return x;
}

// Compares the device array against the host reference, then frees the device array.
static void check_free(const char *name, const float *ref, float *dev, size_t n, double atol,
                       double rtol) {
    parity_check(name, ref, dev, n, atol, rtol);
    cuda_free(dev);
}

// idx (B, M): per image M distinct tokens of [0, T) in random order (an MP3 context set).
static int *context_index(int B, int T, int M) {
    int *idx = xmalloc((size_t)B * M * sizeof(int), "test index");
    int *perm = xmalloc((size_t)T * sizeof(int), "test index");
    float *u = rnd((size_t)B * T, 0, 1);
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) perm[t] = t;
        for (int t = T - 1; t > 0; t--) { // Fisher-Yates
            int s = (int)(u[(size_t)b * T + t] * (float)(t + 1));
            if (s > t) s = t;
            int tmp = perm[t]; perm[t] = perm[s]; perm[s] = tmp;
        }
        memcpy(idx + (size_t)b * M, perm, (size_t)M * sizeof(int));
    }
    free(perm); free(u);
    return idx;
}

// idx (B, M): tokens drawn independently from [0, T); the last entry of every image repeats
// its first, so each image has at least one repeated index.
static int *repeated_index(int B, int T, int M) {
    int *idx = xmalloc((size_t)B * M * sizeof(int), "test index");
    float *u = rnd((size_t)B * M, 0, 1);
    for (size_t i = 0; i < (size_t)B * M; i++) {
        int t = (int)(u[i] * (float)T);
        idx[i] = t < T ? t : T - 1;
    }
    for (int b = 0; b < B; b++) idx[(size_t)b * M + M - 1] = idx[(size_t)b * M];
    free(u);
    return idx;
}

// ---------------------------------------------------------------- patchify
static void test_patchify(void) {
    const int cases[][5] = {{2, 3, 20, 20, 4}, {3, 1, 12, 8, 4}, {1, 3, 28, 28, 7}, {2, 3, 18, 22, 4}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], Cin = cases[k][1], H = cases[k][2], W = cases[k][3], p = cases[k][4];
        const size_t ni = (size_t)B * Cin * H * W, np = (size_t)B * (H / p) * (W / p) * Cin * p * p;
        float *img = rnd(ni, -1, 1), *ref = rnd(np, -1, 1);
        float *d_img = parity_upload(img, ni), *d_out = parity_upload(ref, np);
        cpu->patchify(ref, img, B, Cin, H, W, p);
        gpu->patchify(d_out, d_img, B, Cin, H, W, p);
        char name[160];
        snprintf(name, sizeof name, "cuda patchify (B=%d Cin=%d %dx%d p=%d)", B, Cin, H, W, p);
        check_free(name, ref, d_out, np, EXACT);
        cuda_free(d_img); free(img); free(ref);
    }
}

// ---------------------------------------------------------------- embed tokens
static void test_embed_tokens(void) {
    // B, N, C, has_cls, with pos (T = N + has_cls: 17, 50, 65, 17, 50)
    const int cases[][5] = {{3, 16, 12, 1, 1}, {2, 49, 64, 1, 1}, {2, 64, 64, 1, 0}, {3, 17, 12, 0, 1},
                            {2, 50, 64, 0, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], N = cases[k][1], C = cases[k][2], has_cls = cases[k][3];
        const int with_pos = cases[k][4], T = N + has_cls;
        const size_t nx = (size_t)B * T * C, npatch = (size_t)B * N * C, npos = (size_t)T * C;
        float *patch = rnd(npatch, -1, 1), *cls = rnd(C, -1, 1), *pos = rnd(npos, -1, 1);
        float *x = rnd(nx, -1, 1);
        float *d_patch = parity_upload(patch, npatch), *d_cls = parity_upload(cls, C);
        float *d_pos = parity_upload(pos, npos), *d_x = parity_upload(x, nx);
        cpu->embed_tokens_forward(x, patch, has_cls ? cls : NULL, with_pos ? pos : NULL, B, N, C);
        gpu->embed_tokens_forward(d_x, d_patch, has_cls ? d_cls : NULL, with_pos ? d_pos : NULL, B, N, C);
        char name[160];
        snprintf(name, sizeof name, "cuda embed tokens forward (T=%d C=%d cls=%d pos=%d)", T, C, has_cls,
                 with_pos);
        check_free(name, x, d_x, nx, SUMS);

        // backward: gradients start non-zero; dcls is passed even without cls (must stay as is),
        // dpos only with pos
        float *dx = rnd(nx, -1, 1), *dpatch = rnd(npatch, -1, 1), *dcls = rnd(C, -1, 1);
        float *dpos = rnd(npos, -1, 1);
        float *d_dx = parity_upload(dx, nx), *d_dpatch = parity_upload(dpatch, npatch);
        float *d_dcls = parity_upload(dcls, C), *d_dpos = parity_upload(dpos, npos);
        cpu->embed_tokens_backward(dpatch, dcls, with_pos ? dpos : NULL, dx, B, N, C, has_cls);
        gpu->embed_tokens_backward(d_dpatch, d_dcls, with_pos ? d_dpos : NULL, d_dx, B, N, C, has_cls);
        snprintf(name, sizeof name, "cuda embed tokens backward dpatch (T=%d C=%d cls=%d)", T, C, has_cls);
        check_free(name, dpatch, d_dpatch, npatch, SUMS);
        snprintf(name, sizeof name, "cuda embed tokens backward dcls (T=%d C=%d cls=%d%s)", T, C, has_cls,
                 has_cls ? "" : ": untouched");
        check_free(name, dcls, d_dcls, C, SUMS);
        snprintf(name, sizeof name, "cuda embed tokens backward dpos (T=%d C=%d cls=%d%s)", T, C, has_cls,
                 with_pos ? "" : ", NULL: untouched");
        check_free(name, dpos, d_dpos, npos, SUMS);
        cuda_free(d_patch); cuda_free(d_cls); cuda_free(d_pos); cuda_free(d_dx);
        free(patch); free(cls); free(pos); free(x); free(dx); free(dpatch); free(dcls); free(dpos);
    }
}

// ---------------------------------------------------------------- gather / scatter
static void test_gather_tokens(void) {
    // B, T, M, C, repeated indices; the last one is MP3's reference rows: a (1, T, C) table
    // read by B·R = 128·5 entries, every token many times
    const int cases[][5] = {{2, 17, 12, 12, 1}, {3, 50, 50, 64, 1}, {2, 65, 20, 64, 0}, {2, 17, 9, 12, 0},
                            {1, 50, 640, 64, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], T = cases[k][1], M = cases[k][2], C = cases[k][3], rep = cases[k][4];
        const size_t nin = (size_t)B * T * C, nout = (size_t)B * M * C;
        int *idx = rep ? repeated_index(B, T, M) : context_index(B, T, M);
        int *d_idx = parity_upload_int(idx, (size_t)B * M);
        float *in = rnd(nin, -1, 1), *out = rnd(nout, -1, 1);
        float *d_in = parity_upload(in, nin), *d_out = parity_upload(out, nout);
        cpu->gather_tokens_forward(out, in, idx, B, T, M, C);
        gpu->gather_tokens_forward(d_out, d_in, d_idx, B, T, M, C);
        char name[160];
        const char *what = rep ? "repeated index" : "distinct index";
        snprintf(name, sizeof name, "cuda gather tokens forward (%s, T=%d M=%d C=%d)", what, T, M, C);
        check_free(name, out, d_out, nout, EXACT);

        float *dout = rnd(nout, -1, 1), *din = rnd(nin, -1, 1);
        float *d_dout = parity_upload(dout, nout), *d_din = parity_upload(din, nin);
        cpu->gather_tokens_backward(din, dout, idx, B, T, M, C);
        gpu->gather_tokens_backward(d_din, d_dout, d_idx, B, T, M, C);
        snprintf(name, sizeof name, "cuda gather tokens backward (%s, T=%d M=%d C=%d)", what, T, M, C);
        check_free(name, din, d_din, nin, SUMS);
        cuda_free(d_idx); cuda_free(d_in); cuda_free(d_dout);
        free(idx); free(in); free(out); free(dout); free(din);
    }
}

static void test_scatter_tokens(void) {
    const int cases[][4] = {{2, 17, 9, 12}, {3, 50, 13, 64}, {2, 65, 64, 12}}; // B, T, M, C
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], T = cases[k][1], M = cases[k][2], C = cases[k][3];
        const size_t nfull = (size_t)B * T * C, nctx = (size_t)B * M * C;
        int *idx = context_index(B, T, M);
        int *d_idx = parity_upload_int(idx, (size_t)B * M);
        float *in = rnd(nctx, -1, 1), *out = rnd(nfull, -1, 1); // rows not scattered keep these
        float *d_in = parity_upload(in, nctx), *d_out = parity_upload(out, nfull);
        cpu->scatter_tokens_forward(out, in, idx, B, T, M, C);
        gpu->scatter_tokens_forward(d_out, d_in, d_idx, B, T, M, C);
        char name[160];
        snprintf(name, sizeof name, "cuda scatter tokens forward (T=%d M=%d C=%d)", T, M, C);
        check_free(name, out, d_out, nfull, EXACT);

        float *dout = rnd(nfull, -1, 1), *din = rnd(nctx, -1, 1);
        float *d_dout = parity_upload(dout, nfull), *d_din = parity_upload(din, nctx);
        cpu->scatter_tokens_backward(din, dout, idx, B, T, M, C);
        gpu->scatter_tokens_backward(d_din, d_dout, d_idx, B, T, M, C);
        snprintf(name, sizeof name, "cuda scatter tokens backward (T=%d M=%d C=%d)", T, M, C);
        check_free(name, din, d_din, nctx, SUMS);
        cuda_free(d_idx); cuda_free(d_in); cuda_free(d_dout);
        free(idx); free(in); free(out); free(dout); free(din);
    }
}

// ---------------------------------------------------------------- qkv pack
static void test_qkv_pack(void) {
    const int cases[][5] = {{2, 17, 9, 12, 1}, {2, 50, 25, 64, 1}, {2, 65, 16, 64, 0}}; // B, T, M, C, dq
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], T = cases[k][1], M = cases[k][2], C = cases[k][3], with_dq = cases[k][4];
        const size_t nqkv = (size_t)B * T * 3 * C, nq = (size_t)B * T * C, nkv = (size_t)B * M * 2 * C;
        int *idx = context_index(B, T, M);
        int *d_idx = parity_upload_int(idx, (size_t)B * M);
        float *q = rnd(nq, -1, 1), *kv = rnd(nkv, -1, 1), *qkv = rnd(nqkv, -1, 1); // k/v of others kept
        float *d_q = parity_upload(q, nq), *d_kv = parity_upload(kv, nkv), *d_qkv = parity_upload(qkv, nqkv);
        cpu->qkv_pack_forward(qkv, q, kv, idx, B, T, M, C);
        gpu->qkv_pack_forward(d_qkv, d_q, d_kv, d_idx, B, T, M, C);
        char name[160];
        snprintf(name, sizeof name, "cuda qkv pack forward (T=%d M=%d C=%d)", T, M, C);
        check_free(name, qkv, d_qkv, nqkv, EXACT);

        float *dqkv = rnd(nqkv, -1, 1), *dq = rnd(nq, -1, 1), *dkv = rnd(nkv, -1, 1);
        float *d_dqkv = parity_upload(dqkv, nqkv), *d_dq = parity_upload(dq, nq), *d_dkv = parity_upload(dkv, nkv);
        cpu->qkv_pack_backward(with_dq ? dq : NULL, dkv, dqkv, idx, B, T, M, C);
        gpu->qkv_pack_backward(with_dq ? d_dq : NULL, d_dkv, d_dqkv, d_idx, B, T, M, C);
        snprintf(name, sizeof name, "cuda qkv pack backward dq (T=%d M=%d C=%d%s)", T, M, C,
                 with_dq ? "" : ", NULL: untouched");
        check_free(name, dq, d_dq, nq, SUMS);
        snprintf(name, sizeof name, "cuda qkv pack backward dkv (T=%d M=%d C=%d)", T, M, C);
        check_free(name, dkv, d_dkv, nkv, SUMS);
        cuda_free(d_idx); cuda_free(d_q); cuda_free(d_kv); cuda_free(d_dqkv);
        free(idx); free(q); free(kv); free(qkv); free(dqkv); free(dq); free(dkv);
    }
}

// ---------------------------------------------------------------- relative-bias gather
static void test_bias_gather(void) {
    // gh, gw, table_g, cls, H (T = cls + gh·gw: 17, 50, 65 (clipped table), 50 without cls)
    const int cases[][5] = {{4, 4, 4, 1, 3}, {7, 7, 7, 1, 4}, {8, 8, 6, 1, 2}, {5, 10, 7, 0, 3}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int gh = cases[k][0], gw = cases[k][1], g = cases[k][2], cls = cases[k][3], H = cases[k][4];
        const int T = cls + gh * gw, E = T * T, K = posenc_relbias_entries(g, g, cls);
        const size_t nt = (size_t)H * K, no = (size_t)H * E;
        int *index = xmalloc((size_t)E * sizeof(int), "test index");
        posenc_relbias_index(index, gh, gw, g, g, cls);
        int *d_index = parity_upload_int(index, E);
        float *table = rnd(nt, -1, 1), *out = rnd(no, -1, 1);
        float *d_table = parity_upload(table, nt), *d_out = parity_upload(out, no);
        cpu->bias_gather_forward(out, table, index, H, E, K);
        gpu->bias_gather_forward(d_out, d_table, d_index, H, E, K);
        char name[160];
        snprintf(name, sizeof name, "cuda bias gather forward (T=%d H=%d K=%d)", T, H, K);
        check_free(name, out, d_out, no, EXACT);

        float *dout = rnd(no, -1, 1), *dtable = rnd(nt, -1, 1);
        float *d_dout = parity_upload(dout, no), *d_dtable = parity_upload(dtable, nt);
        float *d_again = parity_upload(dtable, nt); // same start, for the determinism check
        cpu->bias_gather_backward(dtable, dout, index, H, E, K);
        gpu->bias_gather_backward(d_dtable, d_dout, d_index, H, E, K);
        snprintf(name, sizeof name, "cuda bias gather backward (T=%d H=%d K=%d)", T, H, K);
        parity_check(name, dtable, d_dtable, nt, SUMS);
        if (k == 2) {
            gpu->bias_gather_backward(d_again, d_dout, d_index, H, E, K);
            snprintf(name, sizeof name, "cuda bias gather backward deterministic (T=%d H=%d K=%d, two runs)", T,
                     H, K);
            parity_check_identical(name, d_dtable, d_again, nt);
        }
        cuda_free(d_dtable); cuda_free(d_again);
        cuda_free(d_index); cuda_free(d_table); cuda_free(d_dout);
        free(index); free(table); free(out); free(dout); free(dtable);
    }
}

// ---------------------------------------------------------------- mean pool
static void test_mean_pool(void) {
    const int cases[][4] = {{3, 17, 12, 1}, {2, 50, 64, 0}, {2, 65, 64, 1}, {3, 17, 64, 0}}; // B, T, C, t0
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], T = cases[k][1], C = cases[k][2], t0 = cases[k][3];
        const size_t nin = (size_t)B * T * C, nout = (size_t)B * C;
        float *in = rnd(nin, -1, 1), *out = rnd(nout, -1, 1);
        float *d_in = parity_upload(in, nin), *d_out = parity_upload(out, nout);
        cpu->mean_pool_forward(out, in, B, T, C, t0);
        gpu->mean_pool_forward(d_out, d_in, B, T, C, t0);
        char name[160];
        snprintf(name, sizeof name, "cuda mean pool forward (T=%d C=%d t0=%d)", T, C, t0);
        check_free(name, out, d_out, nout, SUMS);

        float *dout = rnd(nout, -1, 1), *din = rnd(nin, -1, 1);
        float *d_dout = parity_upload(dout, nout), *d_din = parity_upload(din, nin);
        cpu->mean_pool_backward(din, dout, B, T, C, t0);
        gpu->mean_pool_backward(d_din, d_dout, B, T, C, t0);
        snprintf(name, sizeof name, "cuda mean pool backward (T=%d C=%d t0=%d)", T, C, t0);
        check_free(name, din, d_din, nin, SUMS);
        cuda_free(d_in); cuda_free(d_dout);
        free(in); free(out); free(dout); free(din);
    }
}

// ---------------------------------------------------------------- resize2d
static void test_resize2d(void) {
    const int sizes[][4] = {{28, 28, 40, 40}, {28, 28, 14, 14}, {7, 7, 10, 10}, {28, 7, 14, 10}}; // H W OH OW
    const int layouts[][2] = {{1, 8}, {6, 1}}; // P, C: a position table (P = 1), images (P = B·Cimg = 2·3)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
            const int H = sizes[s][0], W = sizes[s][1], OH = sizes[s][2], OW = sizes[s][3];
            const int P = layouts[l][0], C = layouts[l][1];
            const size_t nin = (size_t)P * H * W * C, nout = (size_t)P * OH * OW * C;
            float *wy = xmalloc((size_t)OH * H * sizeof(float), "test weights");
            float *wx = xmalloc((size_t)OW * W * sizeof(float), "test weights");
            resize_bicubic_weights(wy, OH, H);
            resize_bicubic_weights(wx, OW, W);
            float *d_wy = parity_upload(wy, (size_t)OH * H), *d_wx = parity_upload(wx, (size_t)OW * W);
            float *in = rnd(nin, -1, 1), *out = rnd(nout, -1, 1); // out's old values are overwritten
            float *d_in = parity_upload(in, nin), *d_out = parity_upload(out, nout);
            cpu->resize2d_forward(out, in, wy, wx, P, H, W, OH, OW, C);
            gpu->resize2d_forward(d_out, d_in, d_wy, d_wx, P, H, W, OH, OW, C);
            char name[160];
            snprintf(name, sizeof name, "cuda resize2d forward (%dx%d -> %dx%d, P=%d C=%d)", H, W, OH, OW, P, C);
            check_free(name, out, d_out, nout, SUMS);

            float *dout = rnd(nout, -1, 1), *din = rnd(nin, -1, 1);
            float *d_dout = parity_upload(dout, nout), *d_din = parity_upload(din, nin);
            cpu->resize2d_backward(din, dout, wy, wx, P, H, W, OH, OW, C);
            gpu->resize2d_backward(d_din, d_dout, d_wy, d_wx, P, H, W, OH, OW, C);
            snprintf(name, sizeof name, "cuda resize2d backward (%dx%d -> %dx%d, P=%d C=%d)", H, W, OH, OW, P, C);
            check_free(name, din, d_din, nin, SUMS);
            cuda_free(d_wy); cuda_free(d_wx); cuda_free(d_in); cuda_free(d_dout);
            free(wy); free(wx); free(in); free(out); free(dout); free(din);
        }
}

// ---------------------------------------------------------------- sincos2d_add
static void test_sincos2d(void) {
    const int cases[][4] = {{2, 17, 12, 1}, {2, 50, 64, 1}, {2, 65, 64, 0}, {3, 17, 64, 0}}; // B, T, C, t0
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], T = cases[k][1], C = cases[k][2], t0 = cases[k][3], N = T - t0;
        const size_t nx = (size_t)B * T * C, np = (size_t)B * N;
        float *x = rnd(nx, -1, 1), *px = rnd(np, -3, 3), *py = rnd(np, -3, 3);
        float *d_x = parity_upload(x, nx), *d_px = parity_upload(px, np), *d_py = parity_upload(py, np);
        cpu->sincos2d_add(x, px, py, B, T, C, t0);
        gpu->sincos2d_add(d_x, d_px, d_py, B, T, C, t0);
        char name[160];
        snprintf(name, sizeof name, "cuda sincos2d add (T=%d C=%d t0=%d, |x|,|y|<=3)", T, C, t0);
        check_free(name, x, d_x, nx, SIN2D);
        cuda_free(d_px); cuda_free(d_py);
        free(x); free(px); free(py);
    }
}

// ---------------------------------------------------------------- sincos1d_add (1D CAPE)
static void test_sincos1d(void) {
    const int cases[][4] = {{2, 17, 12, 1}, {2, 101, 32, 1}, {2, 65, 64, 0}, {3, 401, 32, 1}}; // B, T, C, t0
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], T = cases[k][1], C = cases[k][2], t0 = cases[k][3], N = T - t0;
        const size_t nx = (size_t)B * T * C, np = (size_t)B * N;
        float *x = rnd(nx, -1, 1), *pt = rnd(np, -70, 70);
        float *d_x = parity_upload(x, nx), *d_pt = parity_upload(pt, np);
        cpu->sincos1d_add(x, pt, B, T, C, t0, CAPE_TIME_FREQ_SCALE);
        gpu->sincos1d_add(d_x, d_pt, B, T, C, t0, CAPE_TIME_FREQ_SCALE);
        char name[160];
        snprintf(name, sizeof name, "cuda sincos1d add (T=%d C=%d t0=%d, |t|<=70 s)", T, C, t0);
        check_free(name, x, d_x, nx, SIN2D);
        cuda_free(d_pt);
        free(x); free(pt);
    }
}

// ---------------------------------------------------------------- rope
static void test_rope(void) {
    // B, gh, gw, cls, C, H, dims (T = cls + gh·gw: 17, 17, 50, 50, 65, 17, 50)
    const int cases[][7] = {{2, 4, 4, 1, 12, 3, 1}, {2, 4, 4, 1, 12, 3, 2}, {2, 7, 7, 1, 64, 4, 1},
                            {2, 7, 7, 1, 64, 4, 2}, {2, 8, 8, 1, 64, 2, 2}, {2, 17, 1, 0, 12, 2, 1},
                            {2, 5, 10, 0, 64, 4, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int B = cases[k][0], gh = cases[k][1], gw = cases[k][2], cls = cases[k][3];
        const int C = cases[k][4], H = cases[k][5], dims = cases[k][6];
        const int T = cls + gh * gw, Dh = C / H;
        const size_t ntab = (size_t)gh * gw * (Dh / 2), n = (size_t)B * T * 3 * C;
        float *cos_t = xmalloc(ntab * sizeof(float), "rope cos"), *sin_t = xmalloc(ntab * sizeof(float), "rope sin");
        posenc_rope_tables(cos_t, sin_t, gh, gw, Dh, dims, posenc_rope_default_base(dims));
        float *d_cos = parity_upload(cos_t, ntab), *d_sin = parity_upload(sin_t, ntab);
        char name[160];

        float *qkv = rnd(n, -1, 1), *d_qkv = parity_upload(qkv, n);
        cpu->rope_forward(qkv, cos_t, sin_t, B, T, C, H, cls);
        gpu->rope_forward(d_qkv, d_cos, d_sin, B, T, C, H, cls);
        snprintf(name, sizeof name, "cuda rope forward %dD (T=%d C=%d H=%d t0=%d)", dims, T, C, H, cls);
        check_free(name, qkv, d_qkv, n, SUMS);

        float *dqkv = rnd(n, -1, 1), *d_dqkv = parity_upload(dqkv, n);
        cpu->rope_backward(dqkv, cos_t, sin_t, B, T, C, H, cls);
        gpu->rope_backward(d_dqkv, d_cos, d_sin, B, T, C, H, cls);
        snprintf(name, sizeof name, "cuda rope backward %dD (T=%d C=%d H=%d t0=%d)", dims, T, C, H, cls);
        check_free(name, dqkv, d_dqkv, n, SUMS);
        cuda_free(d_cos); cuda_free(d_sin);
        free(cos_t); free(sin_t); free(qkv); free(dqkv);
    }
}

int main(void) {
    if (!parity_gpu_or_skip("cuda token ops")) return 0;
    test_patchify();
    test_embed_tokens();
    test_gather_tokens();
    test_scatter_tokens();
    test_qkv_pack();
    test_bias_gather();
    test_mean_pool();
    test_resize2d();
    test_sincos2d();
    test_sincos1d();
    test_rope();
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda token ops", "this build has no CUDA backend");
    return 0;
}

#endif
