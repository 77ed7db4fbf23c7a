// tests/parity/cases_posenc.c — parity cases of the position encodings (core/cpu/posenc_cpu.c,
// core/cuda/posenc_cuda.cu) and resizing (resize_cpu.c, resize_cuda.cu): sincos2d_add (CAPE's
// 2D sinusoids at |x|, |y| <= 3, with and without a cls row) and sincos1d_add (1D CAPE at |t| <=
// 70 s), within 2e-6 absolute (the double phase goes through the GPU's own pow/cos/sincos, a few
// ulp of double, rounded to float once); RoPE 1D and 2D forward and backward in place; bicubic
// resize2d forward and backward for a position table (P = 1, C = 8) and images (P = 6, C = 1),
// up and down. Sums and products PARITY_EW.
#include "parity.h"
#include "../../core/resize.h"
#include "../../models/posenc/tables.h"

#define SINCOS ((parity_tol){2e-6, 0, 0})

// p: B, T, C, t0
static void sincos2d_case(parity_run *r, const int *p) {
    int B = p[0], T = p[1], C = p[2], t0 = p[3], N = T - t0;
    size_t nx = (size_t)B * T * C, np = (size_t)B * N;
    float *x = pr_in(r, nx, -1, 1), *px = pr_in(r, np, -3, 3), *py = pr_in(r, np, -3, 3);
    pr_ops(r)->sincos2d_add(x, px, py, B, T, C, t0);
    pr_out(r, "x +=", x, nx, SINCOS);
}

static void sincos1d_case(parity_run *r, const int *p) {
    int B = p[0], T = p[1], C = p[2], t0 = p[3], N = T - t0;
    size_t nx = (size_t)B * T * C, np = (size_t)B * N;
    float *x = pr_in(r, nx, -1, 1), *pt = pr_in(r, np, -70, 70);
    pr_ops(r)->sincos1d_add(x, pt, B, T, C, t0, CAPE_TIME_FREQ_SCALE);
    pr_out(r, "x +=", x, nx, SINCOS);
}

// p: B, gh, gw, cls, C, H, dims
static void rope_case(parity_run *r, const int *p) {
    int B = p[0], gh = p[1], gw = p[2], cls = p[3], C = p[4], H = p[5], dims = p[6];
    int T = cls + gh * gw, Dh = C / H;
    size_t ntab = (size_t)gh * gw * (Dh / 2), n = (size_t)B * T * 3 * C;
    float *cos_t = pr_host(r, ntab * sizeof(float)), *sin_t = pr_host(r, ntab * sizeof(float));
    posenc_rope_tables(cos_t, sin_t, gh, gw, Dh, dims, posenc_rope_default_base(dims));
    float *dcos = pr_in_host(r, cos_t, ntab), *dsin = pr_in_host(r, sin_t, ntab);
    float *qkv = pr_in(r, n, -1, 1), *dqkv = pr_in(r, n, -1, 1);
    pr_ops(r)->rope_forward(qkv, dcos, dsin, B, T, C, H, cls);
    pr_ops(r)->rope_backward(dqkv, dcos, dsin, B, T, C, H, cls);
    pr_out(r, "qkv rotated in place", qkv, n, PARITY_EW);
    pr_out(r, "dqkv rotated back in place", dqkv, n, PARITY_EW);
}

// p: H, W, OH, OW, P, C
static void resize_case(parity_run *r, const int *p) {
    int H = p[0], W = p[1], OH = p[2], OW = p[3], P = p[4], C = p[5];
    size_t nin = (size_t)P * H * W * C, nout = (size_t)P * OH * OW * C;
    float *wy = pr_host(r, (size_t)OH * H * sizeof(float)), *wx = pr_host(r, (size_t)OW * W * sizeof(float));
    resize_bicubic_weights(wy, OH, H);
    resize_bicubic_weights(wx, OW, W);
    float *dwy = pr_in_host(r, wy, (size_t)OH * H), *dwx = pr_in_host(r, wx, (size_t)OW * W);
    float *in = pr_in(r, nin, -1, 1), *out = pr_in(r, nout, -1, 1), *dout = pr_in(r, nout, -1, 1), *din = pr_in(r, nin, -1, 1);
    pr_ops(r)->resize2d_forward(out, in, dwy, dwx, P, H, W, OH, OW, C);
    pr_ops(r)->resize2d_backward(din, dout, dwy, dwx, P, H, W, OH, OW, C);
    pr_out(r, "out (old values overwritten)", out, nout, PARITY_EW);
    pr_out(r, "din +=", din, nin, PARITY_EW);
}

#define SIN2D(B, T, C, t0) {"sincos2d_add", "B " #B " T " #T " C " #C " t0 " #t0, sincos2d_case, {B, T, C, t0}, .repeat = 0}
#define SIN1D(B, T, C, t0) {"sincos1d_add", "B " #B " T " #T " C " #C " t0 " #t0, sincos1d_case, {B, T, C, t0}, .repeat = 0}
#define ROPE(B, gh, gw, cls, C, H, dims) \
    {"rope_forward rope_backward", #dims "D, " #gh "x" #gw " grid, cls " #cls ", C " #C " H " #H, rope_case, {B, gh, gw, cls, C, H, dims}, .repeat = 0}
#define RESIZE(H, W, OH, OW, P, C) \
    {"resize2d_forward resize2d_backward", #H "x" #W " -> " #OH "x" #OW ", P " #P " C " #C, resize_case, {H, W, OH, OW, P, C}, .repeat = 0}
const parity_case parity_cases_posenc[] = {
    SIN2D(2, 17, 12, 1), SIN2D(2, 50, 64, 1), SIN2D(2, 65, 64, 0), SIN2D(3, 17, 64, 0),
    SIN1D(2, 17, 12, 1), SIN1D(2, 101, 32, 1), SIN1D(2, 65, 64, 0), SIN1D(3, 401, 32, 1),
    ROPE(2, 4, 4, 1, 12, 3, 1), ROPE(2, 4, 4, 1, 12, 3, 2), ROPE(2, 7, 7, 1, 64, 4, 1), ROPE(2, 7, 7, 1, 64, 4, 2),
    ROPE(2, 8, 8, 1, 64, 2, 2), ROPE(2, 17, 1, 0, 12, 2, 1), ROPE(2, 5, 10, 0, 64, 4, 2),
    RESIZE(28, 28, 40, 40, 1, 8), RESIZE(28, 28, 40, 40, 6, 1), RESIZE(28, 28, 14, 14, 1, 8), RESIZE(28, 28, 14, 14, 6, 1),
    RESIZE(7, 7, 10, 10, 1, 8), RESIZE(7, 7, 10, 10, 6, 1), RESIZE(28, 7, 14, 10, 1, 8), RESIZE(28, 7, 14, 10, 6, 1),
};
const int parity_cases_posenc_count = (int)(sizeof parity_cases_posenc / sizeof parity_cases_posenc[0]);
