// tests/test_posenc.c — position encodings: the host tables and CAPE draws of models/posenc.c
// and the CPU ops sincos2d_add / rope_forward / rope_backward (core/cpu/posenc_cpu.c).
// Each formula is checked against an independent double-precision evaluation of docs/methods.md
// "Position encodings" (not against the code's own tables), plus the properties the encodings
// exist for: relbias and RoPE depend only on relative (2D) offsets, CAPE's draws have the
// stated distributions and draw order, rope_backward is the adjoint of rope_forward.
// Tolerances (stated per check as well):
//   sin2d vs double formula          1e-5 absolute (the contract in core/ops_list.h), |x|,|y| <= 3
//   sin1d / rope tables vs formula   1e-6 absolute (double math rounded to float once)
//   rope outputs / dot products      1e-5 absolute on O(1) inputs (a few float roundings)
//   CAPE statistics                  20000 images; KS distance below the α = 0.001 critical
//                                    value 1.95/√n; mean within ~5σ; variance within 3%
#include "testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/rng.h"
#include "../models/posenc/tables.h"
#include "../models/model.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ops_backend *ops = &ops_cpu;

static float *copy_of(const float *x, size_t n) {
    float *y = xmalloc(n * sizeof(float), "test tensor");
    memcpy(y, x, n * sizeof(float));
    return y;
}

// ================================================================ positions and sin1d
static void test_grid_positions(void) {
    float x[15], y[15];
    posenc_grid_positions(x, y, 3, 5);
    const float ex[5] = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f}, ey[3] = {-1.0f, 0.0f, 1.0f};
    int ok = 1;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 5; c++) ok &= x[r * 5 + c] == ex[c] && y[r * 5 + c] == ey[r];
    test_check("grid positions 3x5: linspace(-1,1) per axis, row-major", ok, "x[1]=%g y[5]=%g", x[1], y[5]);
    float x1[4], y1[4];
    posenc_grid_positions(x1, y1, 4, 1); // one column: x = 0
    posenc_grid_positions(x, y, 1, 1);   // single patch: (0, 0)
    test_check("grid positions: an axis of 1 patch gives 0",
               x1[0] == 0.0f && x1[3] == 0.0f && y1[0] == -1.0f && y1[3] == 1.0f && x[0] == 0.0f && y[0] == 0.0f,
               "4x1: x=%g..%g y=%g..%g; 1x1: (%g, %g)", x1[0], x1[3], y1[0], y1[3], x[0], y[0]);
}

static void test_sin1d(void) {
    // Tolerance 1e-6: the table is double math rounded to float once.
    const int T = 50, d = 16, t0 = 1;
    float *pos = test_rnd((size_t)T * d, -5, 5, 1); // garbage first: cls rows must be overwritten
    posenc_sin1d_table(pos, T, d, t0);
    double worst = 0;
    int cls_zero = 1;
    for (int i = 0; i < d; i++) cls_zero &= pos[i] == 0.0f;
    for (int t = t0; t < T; t++)
        for (int k = 0; k < d / 2; k++) {
            double w = pow(10000.0, -2.0 * k / d), n = t - t0;
            worst = fmax(worst, fabs(pos[t * d + 2 * k] - cos(w * n)));
            worst = fmax(worst, fabs(pos[t * d + 2 * k + 1] - sin(w * n)));
        }
    test_check("sin1d table: E_2k = cos(w_k n), E_2k+1 = sin(w_k n), w_k = 1e4^(-2k/d); cls row 0",
               worst < 1e-6 && cls_zero, "max |err| %.2e (tol 1e-6), cls row zero %d", worst, cls_zero);
    float small[3 * 6];
    posenc_sin1d_table(small, 3, 6, 0); // no cls: row 0 is position 0 = (1, 0, 1, 0, 1, 0)
    int ok = small[0] == 1.0f && small[1] == 0.0f && small[4] == 1.0f && small[5] == 0.0f &&
             fabs(small[6 + 2] - cos(pow(10000.0, -2.0 / 6))) < 1e-6;
    test_check("sin1d table without cls: row 0 is position 0", ok, "row0 = %g %g ...", small[0], small[1]);
    test_check("sin1d/sin2d width validation", posenc_sin_error(16) == NULL && posenc_sin_error(7) != NULL &&
               posenc_sin_error(0) != NULL, "%s", posenc_sin_error(7) ? posenc_sin_error(7) : "(none)");
    free(pos);
}

// ================================================================ sin2d op
// CAPE eq. 3-4 in double, layout [cos(phase_1..K), sin(phase_1..K)], k = 1..K, K = d/2.
static double sin2d_ref(double x, double y, int d, int ch) {
    int K = d / 2, k = ch % K + 1;
    double rho = pow(10.0, 2.0 * k / d);
    double phase = M_PI * (rho * cos((double)k) * x + rho * sin((double)k) * y);
    return ch < K ? cos(phase) : sin(phase);
}

