// tests/parity/cases_tokens.c — parity cases of the token bookkeeping (core/cpu/tokens_cpu.c,
// core/cuda/tokens_cuda.cu): patchify, embed_tokens (with and without cls and position table),
// gather/scatter tokens (distinct MP3 context sets and repeated indices, among them MP3's
// reference rows: a table read by 640 entries), qkv_pack, the relative-bias gather (bitwise run to
// run) and mean pooling. Gradient buffers and the rows an op leaves alone start from drawn values.
// Odd sizes: T = 17, 50, 65 tokens, C = 12, 64. Copies and gathers bit for bit; anything that
// adds PARITY_EW (the kernels sum in the CPU's order; the slack only keeps operation fusion from
// failing a check).
#include "parity.h"
#include "../testing.h"
#include "../../models/posenc/tables.h"
#include <string.h>

// idx (B, M): per image M distinct tokens of [0, T) in random order (an MP3 context set), or
// (repeated) tokens drawn independently with each image's last entry repeating its first.
static int *token_index(parity_run *r, int B, int T, int M, int repeated, unsigned tag) {
    int *idx = pr_host(r, (size_t)B * M * sizeof(int)), *perm = pr_host(r, (size_t)T * sizeof(int));
    float *u = pr_host(r, (size_t)B * (T > M ? T : M) * sizeof(float));
    test_fill_uniform(u, (size_t)B * (T > M ? T : M), 0, 1, tag);
    for (int b = 0; b < B; b++) {
        if (repeated) {
            for (int m = 0; m < M; m++) {
                int t = (int)(u[(size_t)b * M + m] * (float)T);
                idx[(size_t)b * M + m] = t < T ? t : T - 1;
            }
            idx[(size_t)b * M + M - 1] = idx[(size_t)b * M];
            continue;
        }
        for (int t = 0; t < T; t++) perm[t] = t;
        for (int t = T - 1; t > 0; t--) { // Fisher-Yates
            int s = (int)(u[(size_t)b * T + t] * (float)(t + 1));
            if (s > t) s = t;
            int tmp = perm[t];
            perm[t] = perm[s];
            perm[s] = tmp;
        }
        memcpy(idx + (size_t)b * M, perm, (size_t)M * sizeof(int));
    }
    return idx;
}

// p: B, Cin, H, W, patch
static void patchify_case(parity_run *r, const int *p) {
    int B = p[0], Cin = p[1], H = p[2], W = p[3], ps = p[4];
    size_t ni = (size_t)B * Cin * H * W, np = (size_t)B * (H / ps) * (W / ps) * Cin * ps * ps;
    float *img = pr_in(r, ni, -1, 1), *out = pr_in(r, np, -1, 1);
    pr_ops(r)->patchify(out, img, B, Cin, H, W, ps);
    pr_out(r, "patches", out, np, PARITY_BITWISE);
}

// p: B, N, C, has_cls, with_pos
static void embed_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0], N = p[1], C = p[2], cls = p[3], pos = p[4], T = N + cls;
    size_t nx = (size_t)B * T * C, npatch = (size_t)B * N * C, npos = (size_t)T * C;
    float *patch = pr_in(r, npatch, -1, 1), *dcls0 = pr_in(r, C, -1, 1), *tpos = pr_in(r, npos, -1, 1);
    float *x = pr_in(r, nx, -1, 1);
    o->embed_tokens_forward(x, patch, cls ? dcls0 : NULL, pos ? tpos : NULL, B, N, C);
    pr_out(r, "x", x, nx, PARITY_EW);
    float *dx = pr_in(r, nx, -1, 1), *dpatch = pr_in(r, npatch, -1, 1), *dcls = pr_in(r, C, -1, 1);
    float *dpos = pr_in(r, npos, -1, 1);
    o->embed_tokens_backward(dpatch, dcls, pos ? dpos : NULL, dx, B, N, C, cls); // dcls untouched without cls
    pr_out(r, "dpatch +=", dpatch, npatch, PARITY_EW);
    pr_out(r, cls ? "dcls +=" : "dcls untouched", dcls, C, PARITY_EW);
    pr_out(r, pos ? "dpos +=" : "dpos NULL: untouched", dpos, npos, PARITY_EW);
}

