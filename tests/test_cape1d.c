// tests/test_cape1d.c — CAPE in 1D (speech: positions in seconds; models/posenc/cape1d.c,
// tables.h posenc_cape_time_positions, the op sincos1d_add of core/cpu/posenc_cpu.c).
// Checked against independent double evaluations of the paper's formulas (CAPE §3 "Positional
// encoding for sound": E_2k(t) = cos ω_k t, E_2k+1(t) = sin ω_k t, ω_k = 30·10000^(-2k/K);
// training: mean-normalise, global shift, local shift, global scale; inference: mean-normalise):
//   sincos1d_add vs double formula        1e-5 absolute, |t| <= 70 s (phases up to 2100 rad)
//   evaluation positions                   1e-7 s absolute (double rounded to float once)
//   draws: bounds exact (float), order bitwise, statistics on 20000 sequences (KS below the
//   α = 0.001 critical value 1.95/√n)
//   the model: a training forward with no augmentation equals the evaluation forward bitwise;
//   gradient checks of sequence models with cape are in test_vit (sequence[cls,cape,...]).
#include "testing.h"
#include "model_testing.h"
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
#define STRIDE 0.01f // seconds per MFCC frame (datasets/speech/mfcc.h: MFCC_HOP / MFCC_SAMPLE_RATE)

static double cape1d_ref(double t, int C, int ch) {
    int k = ch / 2;
    double w = 30.0 * pow(10000.0, -2.0 * k / C);
    return ch % 2 == 0 ? cos(w * t) : sin(w * t);
}

// ================================================================ the op
static void op_case(int B, int T, int C, int t0, unsigned tag) {
    int N = T - t0;
    size_t n = (size_t)B * T * C;
    float *pt = test_rnd((size_t)B * N, -70, 70, tag);
    float *emb = test_zeros(n);
    ops->sincos1d_add(emb, pt, B, T, C, t0, CAPE_TIME_FREQ_SCALE);
    double worst = 0;
    int cls_zero = 1;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) {
                float v = emb[((size_t)b * T + t) * C + c];
                if (t < t0) { cls_zero &= v == 0.0f; continue; }
                worst = fmax(worst, fabs(v - cape1d_ref(pt[b * N + t - t0], C, c)));
            }
    char name[160];
    snprintf(name, sizeof name, "sincos1d_add equals cos/sin(30·1e4^(-2k/C)·t) in double (B=%d T=%d C=%d t0=%d, |t|<=70 s)",
             B, T, C, t0);
    test_check(name, worst <= 1e-5 && cls_zero, "max |err| %.2e (tol 1e-5), cls rows untouched %d", worst, cls_zero);

    float *x = test_rnd(n, -1, 1, tag + 1), *x0 = xmalloc(n * sizeof(float), "x0");
    memcpy(x0, x, n * sizeof(float));
    ops->sincos1d_add(x, pt, B, T, C, t0, CAPE_TIME_FREQ_SCALE);
    size_t bad = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) {
                size_t i = ((size_t)b * T + t) * C + c;
                float expect = t < t0 ? x0[i] : x0[i] + emb[i];
                bad += memcmp(&x[i], &expect, sizeof(float)) != 0;
            }
    snprintf(name, sizeof name, "sincos1d_add adds to x, cls rows bitwise untouched (T=%d t0=%d)", T, t0);
    test_check(name, bad == 0, "%zu of %zu elements differ from x + embedding", bad, n);

    omp_set_num_threads(1);
    float *one = test_zeros(n);
    ops->sincos1d_add(one, pt, B, T, C, t0, CAPE_TIME_FREQ_SCALE);
    omp_set_num_threads(2);
    snprintf(name, sizeof name, "sincos1d_add bitwise equal for 1 and 2 threads (T=%d)", T);
    test_check(name, memcmp(one, emb, n * sizeof(float)) == 0, "%zu floats compared", n);
    free(pt); free(emb); free(x); free(x0); free(one);
}