static void sin2d_case(int B, int T, int C, int t0, unsigned tag) {
    int N = T - t0;
    size_t n = (size_t)B * T * C;
    float *px = test_rnd((size_t)B * N, -3, 3, tag), *py = test_rnd((size_t)B * N, -3, 3, tag + 1);
    px[0] = 3.0f; py[0] = 3.0f; px[1] = -3.0f; py[1] = 3.0f; // the extreme corners of the contract
    float *emb = test_zeros(n);
    ops->sincos2d_add(emb, px, py, B, T, C, t0); // from zero: the embedding itself
    double worst = 0;
    int cls_zero = 1;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) {
                float v = emb[((size_t)b * T + t) * C + c];
                if (t < t0) { cls_zero &= v == 0.0f; continue; }
                double ref = sin2d_ref(px[b * N + t - t0], py[b * N + t - t0], C, c);
                worst = fmax(worst, fabs(v - ref));
            }
    char name[160];
    snprintf(name, sizeof name, "sincos2d_add equals CAPE eq. 3-4 in double (B=%d T=%d C=%d t0=%d, |x|,|y|<=3)", B, T,
             C, t0);
    test_check(name, worst <= 1e-5 && cls_zero, "max |err| %.2e (tol 1e-5), cls rows untouched %d", worst, cls_zero);

    // Adds, not overwrites: x + emb exactly (one float add per element), cls rows bitwise kept.
    float *x = test_rnd(n, -1, 1, tag + 2), *x0 = copy_of(x, n);
    ops->sincos2d_add(x, px, py, B, T, C, t0);
    size_t bad = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) {
                size_t i = ((size_t)b * T + t) * C + c;
                float expect = t < t0 ? x0[i] : x0[i] + emb[i];
                bad += memcmp(&x[i], &expect, sizeof(float)) != 0;
            }
    snprintf(name, sizeof name, "sincos2d_add adds to x, cls rows bitwise untouched (T=%d t0=%d)", T, t0);
    test_check(name, bad == 0, "%zu of %zu elements differ from x + embedding", bad, n);

    omp_set_num_threads(1);
    float *one = test_zeros(n);
    ops->sincos2d_add(one, px, py, B, T, C, t0);
    omp_set_num_threads(2);
    snprintf(name, sizeof name, "sincos2d_add bitwise equal for 1 and 2 threads (T=%d)", T);
    test_check(name, memcmp(one, emb, n * sizeof(float)) == 0, "%zu floats compared", n);
    free(px); free(py); free(emb); free(x); free(x0); free(one);
}

static void test_sin2d(void) {
    sin2d_case(2, 51, 384, 1, 10); // ViT-S width: phases up to ~130 rad
    sin2d_case(3, 17, 6, 0, 20);   // no cls, tiny width
    sin2d_case(2, 50, 64, 1, 30);
    // Position (0, 0) is [1 ... 1, 0 ... 0]: cos first, sin second.
    float x[8] = {0}, zx = 0.0f, zy = 0.0f;
    ops->sincos2d_add(x, &zx, &zy, 1, 1, 8, 0);
    int ok = x[0] == 1.0f && x[3] == 1.0f && x[4] == 0.0f && x[7] == 0.0f;
    test_check("sincos2d layout: first C/2 channels cos, last C/2 sin", ok, "(0,0) -> %g %g %g %g | %g %g %g %g", x[0],
               x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
}

// ================================================================ CAPE

static void mean_var(const double *v, size_t n, double *mean, double *var) {
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++) m += v[i];
    m /= n;
    for (size_t i = 0; i < n; i++) s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = s / n;
}

static double corr(const double *a, const double *b, size_t n) {
    double ma, va, mb, vb, c = 0;
    mean_var(a, n, &ma, &va);
    mean_var(b, n, &mb, &vb);
    for (size_t i = 0; i < n; i++) c += (a[i] - ma) * (b[i] - mb);
    return c / n / sqrt(va * vb);
}

// Uniform-distribution checks on n samples of U(-a, a): KS below the α = 0.001 critical value,
// mean within 5σ (σ = a/√(3n)), variance a²/3 within 3% (~5σ of the sample variance), and the
// extreme reaching 0.99·a (the whole range is used). v is sorted in place.
static void check_uniform(const char *name, double *v, size_t n, double a) {
    double mean, var;
    mean_var(v, n, &mean, &var);
    double D = test_ks_uniform(v, n, -a, a), crit = 1.95 / sqrt((double)n);
    double extreme = fmax(-v[0], v[n - 1]);
    int ok = D < crit && fabs(mean) < 5 * a / sqrt(3.0 * n) && fabs(var / (a * a / 3) - 1) < 0.03 &&
             extreme <= a * (1 + 1e-5) && extreme >= 0.99 * a;
    test_check(name, ok, "n=%zu KS %.4f (crit %.4f) mean %.4f var %.5f (a^2/3 = %.5f) max|v| %.5f (a = %g)", n, D, crit,
               mean, var, a * a / 3, extreme, a);
}