// p: B, T, M, C, repeated
static void gather_case(parity_run *r, const int *p) {
    int B = p[0], T = p[1], M = p[2], C = p[3];
    size_t nin = (size_t)B * T * C, nout = (size_t)B * M * C;
    int *idx = pr_in_ints(r, token_index(r, B, T, M, p[4], 100 + (unsigned)T + (unsigned)M), (size_t)B * M);
    float *in = pr_in(r, nin, -1, 1), *out = pr_in(r, nout, -1, 1), *dout = pr_in(r, nout, -1, 1), *din = pr_in(r, nin, -1, 1);
    pr_ops(r)->gather_tokens_forward(out, in, idx, B, T, M, C);
    pr_ops(r)->gather_tokens_backward(din, dout, idx, B, T, M, C);
    pr_out(r, "out", out, nout, PARITY_BITWISE);
    pr_out(r, "din +=", din, nin, PARITY_EW);
}

// p: B, T, M, C
static void scatter_case(parity_run *r, const int *p) {
    int B = p[0], T = p[1], M = p[2], C = p[3];
    size_t nfull = (size_t)B * T * C, nctx = (size_t)B * M * C;
    int *idx = pr_in_ints(r, token_index(r, B, T, M, 0, 200 + (unsigned)T + (unsigned)M), (size_t)B * M);
    float *in = pr_in(r, nctx, -1, 1), *out = pr_in(r, nfull, -1, 1), *dout = pr_in(r, nfull, -1, 1), *din = pr_in(r, nctx, -1, 1);
    pr_ops(r)->scatter_tokens_forward(out, in, idx, B, T, M, C);
    pr_ops(r)->scatter_tokens_backward(din, dout, idx, B, T, M, C);
    pr_out(r, "out (other rows kept)", out, nfull, PARITY_BITWISE);
    pr_out(r, "din +=", din, nctx, PARITY_EW);
}

// p: B, T, M, C, with_dq
static void qkv_pack_case(parity_run *r, const int *p) {
    int B = p[0], T = p[1], M = p[2], C = p[3];
    size_t nqkv = (size_t)B * T * 3 * C, nq = (size_t)B * T * C, nkv = (size_t)B * M * 2 * C;
    int *idx = pr_in_ints(r, token_index(r, B, T, M, 0, 300 + (unsigned)T + (unsigned)M), (size_t)B * M);
    float *q = pr_in(r, nq, -1, 1), *kv = pr_in(r, nkv, -1, 1), *qkv = pr_in(r, nqkv, -1, 1);
    float *dqkv = pr_in(r, nqkv, -1, 1), *dq = pr_in(r, nq, -1, 1), *dkv = pr_in(r, nkv, -1, 1);
    pr_ops(r)->qkv_pack_forward(qkv, q, kv, idx, B, T, M, C);
    pr_ops(r)->qkv_pack_backward(p[4] ? dq : NULL, dkv, dqkv, idx, B, T, M, C);
    pr_out(r, "qkv (other rows' k/v kept)", qkv, nqkv, PARITY_BITWISE);
    pr_out(r, p[4] ? "dq +=" : "dq NULL: untouched", dq, nq, PARITY_EW);
    pr_out(r, "dkv +=", dkv, nkv, PARITY_EW);
}

// p: gh, gw, table size g, cls, H
static void bias_gather_case(parity_run *r, const int *p) {
    int gh = p[0], gw = p[1], g = p[2], cls = p[3], H = p[4];
    int T = cls + gh * gw, E = T * T, K = posenc_relbias_entries(g, g, cls);
    size_t nt = (size_t)H * K, no = (size_t)H * E;
    int *index = pr_host(r, (size_t)E * sizeof(int));
    posenc_relbias_index(index, gh, gw, g, g, cls);
    int *d_index = pr_in_ints(r, index, (size_t)E);
    float *table = pr_in(r, nt, -1, 1), *out = pr_in(r, no, -1, 1), *dout = pr_in(r, no, -1, 1), *dtable = pr_in(r, nt, -1, 1);
    pr_ops(r)->bias_gather_forward(out, table, d_index, H, E, K);
    pr_ops(r)->bias_gather_backward(dtable, dout, d_index, H, E, K);
    pr_out(r, "out", out, no, PARITY_BITWISE);
    pr_out(r, "dtable +=", dtable, nt, PARITY_EW);
}