static void test_op(void) {
    op_case(2, 101, 32, 1, 10); // the paper's speech model: 100 frames + cls, d = 32
    op_case(3, 17, 6, 0, 20);   // no cls, tiny width
    op_case(2, 401, 64, 1, 30); // a 4-second clip
    float x[8] = {0}, zero = 0.0f;
    ops->sincos1d_add(x, &zero, 1, 1, 8, 0, CAPE_TIME_FREQ_SCALE);
    int ok = x[0] == 1.0f && x[1] == 0.0f && x[6] == 1.0f && x[7] == 0.0f;
    test_check("sincos1d layout: channel 2k cos, 2k+1 sin (t = 0 -> 1 0 1 0 ...)", ok, "%g %g %g %g %g %g %g %g", x[0],
               x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
}

// ================================================================ evaluation positions
// Mean-normalised seconds, and the encoding they give equals a sin1d-like table at CAPE's
// frequencies: frame n -> cos/sin(30·1e4^(-2k/d)·(n - (N-1)/2)·stride).
static void test_eval_positions(void) {
    const int lengths[] = {100, 101, 200, 400, 1};
    double worst = 0;
    for (int li = 0; li < 5; li++) {
        int N = lengths[li];
        float *t = xmalloc((size_t)N * sizeof(float), "t");
        posenc_time_positions(t, N, STRIDE);
        double sum = 0;
        for (int n = 0; n < N; n++) {
            worst = fmax(worst, fabs(t[n] - (n - (N - 1) / 2.0) * 0.01));
            sum += t[n];
        }
        worst = fmax(worst, fabs(sum / N));
        free(t);
    }
    test_check("cape1d evaluation positions: t_n = (n - (N-1)/2)·10 ms, mean 0 (N 100, 101, 200, 400, 1)", worst < 1.2e-7,
               "max |err| %.2e s (tol 1.2e-7: half a float ulp at |t| <= 2 s)", worst);

    const int B = 2, N = 100, C = 32, T = N + 1;
    float pt[2 * 100];
    posenc_time_eval_positions(pt, B, N, STRIDE);
    int same = !memcmp(pt, pt + N, N * sizeof(float));
    float *emb = test_zeros((size_t)B * T * C);
    ops->sincos1d_add(emb, pt, B, T, C, 1, CAPE_TIME_FREQ_SCALE);
    double worst_emb = 0;
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) {
                double w = 0.3 * pow(10000.0, -2.0 * (c / 2) / C), p = w * (n - 49.5);
                double ref = c % 2 == 0 ? cos(p) : sin(p);
                worst_emb = fmax(worst_emb, fabs(emb[((size_t)b * T + 1 + n) * C + c] - ref));
            }
    test_check("cape1d at evaluation = sin1d at frequencies 0.3·1e4^(-2k/d) per frame, centred (every sequence alike)",
               same && worst_emb < 1e-5, "sequences alike %d, max |err| %.2e (tol 1e-5)", same, worst_emb);
    free(emb);
}