static void test_cape_basics(void) {
    const int B = 3, gh = 4, gw = 5, N = gh * gw;
    float px[60], py[60], gx[20], gy[20];
    posenc_eval_positions(px, py, B, gh, gw);
    posenc_grid_positions(gx, gy, gh, gw);
    int ok = 1;
    for (int b = 0; b < B; b++) ok &= !memcmp(px + b * N, gx, sizeof gx) && !memcmp(py + b * N, gy, sizeof gy);
    test_check("cape at evaluation = the plain grid for every image", ok, "B=%d grid %dx%d", B, gh, gw);
    cape_config off = {0.0f, 0.0f, 1.0f};
    float cx[60], cy[60];
    posenc_cape_positions(cx, cy, B, gh, gw, &off, 7, 1, 2);
    test_check("cape with no augmentation (0, 0, 1) = the grid exactly",
               !memcmp(cx, px, sizeof cx) && !memcmp(cy, py, sizeof cy), "bitwise, B=%d", B);
    cape_config good = {0.5f, cape_default_local_shift(14), 1.4f}, neg = {-0.1f, 0, 1}, small = {0.5f, 0, 0.9f},
                negl = {0, -1e-3f, 1};
    test_check("cape config validation and default local shift 1/N",
               posenc_cape_error(&good) == NULL && posenc_cape_error(&neg) && posenc_cape_error(&small) &&
                   posenc_cape_error(&negl) && cape_default_local_shift(14) == 1.0f / 14.0f,
               "%s", posenc_cape_error(&small) ? posenc_cape_error(&small) : "(accepted λmax < 1)");

    // Determinism and addressing: (seed, epoch, step, image) decide everything.
    cape_config c = {0.5f, 0.1f, 1.4f};
    float a[100], a2[100], ay[100], other[100], oy[100], small_b[40], small_by[40];
    posenc_cape_positions(a, ay, 5, gh, gw, &c, 7, 1, 2);
    posenc_cape_positions(a2, oy, 5, gh, gw, &c, 7, 1, 2);
    test_check("cape draws deterministic for the same (seed, epoch, step)", !memcmp(a, a2, sizeof a), "bitwise, 5 images");
    posenc_cape_positions(small_b, small_by, 2, gh, gw, &c, 7, 1, 2);
    test_check("cape image b's positions do not depend on the batch size", !memcmp(small_b, a, sizeof small_b) &&
               !memcmp(small_by, ay, sizeof small_by), "B=2 vs the first 2 of B=5, bitwise");
    posenc_cape_positions(other, oy, 5, gh, gw, &c, 7, 1, 3);
    int diff_step = memcmp(other, a, sizeof a) != 0;
    posenc_cape_positions(other, oy, 5, gh, gw, &c, 7, 2, 2);
    int diff_epoch = memcmp(other, a, sizeof a) != 0;
    posenc_cape_positions(other, oy, 5, gh, gw, &c, 8, 1, 2);
    int diff_seed = memcmp(other, a, sizeof a) != 0;
    int diff_image = memcmp(a, a + N, (size_t)N * sizeof(float)) != 0;
    test_check("cape draws differ across steps, epochs, seeds and images", diff_step && diff_epoch && diff_seed && diff_image,
               "step %d epoch %d seed %d image %d", diff_step, diff_epoch, diff_seed, diff_image);
}

// The documented draw order, redrawn here from the image's own stream: Δx, Δy, then εx, εy
// per token, then log λ; x' = λ((x + Δx) + εx). Must match bitwise.
static void test_cape_draw_order(void) {
    const int B = 4, gh = 3, gw = 5, N = 15;
    cape_config c = {0.5f, 0.07f, 1.4f};
    float px[60], py[60], gx[15], gy[15];
    posenc_cape_positions(px, py, B, gh, gw, &c, 21, 4, 9);
    posenc_grid_positions(gx, gy, gh, gw);
    size_t bad = 0;
    for (int b = 0; b < B; b++) {
        rng_stream s = rng_stream_make(21, RNG_POSENC, 4, 9, (uint32_t)b);
        float dx = c.global_shift * (2.0f * rng_uniform(&s) - 1.0f);
        float dy = c.global_shift * (2.0f * rng_uniform(&s) - 1.0f);
        float ex[15], ey[15];
        for (int n = 0; n < N; n++) {
            ex[n] = c.local_shift * (2.0f * rng_uniform(&s) - 1.0f);
            ey[n] = c.local_shift * (2.0f * rng_uniform(&s) - 1.0f);
        }
        float lam = (float)exp((double)((float)log((double)c.scale) * (2.0f * rng_uniform(&s) - 1.0f)));
        for (int n = 0; n < N; n++) {
            float x = lam * ((gx[n] + dx) + ex[n]), y = lam * ((gy[n] + dy) + ey[n]);
            bad += x != px[b * N + n] || y != py[b * N + n];
        }
    }
    test_check("cape draw order: Δx, Δy, (εx, εy) per token, log λ from stream (seed, RNG_POSENC, epoch, step, b)",
               bad == 0, "%zu of %d positions differ from the documented sequence (bitwise)", bad, 2 * B * N);
}