// p: B, T, C, t0
static void mean_pool_case(parity_run *r, const int *p) {
    int B = p[0], T = p[1], C = p[2], t0 = p[3];
    size_t nin = (size_t)B * T * C, nout = (size_t)B * C;
    float *in = pr_in(r, nin, -1, 1), *out = pr_in(r, nout, -1, 1), *dout = pr_in(r, nout, -1, 1), *din = pr_in(r, nin, -1, 1);
    pr_ops(r)->mean_pool_forward(out, in, B, T, C, t0);
    pr_ops(r)->mean_pool_backward(din, dout, B, T, C, t0);
    pr_out(r, "out", out, nout, PARITY_EW);
    pr_out(r, "din +=", din, nin, PARITY_EW);
}

#define PATCHIFY(B, Cin, H, W, P) {"patchify", "B " #B " Cin " #Cin " " #H "x" #W " p " #P, patchify_case, {B, Cin, H, W, P}, .repeat = 0}
#define EMBED(B, N, C, cls, pos) \
    {"embed_tokens_forward embed_tokens_backward", "B " #B " N " #N " C " #C " cls " #cls " pos " #pos, embed_case, {B, N, C, cls, pos}, .repeat = 0}
#define GATHER(B, T, M, C, rep, what) \
    {"gather_tokens_forward gather_tokens_backward", what ", T " #T " M " #M " C " #C, gather_case, {B, T, M, C, rep}, .repeat = 0}
#define SCATTER(B, T, M, C) \
    {"scatter_tokens_forward scatter_tokens_backward", "B " #B " T " #T " M " #M " C " #C, scatter_case, {B, T, M, C}, .repeat = 0}
#define QKV_PACK(B, T, M, C, dq) \
    {"qkv_pack_forward qkv_pack_backward", "T " #T " M " #M " C " #C " dq " #dq, qkv_pack_case, {B, T, M, C, dq}, .repeat = 0}
#define BIAS_GATHER(gh, gw, g, cls, H, rep) \
    {"bias_gather_forward bias_gather_backward", #gh "x" #gw " grid, table " #g ", cls " #cls ", H " #H, bias_gather_case, \
     {gh, gw, g, cls, H}, .repeat = rep}
#define MEAN_POOL(B, T, C, t0) {"mean_pool_forward mean_pool_backward", "B " #B " T " #T " C " #C " t0 " #t0, mean_pool_case, {B, T, C, t0}, .repeat = 0}
const parity_case parity_cases_tokens[] = {
    PATCHIFY(2, 3, 20, 20, 4), PATCHIFY(3, 1, 12, 8, 4), PATCHIFY(1, 3, 28, 28, 7), PATCHIFY(2, 3, 18, 22, 4),
    EMBED(3, 16, 12, 1, 1), EMBED(2, 49, 64, 1, 1), EMBED(2, 64, 64, 1, 0), EMBED(3, 17, 12, 0, 1), EMBED(2, 50, 64, 0, 1),
    GATHER(2, 17, 12, 12, 1, "repeated index"), GATHER(3, 50, 50, 64, 1, "repeated index"),
    GATHER(2, 65, 20, 64, 0, "distinct index"), GATHER(2, 17, 9, 12, 0, "distinct index"),
    GATHER(1, 50, 640, 64, 1, "MP3 reference rows: every token many times"),
    SCATTER(2, 17, 9, 12), SCATTER(3, 50, 13, 64), SCATTER(2, 65, 64, 12),
    QKV_PACK(2, 17, 9, 12, 1), QKV_PACK(2, 50, 25, 64, 1), QKV_PACK(2, 65, 16, 64, 0),
    BIAS_GATHER(4, 4, 4, 1, 3, 0), BIAS_GATHER(7, 7, 7, 1, 4, 0), BIAS_GATHER(8, 8, 6, 1, 2, 1), BIAS_GATHER(5, 10, 7, 0, 3, 0),
    MEAN_POOL(3, 17, 12, 1), MEAN_POOL(2, 50, 64, 0), MEAN_POOL(2, 65, 64, 1), MEAN_POOL(3, 17, 64, 0),
};
const int parity_cases_tokens_count = (int)(sizeof parity_cases_tokens / sizeof parity_cases_tokens[0]);