// ================================================================ training draws
static void test_draws(void) {
    const int N = 100;
    cape_config off = {0.0f, 0.0f, 1.0f};
    float a[5 * 100], b[5 * 100], ev[5 * 100];
    posenc_time_eval_positions(ev, 5, N, STRIDE);
    posenc_cape_time_positions(a, 5, N, STRIDE, &off, 3, 1, 2);
    test_check("cape1d with no augmentation (0, 0, 1) = the evaluation positions exactly", !memcmp(a, ev, sizeof a),
               "bitwise, 5 sequences");
    test_check("cape1d default local shift: half a frame", cape_time_default_local_shift(STRIDE) == 0.005f, "%g",
               cape_time_default_local_shift(STRIDE));

    cape_config c = {60.0f, 0.005f, 1.4f};
    posenc_cape_time_positions(a, 5, N, STRIDE, &c, 7, 1, 2);
    posenc_cape_time_positions(b, 5, N, STRIDE, &c, 7, 1, 2);
    test_check("cape1d draws deterministic for the same (seed, epoch, step)", !memcmp(a, b, sizeof a), "bitwise");
    float small[2 * 100];
    posenc_cape_time_positions(small, 2, N, STRIDE, &c, 7, 1, 2);
    test_check("cape1d sequence b's positions do not depend on the batch size", !memcmp(small, a, sizeof small),
               "B=2 vs the first 2 of B=5");
    int diff = 1;
    posenc_cape_time_positions(b, 5, N, STRIDE, &c, 7, 1, 3);
    diff &= memcmp(a, b, sizeof a) != 0;
    posenc_cape_time_positions(b, 5, N, STRIDE, &c, 7, 2, 2);
    diff &= memcmp(a, b, sizeof a) != 0;
    posenc_cape_time_positions(b, 5, N, STRIDE, &c, 8, 1, 2);
    diff &= memcmp(a, b, sizeof a) != 0;
    diff &= memcmp(a, a + N, N * sizeof(float)) != 0;
    test_check("cape1d draws differ across steps, epochs, seeds and sequences", diff, "%d", diff);

    // Draw order: Δ, ε_0..ε_{N-1}, log λ from (seed, RNG_POSENC, epoch, step, b); t' = λ((t + Δ) + ε).
    size_t bad = 0;
    for (int s = 0; s < 5; s++) {
        rng_stream st = rng_stream_make(7, RNG_POSENC, 1, 2, (uint32_t)s);
        float d = c.global_shift * (2.0f * rng_uniform(&st) - 1.0f), e[100];
        for (int n = 0; n < N; n++) e[n] = c.local_shift * (2.0f * rng_uniform(&st) - 1.0f);
        float lam = (float)exp((double)((float)log((double)c.scale) * (2.0f * rng_uniform(&st) - 1.0f)));
        for (int n = 0; n < N; n++) bad += lam * ((ev[n] + d) + e[n]) != a[s * N + n];
    }
    test_check("cape1d draw order: Δ, ε per frame, log λ from stream (seed, RNG_POSENC, epoch, step, b)", bad == 0,
               "%zu of %d positions differ from the documented sequence (bitwise)", bad, 5 * N);
}

// Bounds and distributions on 20000 sequences of 4 frames: with ε = 0, λ = (t'_3 - t'_0)/(3·stride)
// and Δ = t'_0/λ - t_0; with everything on, ε recovered from the same u's stays within εmax and
// the half-frame default keeps the frames in order.
#define SEQS 20000