// Distributions and draw order. A 2x3 grid: x = (-1, 0, 1) per row, y = (-1, 1) per column.
// With εmax = 0, x'_n = λ(x_n + Δx), so λ = (x'_2 - x'_0)/2 (same row, x 1 vs -1) and
// Δx = x'_0/λ - x_0; likewise for y from rows 0 and 1 (λ must agree).
#define CAPE_IMAGES 20000
static void test_cape_statistics(void) {
    const int B = CAPE_IMAGES, gh = 2, gw = 3, N = 6;
    const float dmax = 0.5f, emax = 0.2f, lmax = 1.4f;
    size_t BN = (size_t)B * N;
    float *ax = xmalloc(BN * sizeof(float), "cape"), *ay = xmalloc(BN * sizeof(float), "cape");
    float *bx = xmalloc(BN * sizeof(float), "cape"), *by = xmalloc(BN * sizeof(float), "cape");
    float *cx = xmalloc(BN * sizeof(float), "cape"), *cy = xmalloc(BN * sizeof(float), "cape");
    float *hx = xmalloc(BN * sizeof(float), "cape"), *hy = xmalloc(BN * sizeof(float), "cape");
    double *dx = xmalloc(B * sizeof(double), "cape"), *dy = xmalloc(B * sizeof(double), "cape");
    double *loglam = xmalloc(B * sizeof(double), "cape"), *lam = xmalloc(B * sizeof(double), "cape");
    double *eps = xmalloc(2 * BN * sizeof(double), "cape"), *eps_c = xmalloc(2 * BN * sizeof(double), "cape");
    float gx[6], gy[6];
    posenc_grid_positions(gx, gy, gh, gw);

    // A: Δ and λ only.
    cape_config A = {dmax, 0.0f, lmax};
    posenc_cape_positions(ax, ay, B, gh, gw, &A, 11, 3, 5);
    double lam_lo = 1e9, lam_hi = 0, worst_consistency = 0;
    for (int b = 0; b < B; b++) {
        const float *x = ax + (size_t)b * N, *y = ay + (size_t)b * N;
        double lx = (x[2] - x[0]) / 2.0, ly = (y[3] - y[0]) / 2.0;
        lam[b] = lx;
        loglam[b] = log(lx);
        dx[b] = x[0] / lx - gx[0];
        dy[b] = y[0] / lx - gy[0];
        lam_lo = fmin(lam_lo, lx);
        lam_hi = fmax(lam_hi, lx);
        worst_consistency = fmax(worst_consistency, fabs(lx - ly));
        for (int n = 0; n < N; n++) { // one Δ and one λ per image: every token agrees
            worst_consistency = fmax(worst_consistency, fabs(x[n] / lx - gx[n] - dx[b]));
            worst_consistency = fmax(worst_consistency, fabs(y[n] / lx - gy[n] - dy[b]));
        }
    }
    test_check("cape: one global shift per image and axis, one scale for both axes", worst_consistency < 1e-5,
               "max token disagreement %.2e (tol 1e-5, float rounding)", worst_consistency);
    test_check("cape: λ within [1/λmax, λmax], both ends reached", lam_lo >= 1 / lmax - 1e-6 && lam_hi <= lmax + 1e-6 &&
               lam_lo < 1 / lmax + 0.01 && lam_hi > lmax - 0.01, "λ in [%.5f, %.5f], λmax %g", lam_lo, lam_hi, lmax);
    double cxy = corr(dx, dy, B), cxl = corr(dx, loglam, B);
    test_check("cape: Δx, Δy, log λ uncorrelated", fabs(cxy) < 0.03 && fabs(cxl) < 0.03,
               "corr(Δx,Δy) %.4f corr(Δx,log λ) %.4f (tol 0.03, σ ≈ 0.007)", cxy, cxl);

    // D: Δmax halved — the same draws scaled (the u's do not move), λ unchanged.
    cape_config Dc = {dmax / 2, 0.0f, lmax};
    posenc_cape_positions(hx, hy, B, gh, gw, &Dc, 11, 3, 5);
    double worst_half = 0;
    for (int b = 0; b < B; b++) {
        const float *x = hx + (size_t)b * N, *y = hy + (size_t)b * N;
        double l = (x[2] - x[0]) / 2.0;
        worst_half = fmax(worst_half, fabs(l - lam[b]));
        worst_half = fmax(worst_half, fabs((x[0] / l - gx[0]) - dx[b] / 2));
        worst_half = fmax(worst_half, fabs((y[0] / l - gy[0]) - dy[b] / 2));
    }
    test_check("cape: halving Δmax halves every Δ and keeps every λ (fixed draw sequence)", worst_half < 1e-5,
               "max |err| %.2e (tol 1e-5)", worst_half);

    // B: everything on; ε recovered with A's Δ and λ (same u's) must lie in bounds and equal
    // the ε of C, a run with only local shifts.
    cape_config Bc = {dmax, emax, lmax}, Cc = {0.0f, emax, 1.0f};
    posenc_cape_positions(bx, by, B, gh, gw, &Bc, 11, 3, 5);
    posenc_cape_positions(cx, cy, B, gh, gw, &Cc, 11, 3, 5);
    double worst_eps = 0;
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++) {
            size_t i = (size_t)b * N + n;
            double ex = bx[i] / lam[b] - gx[n] - dx[b], ey = by[i] / lam[b] - gy[n] - dy[b];
            eps_c[2 * i] = cx[i] - gx[n];
            eps_c[2 * i + 1] = cy[i] - gy[n];
            worst_eps = fmax(worst_eps, fmax(fabs(ex - eps_c[2 * i]), fabs(ey - eps_c[2 * i + 1])));
            eps[2 * i] = ex;
            eps[2 * i + 1] = ey;
        }
    test_check("cape: x' = λ(x + Δ + ε) with the ε of a local-shift-only run (draw order fixed)", worst_eps < 1e-5,
               "max |ε_B - ε_C| %.2e (tol 1e-5)", worst_eps);
    double ebound = 0;
    for (size_t i = 0; i < 2 * BN; i++) ebound = fmax(ebound, fabs(eps[i]));
    test_check("cape: |ε| <= εmax", ebound <= emax + 1e-5, "max |ε| %.6f, εmax %g", ebound, emax);

    check_uniform("cape: Δx ~ U(-Δmax, Δmax)", dx, B, dmax);
    check_uniform("cape: Δy ~ U(-Δmax, Δmax)", dy, B, dmax);
    check_uniform("cape: log λ ~ U(-log λmax, log λmax)", loglam, B, log(lmax));
    check_uniform("cape: ε ~ U(-εmax, εmax) (x and y, all tokens)", eps_c, 2 * BN, emax);

    free(ax); free(ay); free(bx); free(by); free(cx); free(cy); free(hx); free(hy);
    free(dx); free(dy); free(loglam); free(lam); free(eps); free(eps_c);
}

// ================================================================ relbias index
// vit.c's fill_rel_index as of this commit, reimplemented from its documented formula
// (square grid g, table built for g): the reference the generalised index must reproduce.
static void old_rel_index(int *index, int g, int t0) {
    int T = g * g + t0, span = 2 * g - 1, K = span * span + (t0 ? 3 : 0);
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            int e;
            if (i < t0 && j < t0) e = K - 1;
            else if (i < t0) e = K - 3;
            else if (j < t0) e = K - 2;
            else {
                int pi = i - t0, pj = j - t0;
                e = (pi / g - pj / g + g - 1) * span + (pi % g - pj % g + g - 1);
            }
            index[i * T + j] = e;
        }
}

// The index the live vit.c builds for a relbias ViT with a grid of `grid` patches.
static int vit_matches(int grid, int cls) {
    model_config c = {.channels = 1, .image_size = 2 * grid, .patch = 2, .dim = 8, .depth = 1, .heads = 2,
                    .mlp_ratio = 2, .cls = cls, .pe_kind = "relbias", .num_classes = 3};
    model m;
    model_create(&m, &c, ops, 1, 1);
    const int *live = (const int *)(m.staging + m.inputs.items[tensor_table_find(&m.inputs, "rel_index")].offset);
    int T = m.T;
    int *mine = xmalloc((size_t)T * T * sizeof(int), "index");
    posenc_relbias_index(mine, grid, grid, grid, grid, cls);
    int ok = !memcmp(live, mine, (size_t)T * T * sizeof(int)) &&
             posenc_relbias_entries(grid, grid, cls) == m.params.items[tensor_table_find(&m.params, "blocks.0.attn.rel_bias")].shape[1];
    free(mine);
    model_free(&m);
    return ok;
}

static int clampi(int v, int lim) { return v < -lim ? -lim : (v > lim ? lim : v); }

// Checks index (gh x gw grid, table g) against the clipped-offset formula decoded from the
// entry, the cls entries, and translation invariance. Returns the number of violations.
static long relbias_violations(const int *index, int gh, int gw, int g, int cls, long *collisions) {
    int T = cls + gh * gw, span = 2 * g - 1, K = posenc_relbias_entries(g, g, cls);
    int *seen = xmalloc((size_t)span * span * sizeof(int), "seen"); // offset cell -> index
    for (int i = 0; i < span * span; i++) seen[i] = -1;
    long bad = 0;
    *collisions = 0;
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            int e = index[i * T + j];
            if (i < cls || j < cls) {
                bad += e != (i < cls && j < cls ? K - 1 : (i < cls ? K - 3 : K - 2));
                continue;
            }
            int pi = i - cls, pj = j - cls;
            int dr = pi / gw - pj / gw, dc = pi % gw - pj % gw;
            // decode the entry back into an offset; it must be the clipped true offset
            bad += e < 0 || e >= span * span || e / span - (g - 1) != clampi(dr, g - 1) ||
                   e % span - (g - 1) != clampi(dc, g - 1);
            // translation invariance: every pair with this (clipped) offset shares one entry
            int cell = (clampi(dr, g - 1) + g - 1) * span + clampi(dc, g - 1) + g - 1;
            if (seen[cell] < 0) seen[cell] = e;
            else bad += seen[cell] != e;
        }
    for (int a = 0; a < span * span; a++) // distinct offsets never share an entry
        for (int b = a + 1; b < span * span; b++) *collisions += seen[a] >= 0 && seen[a] == seen[b];
    free(seen);
    return bad;
}