static void test_draw_statistics(void) {
    const int N = 4;
    const float dmax = 60.0f, emax = 0.005f, lmax = 1.4f;
    size_t BN = (size_t)SEQS * N;
    float *g = xmalloc(BN * sizeof(float), "g"), *h = xmalloc(BN * sizeof(float), "h"), t[4];
    double *delta = xmalloc(SEQS * sizeof(double), "d"), *loglam = xmalloc(SEQS * sizeof(double), "l");
    double *lam = xmalloc(SEQS * sizeof(double), "lam"), *eps = xmalloc(BN * sizeof(double), "e");
    posenc_time_positions(t, N, STRIDE);
    cape_config A = {dmax, 0.0f, lmax}, Bc = {dmax, emax, lmax};
    posenc_cape_time_positions(g, SEQS, N, STRIDE, &A, 11, 3, 5);
    posenc_cape_time_positions(h, SEQS, N, STRIDE, &Bc, 11, 3, 5);
    double lam_lo = 1e9, lam_hi = 0, dmax_seen = 0, emax_seen = 0;
    long out_of_order = 0;
    for (int s = 0; s < SEQS; s++) {
        const float *x = g + (size_t)s * N, *y = h + (size_t)s * N;
        double l = ((double)x[3] - x[0]) / (3 * 0.01);
        lam[s] = l, loglam[s] = log(l), delta[s] = x[0] / l - t[0];
        lam_lo = fmin(lam_lo, l), lam_hi = fmax(lam_hi, l);
        for (int n = 0; n < N; n++) {
            eps[(size_t)s * N + n] = y[n] / l - t[n] - delta[s];
            emax_seen = fmax(emax_seen, fabs(eps[(size_t)s * N + n]));
            if (n > 0) out_of_order += !(y[n] > y[n - 1]);
        }
    }
    // ε is recovered through Δ ≈ 60 s in float (ulp ≈ 4e-6 s): bounds within 2e-5 s.
    test_check("cape1d: λ within [1/λmax, λmax], both ends reached",
               lam_lo >= 1 / lmax - 1e-3 && lam_hi <= lmax + 1e-3 && lam_lo < 1 / lmax + 0.01 && lam_hi > lmax - 0.01,
               "λ in [%.5f, %.5f], λmax %g (tol 1e-3: λ recovered from positions near 60 s)", lam_lo, lam_hi, lmax);
    // Δ exactly (to float rounding at 60 s) from a run without local shift and scale: the same u's.
    cape_config S = {dmax, 0.0f, 1.0f};
    posenc_cape_time_positions(g, SEQS, N, STRIDE, &S, 11, 3, 5);
    double worst_same = 0;
    for (int s = 0; s < SEQS; s++) {
        double d = (double)g[(size_t)s * N] - t[0];
        worst_same = fmax(worst_same, fabs(d - delta[s]));
        delta[s] = d;
        dmax_seen = fmax(dmax_seen, fabs(d));
    }
    test_check("cape1d: |Δ| <= Δmax = 60 s, range used, one Δ per sequence whatever the scale",
               dmax_seen <= dmax + 1e-5 && dmax_seen > 0.99 * dmax && worst_same < 0.02, "max |Δ| %.6f s (tol 1e-5 s: float at 60 s); "
               "Δ recovered through λ agrees within %.2e s (tol 0.02)", dmax_seen, worst_same);
    test_check("cape1d: |ε| <= εmax = half a frame, frames stay in order", emax_seen <= emax + 2e-5 && out_of_order == 0,
               "max |ε| %.6f s (εmax %g), %ld frames out of order", emax_seen, emax, out_of_order);
    double crit = 1.95 / sqrt((double)SEQS);
    double Dd = test_ks_uniform(delta, SEQS, -dmax, dmax), Dl = test_ks_uniform(loglam, SEQS, -log(lmax), log(lmax));
    test_check("cape1d: Δ ~ U(-Δmax, Δmax), log λ ~ U(-log λmax, log λmax) (KS)", Dd < crit && Dl < crit,
               "KS Δ %.4f, log λ %.4f (crit %.4f)", Dd, Dl, crit);
    // ε alone (no Δ, λ = 1): exact in float, KS against U(-εmax, εmax).
    cape_config E = {0.0f, emax, 1.0f};
    posenc_cape_time_positions(h, SEQS, N, STRIDE, &E, 11, 3, 5);
    for (size_t i = 0; i < BN; i++) eps[i] = (double)h[i] - t[i % N];
    double De = test_ks_uniform(eps, BN, -emax, emax);
    test_check("cape1d: ε ~ U(-εmax, εmax) (KS)", De < 1.95 / sqrt((double)BN), "KS %.4f (crit %.4f)", De,
               1.95 / sqrt((double)BN));
    free(g); free(h); free(delta); free(loglam); free(lam); free(eps);
}

// ================================================================ the model
static model_config seq_config(void) {
    model_config c = {.channels = 1, .image_size = 20, .features = 3, .patch = 1, .dim = 16, .depth = 2, .heads = 2,
                      .mlp_ratio = 2, .cls = 1, .num_classes = 4, .max_image_size = 40, .frame_seconds = 0.01f};
    test_model_set_pe(&c, "cape", "pe.cape_time_shift=60", "pe.cape_local_shift=-1", "pe.cape_scale=1.4", NULL);
    return c;
}

static void forward_logits(model *m, int B, int training, uint32_t step, float *out) {
    rng_addr r = {.seed = 5, .epoch = 1, .step = step};
    const float *logits = model_forward(m, B, training, r);
    m->ops->download(out, logits, (size_t)B * m->cfg.num_classes * sizeof(float));
}

static void test_model(void) {
    model_config c = seq_config();
    const char *why = model_config_error(&c);
    test_check("sequence: pe.kind=cape accepted (1D, positions in seconds)", why == NULL, "%s", why ? why : "");
    model_config nostride = c;
    nostride.frame_seconds = 0;
    why = model_config_error(&nostride);
    test_check("sequence: cape needs the frame stride", why && strstr(why, "frame_seconds"), "%s", why ? why : "(accepted)");
    model_config badshift = c;
    test_model_set_pe(&badshift, "cape", "pe.cape_time_shift=-1", NULL);
    why = model_config_error(&badshift);
    test_check("sequence: a negative pe.cape_time_shift refused", why && strstr(why, "pe.cape_time_shift"), "%s",
               why ? why : "(accepted)");

    const int B = 3;
    model m, plain;
    model_create(&m, &c, ops, B, 11);
    test_model_perturb(&m, 0.1f, 40);
    int32_t labels[3];
    test_model_fill_batch(&m, labels, B, 41);
    float eval1[12], eval2[12], train1[12], train2[12], train3[12];
    forward_logits(&m, B, 0, 2, eval1);
    forward_logits(&m, B, 1, 2, train1);
    forward_logits(&m, B, 1, 2, train2);
    forward_logits(&m, B, 1, 3, train3);
    forward_logits(&m, B, 0, 2, eval2);
    test_check("cape1d model: training draws deterministic per step, differ across steps and from evaluation",
               !memcmp(train1, train2, sizeof train1) && memcmp(train1, train3, sizeof train1) &&
                   memcmp(train1, eval1, sizeof train1),
               "logits[0]: eval %g, step 2 %g, step 3 %g", eval1[0], train1[0], train3[0]);
    test_check("cape1d model: evaluation restores the plain positions after a training draw",
               !memcmp(eval1, eval2, sizeof eval1), "logits[0] %g vs %g", eval1[0], eval2[0]);

    // No augmentation: training (dropout 0, drop path 0) is the evaluation forward, bitwise.
    model_config off = c;
    test_model_set_pe(&off, "cape", "pe.cape_time_shift=0", "pe.cape_local_shift=0", "pe.cape_scale=1", NULL);
    model_create(&plain, &off, ops, B, 11);
    test_model_perturb(&plain, 0.1f, 40);
    test_model_fill_batch(&plain, labels, B, 41);
    forward_logits(&plain, B, 1, 2, train1);
    forward_logits(&plain, B, 0, 2, eval2);
    test_check("cape1d model with no augmentation: training forward = evaluation forward (bitwise) = cape's evaluation",
               !memcmp(train1, eval2, sizeof train1) && !memcmp(eval2, eval1, sizeof eval1), "logits[0] %g %g %g",
               train1[0], eval2[0], eval1[0]);

    // Another length (a 4x longer clip at the same stride): positions centred again, finite logits.
    model_set_resolution(&m, 40);
    test_model_fill_batch(&m, labels, B, 42);
    float longer[12];
    forward_logits(&m, B, 0, 2, longer);
    int finite = 1;
    for (int i = 0; i < 12; i++) finite &= isfinite(longer[i]);
    test_check("cape1d model runs on 40 frames after training size 20", finite && m.N == 40, "N %d finite %d", m.N, finite);
    model_free(&m);
    model_free(&plain);
}

int main(void) {
    omp_set_num_threads(2);
    test_op();
    test_eval_positions();
    test_draws();
    test_draw_statistics();
    test_model();
    return test_exit_code();
}