static void test_relbias(void) {
    int ok = 1;
    for (int g = 1; g <= 5; g++)
        for (int cls = 0; cls <= 1; cls++) {
            int T = g * g + cls;
            int *a = xmalloc((size_t)T * T * sizeof(int), "index"), *b = xmalloc((size_t)T * T * sizeof(int), "index");
            old_rel_index(a, g, cls);
            posenc_relbias_index(b, g, g, g, g, cls);
            ok &= !memcmp(a, b, (size_t)T * T * sizeof(int));
            free(a); free(b);
        }
    test_check("relbias index = vit.c's formula when gh = gw = table_g (g 1..5, with/without cls)", ok, "bitwise");
    test_check("relbias index = the index vit_create builds (grid 4 and 3, with/without cls)",
               vit_matches(4, 1) && vit_matches(4, 0) && vit_matches(3, 1), "index and table size");
    test_check("relbias entries (2g-1)^2 + 3 with cls", posenc_relbias_entries(4, 4, 1) == 52 &&
               posenc_relbias_entries(4, 4, 0) == 49 && posenc_relbias_entries(14, 14, 1) == 732, "g=4: %d", posenc_relbias_entries(4, 4, 1));

    // (gh, gw, table_g, cls): same size, non-square smaller (no clipping), larger (clipped).
    const int cases[][4] = {{5, 5, 5, 1}, {3, 4, 4, 1}, {2, 2, 4, 0}, {7, 9, 4, 1}, {6, 6, 3, 0}, {1, 5, 2, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int gh = cases[k][0], gw = cases[k][1], g = cases[k][2], cls = cases[k][3], T = cls + gh * gw;
        int *index = xmalloc((size_t)T * T * sizeof(int), "index");
        posenc_relbias_index(index, gh, gw, g, g, cls);
        long collisions, bad = relbias_violations(index, gh, gw, g, cls, &collisions);
        char name[160];
        snprintf(name, sizeof name,
                 "relbias %dx%d grid into a %dx%d table (cls=%d): translation invariant, offsets clipped to ±%d", gh, gw,
                 g, g, cls, g - 1);
        test_check(name, bad == 0 && collisions == 0, "%ld violations, %ld offset collisions", bad, collisions);
        free(index);
    }
    // Clipping spelled out: on a 1x7 grid with a table for 3x3, queries 2..6 columns right of
    // their key all use the edge entry of offset +2; offset +1 does not.
    int idx[49];
    posenc_relbias_index(idx, 1, 7, 3, 3, 0);
    int e2 = idx[2 * 7 + 0], e6 = idx[6 * 7 + 0], e4 = idx[4 * 7 + 0], e1 = idx[1 * 7 + 0];
    test_check("relbias clipping: offsets beyond table_g-1 share the edge entry",
               e2 == e6 && e4 == e6 && e1 != e2 && e2 == (0 + 2) * 5 + (2 + 2), "entries %d %d %d (+1: %d)", e2, e4, e6, e1);
}

// ================================================================ RoPE
typedef struct {
    int B, T, C, H, t0, gh, gw, dims;
    float *cos_t, *sin_t; // (N, Dh/2)
} rope_case;

static rope_case rope_make(int B, int gh, int gw, int cls, int C, int H, int dims) {
    rope_case r = {.B = B, .T = gh * gw + cls, .C = C, .H = H, .t0 = cls, .gh = gh, .gw = gw, .dims = dims};
    size_t n = (size_t)gh * gw * (C / H / 2);
    r.cos_t = xmalloc(n * sizeof(float), "rope cos");
    r.sin_t = xmalloc(n * sizeof(float), "rope sin");
    posenc_rope_tables(r.cos_t, r.sin_t, gh, gw, C / H, dims, posenc_rope_default_base(dims));
    return r;
}
static void rope_free(rope_case *r) { free(r->cos_t); free(r->sin_t); }
static size_t rope_n(const rope_case *r) { return (size_t)r->B * r->T * 3 * r->C; }

// docs/methods.md's angle for patch n, pair j, in double (independent of posenc_rope_tables).
static double rope_angle(const rope_case *r, int n, int j) {
    int Dh = r->C / r->H;
    if (r->dims == 1) return n * pow(10000.0, -2.0 * j / Dh);
    int P = Dh / 4, i = j % P, coord = j < P ? n % r->gw : n / r->gw;
    return coord * pow(100.0, -(double)i / P);
}

static void test_rope_tables(void) {
    double worst = 0;
    for (int dims = 1; dims <= 2; dims++) {
        rope_case r = rope_make(1, 7, 5, 1, 24, 2, dims); // Dh = 12: 6 pairs, P = 3
        int J = 6;
        for (int n = 0; n < 35; n++)
            for (int j = 0; j < J; j++) {
                double a = rope_angle(&r, n, j);
                worst = fmax(worst, fabs(r.cos_t[n * J + j] - cos(a)));
                worst = fmax(worst, fabs(r.sin_t[n * J + j] - sin(a)));
            }
        rope_free(&r);
    }
    test_check("rope tables: 1D n·base^(-2j/Dh); 2D column then row, base^(-i/P)", worst < 1e-6,
               "max |err| %.2e (tol 1e-6)", worst);
    test_check("rope validation and default bases",
               posenc_rope_error(8, 2) == NULL && posenc_rope_error(6, 2) && posenc_rope_error(6, 1) == NULL &&
                   posenc_rope_error(7, 1) && posenc_rope_error(8, 3) && posenc_rope_default_base(1) == 10000.0f &&
                   posenc_rope_default_base(2) == 100.0f,
               "%s", posenc_rope_error(6, 2) ? posenc_rope_error(6, 2) : "(accepted Dh=6 for 2D)");
}

// rope_forward against a double rotation by docs/methods.md's angles; cls rows and v bitwise kept;
// rope_backward undoes it; thread-count independence.
static void rope_op_case(int gh, int gw, int cls, int C, int H, int dims, unsigned tag) {
    rope_case r = rope_make(2, gh, gw, cls, C, H, dims);
    size_t n = rope_n(&r);
    int Dh = C / H, J = Dh / 2, T = r.T;
    float *x0 = test_rnd(n, -1, 1, tag), *x = copy_of(x0, n);
    ops->rope_forward(x, r.cos_t, r.sin_t, r.B, T, C, H, cls);
    double worst = 0;
    size_t touched_bad = 0;
    for (int b = 0; b < r.B; b++)
        for (int t = 0; t < T; t++) {
            const float *in = x0 + ((size_t)b * T + t) * 3 * C, *out = x + ((size_t)b * T + t) * 3 * C;
            if (t < cls) { touched_bad += memcmp(in, out, 3 * (size_t)C * sizeof(float)) != 0; continue; }
            touched_bad += memcmp(in + 2 * C, out + 2 * C, (size_t)C * sizeof(float)) != 0; // v
            for (int part = 0; part < 2; part++)
                for (int h = 0; h < H; h++)
                    for (int j = 0; j < J; j++) {
                        int c0 = part * C + h * Dh + 2 * j;
                        double a = rope_angle(&r, t - cls, j), p = in[c0], q = in[c0 + 1];
                        worst = fmax(worst, fabs(out[c0] - (p * cos(a) - q * sin(a))));
                        worst = fmax(worst, fabs(out[c0 + 1] - (p * sin(a) + q * cos(a))));
                    }
        }
    char name[200];
    snprintf(name, sizeof name, "rope_forward %dD rotates q,k pairs by the angle (T=%d C=%d H=%d t0=%d); v, cls untouched",
             dims, T, C, H, cls);
    test_check(name, worst < 1e-5 && touched_bad == 0, "max |err| %.2e (tol 1e-5), %zu untouched rows changed", worst,
               touched_bad);

    float *back = copy_of(x, n);
    ops->rope_backward(back, r.cos_t, r.sin_t, r.B, T, C, H, cls);
    double inv = 0;
    for (size_t i = 0; i < n; i++) inv = fmax(inv, fabs(back[i] - x0[i]));
    size_t kept = 0; // rope_backward too leaves cls rows and v bitwise alone
    for (int b = 0; b < r.B; b++)
        for (int t = 0; t < T; t++) {
            const float *in = x + ((size_t)b * T + t) * 3 * C, *out = back + ((size_t)b * T + t) * 3 * C;
            kept += t < cls ? memcmp(in, out, 3 * (size_t)C * sizeof(float)) != 0
                            : memcmp(in + 2 * C, out + 2 * C, (size_t)C * sizeof(float)) != 0;
        }
    snprintf(name, sizeof name, "rope_backward inverts rope_forward %dD (T=%d); v, cls untouched", dims, T);
    test_check(name, inv < 1e-6 && kept == 0, "max |x - B(F(x))| %.2e (tol 1e-6), %zu untouched rows changed", inv, kept);

    omp_set_num_threads(1);
    float *one = copy_of(x0, n);
    ops->rope_forward(one, r.cos_t, r.sin_t, r.B, T, C, H, cls);
    omp_set_num_threads(2);
    snprintf(name, sizeof name, "rope_forward bitwise equal for 1 and 2 threads (%dD T=%d)", dims, T);
    test_check(name, memcmp(one, x, n * sizeof(float)) == 0, "%zu floats compared", n);
    free(x0); free(x); free(back); free(one);
    rope_free(&r);
}

// The point of RoPE: with one q vector a and one k vector b at every token, the rotated
// q_m · k_n depends only on the offset (1D: m - n; 2D: (Δrow, Δcol)), and equals
// Σ_j cos φ_j (a0 b0 + a1 b1) + sin φ_j (a1 b0 - a0 b1), φ_j = angle(n, j) - angle(m, j).
static void rope_relative_case(int gh, int gw, int cls, int dims, unsigned tag) {
    const int H = 2, Dh = 8, C = H * Dh, J = Dh / 2;
    rope_case r = rope_make(1, gh, gw, cls, C, H, dims);
    int T = r.T, N = gh * gw;
    float *qkv = test_rnd(rope_n(&r), -1, 1, tag), *a = test_rnd(C, -1, 1, tag + 1), *b = test_rnd(C, -1, 1, tag + 2);
    for (int t = 0; t < T; t++) {
        memcpy(qkv + (size_t)t * 3 * C, a, C * sizeof(float));
        memcpy(qkv + (size_t)t * 3 * C + C, b, C * sizeof(float));
    }
    ops->rope_forward(qkv, r.cos_t, r.sin_t, 1, T, C, H, cls);
    // first dot product seen per offset (2D offsets index a (2gh-1) x (2gw-1) grid, 1D a 2N-1 line)
    int cells = dims == 1 ? 2 * N - 1 : (2 * gh - 1) * (2 * gw - 1);
    double *first = xmalloc((size_t)H * cells * sizeof(double), "first"), worst_same = 0, worst_formula = 0;
    for (int i = 0; i < H * cells; i++) first[i] = NAN;
    double dot_same_1d_diff_2d[2] = {0, 0}; // 2D: pairs (m=1,n=0) and (m=gw,n=gw-1), both 1D offset 1
    double spread = 0;                      // how far dot products move away from offset 0's
    int zero_cell = dims == 1 ? N - 1 : (gh - 1) * (2 * gw - 1) + gw - 1; // (m, n) = (0, 0) comes first
    for (int h = 0; h < H; h++)
        for (int m = 0; m < N; m++)
            for (int n = 0; n < N; n++) {
                const float *q = qkv + (size_t)(cls + m) * 3 * C + h * Dh, *k = qkv + (size_t)(cls + n) * 3 * C + C + h * Dh;
                double dot = 0, ref = 0;
                for (int c = 0; c < Dh; c++) dot += (double)q[c] * k[c];
                for (int j = 0; j < J; j++) {
                    double phi = rope_angle(&r, n, j) - rope_angle(&r, m, j);
                    const float *aa = a + h * Dh + 2 * j, *bb = b + h * Dh + 2 * j;
                    ref += cos(phi) * (aa[0] * bb[0] + aa[1] * bb[1]) + sin(phi) * (aa[1] * bb[0] - aa[0] * bb[1]);
                }
                worst_formula = fmax(worst_formula, fabs(dot - ref));
                int cell = dims == 1 ? m - n + N - 1
                                     : (m / gw - n / gw + gh - 1) * (2 * gw - 1) + (m % gw - n % gw + gw - 1);
                double *f = &first[h * cells + cell];
                if (isnan(*f)) *f = dot;
                else worst_same = fmax(worst_same, fabs(dot - *f));
                if (h == 0 && m == 1 && n == 0) dot_same_1d_diff_2d[0] = dot;
                if (h == 0 && m == gw && n == gw - 1) dot_same_1d_diff_2d[1] = dot;
                spread = fmax(spread, fabs(dot - first[h * cells + zero_cell]));
            }
    char name[200];
    snprintf(name, sizeof name, "rope %dD: q_m·k_n depends only on the %s offset (T=%d, grid %dx%d)", dims,
             dims == 1 ? "1D" : "2D", T, gh, gw);
    // non-vacuous: the dot products do change with the offset (a no-op rotation would pass
    // the equality alone), and in 2D a 1D-offset of 1 across a row break differs from one within a row
    int moves = spread > 1e-2 && (dims == 1 || fabs(dot_same_1d_diff_2d[0] - dot_same_1d_diff_2d[1]) > 1e-3);
    test_check(name, worst_same < 1e-5 && worst_formula < 1e-5 && moves,
               "max diff within an offset %.2e, vs formula %.2e (tol 1e-5); spread over offsets %.3f", worst_same,
               worst_formula, spread);
    free(first); free(qkv); free(a); free(b);
    rope_free(&r);
}

typedef struct { float *x, *work, *w; rope_case *r; } rope_ctx;
static double rope_loss(void *p) {
    rope_ctx *c = p;
    size_t n = rope_n(c->r);
    memcpy(c->work, c->x, n * sizeof(float));
    ops->rope_forward(c->work, c->r->cos_t, c->r->sin_t, c->r->B, c->r->T, c->r->C, c->r->H, c->r->t0);
    return gradcheck_dot(c->work, c->w, n);
}

static void rope_adjoint_case(int gh, int gw, int cls, int dims, unsigned tag) {
    rope_case r = rope_make(2, gh, gw, cls, 24, 3, dims); // Dh = 8
    size_t n = rope_n(&r);
    float *a = test_rnd(n, -1, 1, tag), *b = test_rnd(n, -1, 1, tag + 1), *fa = copy_of(a, n), *bb = copy_of(b, n);
    ops->rope_forward(fa, r.cos_t, r.sin_t, r.B, r.T, r.C, r.H, r.t0);
    ops->rope_backward(bb, r.cos_t, r.sin_t, r.B, r.T, r.C, r.H, r.t0);
    double lhs = gradcheck_dot(fa, b, n), rhs = gradcheck_dot(a, bb, n);
    char name[160];
    snprintf(name, sizeof name, "rope %dD: <forward(a), b> = <a, backward(b)> (T=%d)", dims, r.T);
    // both sides sum ~n float products of rounding ~1e-7: 1e-5 relative to Σ|a||b|
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale += fabs((double)a[i] * b[i]);
    test_check(name, fabs(lhs - rhs) <= 1e-5 * scale, "%.9g vs %.9g (tol %.2e)", lhs, rhs, 1e-5 * scale);

    // Finite differences on every entry (the op is linear, so central differences are exact
    // up to float rounding): gradient = rope_backward(w).
    rope_ctx c = {.x = a, .work = test_zeros(n), .w = b, .r = &r};
    gradcheck_tol tol = GRADCHECK_DEFAULT;
    tol.max_checks = n;
    snprintf(name, sizeof name, "rope_backward %dD (T=%d, all %zu entries)", dims, r.T, n);
    gradcheck(name, &c, rope_loss, a, bb, n, tol);
    free(a); free(b); free(fa); free(bb); free(c.work);
    rope_free(&r);
}

static void test_rope(void) {
    test_rope_tables();
    rope_op_case(4, 4, 1, 24, 3, 1, 100); // T = 17
    rope_op_case(7, 7, 1, 24, 3, 2, 110); // T = 50
    rope_op_case(7, 7, 1, 24, 3, 1, 120);
    rope_op_case(4, 4, 1, 32, 2, 2, 130);
    rope_op_case(3, 5, 0, 16, 2, 2, 140); // no cls, non-square grid
    rope_relative_case(4, 4, 1, 1, 200);  // T = 17
    rope_relative_case(7, 7, 1, 1, 210);  // T = 50
    rope_relative_case(4, 4, 1, 2, 220);
    rope_relative_case(7, 7, 1, 2, 230);
    rope_relative_case(3, 5, 0, 2, 240);
    rope_adjoint_case(4, 4, 1, 1, 300);
    rope_adjoint_case(7, 7, 1, 2, 310);
}

int main(void) {
    omp_set_num_threads(2);
    test_grid_positions();
    test_sin1d();
    test_sin2d();
    test_cape_basics();
    test_cape_draw_order();
    test_cape_statistics();
    test_relbias();
    test_rope();
    return test_exit_code();
}
