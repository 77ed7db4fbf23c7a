// tests/test_mp3.c — MP3 (objectives/mp3.c and the model's masked attention):
//   * context sampling: M = round((1-eta)·N) patches plus cls first, ascending, no repeats,
//     in range; the same set for an image whatever the batch split or thread count; each
//     patch chosen with frequency (1-eta) over many draws;
//   * masked attention reads keys/values from the context only, with the same set in every
//     layer: changing a non-context patch changes no other token's output, changing a context
//     patch changes the others; an explicit context of all tokens but one ignores that one;
//   * the position loss ignores cls rows (value and gradient) and equals the mean cross
//     entropy over patch tokens;
//   * accuracy counting with blank patches; reassembly from perfect predictions returns the
//     image; collisions average; the context view.
// (Gradient checks of the masked model and the position head, and the PyTorch oracle of the
// masked model, are in test_vit.)
#include "testing.h"
#include "model_testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../models/model.h"
#include "../objectives/mp3/mp3.h"
#include "../objectives/objective.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_context_sampling(void) {
    const int B = 64, N = 49, t0 = 1;
    const double etas[] = {0.0, 0.25, 0.5, 0.75, 0.9};
    for (int e = 0; e < 5; e++) {
        int Mp = mp3_context_patches(N, etas[e]), M = t0 + Mp;
        int want = (int)lround((1.0 - etas[e]) * N);
        int *ctx = xmalloc((size_t)B * M * sizeof(int), "ctx");
        mp3_sample_context(ctx, B, N, t0, Mp, 3, 1, 2, 0);
        int bad = 0;
        for (int b = 0; b < B && !bad; b++) {
            const int *c = ctx + (size_t)b * M;
            if (c[0] != 0) bad = 1;
            for (int m = 1; m < M; m++)
                if (c[m] < 1 || c[m] > N || (m > 1 && c[m] <= c[m - 1])) bad = 2;
        }
        test_check("mp3 context: size, cls first, ascending unique patch tokens", Mp == want && !bad,
                   "eta %.2f: %d context patches (want %d), problem %d", etas[e], Mp, want, bad);
        free(ctx);
    }
    // Batch split and thread count do not change image i's context.
    int Mp = mp3_context_patches(N, 0.5), M = t0 + Mp;
    int *whole = xmalloc((size_t)B * M * sizeof(int), "whole"), *split = xmalloc((size_t)B * M * sizeof(int), "split");
    omp_set_num_threads(2);
    mp3_sample_context(whole, B, N, t0, Mp, 7, 3, 4, 100);
    omp_set_num_threads(1);
    mp3_sample_context(split, 20, N, t0, Mp, 7, 3, 4, 100);
    mp3_sample_context(split + (size_t)20 * M, B - 20, N, t0, Mp, 7, 3, 4, 120);
    omp_set_num_threads(2);
    test_check("mp3 context: independent of batch split and threads", !memcmp(whole, split, (size_t)B * M * sizeof(int)),
               "64 images as one batch on 2 threads vs 20 + 44 on 1 thread");
    free(whole);
    free(split);
    // Frequencies: each patch is in the context with probability Mp/N.
    const int draws = 4000;
    int Mq = mp3_context_patches(N, 0.75), Mt = Mq; // no cls here
    int *ctx = xmalloc((size_t)draws * Mt * sizeof(int), "ctx");
    mp3_sample_context(ctx, draws, N, 0, Mq, 11, 0, 0, 0);
    long count[49] = {0};
    for (long i = 0; i < (long)draws * Mt; i++) count[ctx[i]]++;
    double p = (double)Mq / N, sd = sqrt(draws * p * (1 - p)), worst = 0;
    for (int n = 0; n < N; n++) worst = fmax(worst, fabs(count[n] - draws * p) / sd);
    test_check("mp3 context: every patch equally likely", worst < 4.5,
               "eta 0.75, %d draws: worst patch %.2f standard deviations from %.0f", draws, worst, draws * p);
    free(ctx);
}

// Builds a small MP3 model (cls, no PE, position head) with random inputs.
static void make_model(model *m, int context_tokens, int B) {
    model_config cfg = {.channels = 1, .image_size = 12, .patch = 3, .dim = 16, .depth = 3, .heads = 2, .mlp_ratio = 2,
                      .cls = 1, .pe_kind = "none", .num_classes = 10, .request.token_head = 1, .request.head_name = "pos_head", .request.context_tokens = context_tokens};
    model_create(m, &cfg, &ops_cpu, B, 5);
    test_model_perturb(m, 0.2f, 8);
    test_fill_uniform(model_images(m), (size_t)B * 144, -1.0f, 1.0f, 9);
}

static double max_diff(const float *a, const float *b, size_t n) {
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i]));
    return d;
}

static void test_masked_attention(void) {
    const int B = 2, N = 16, T = 17, Mp = 6, M = 1 + Mp;
    model m;
    make_model(&m, M, B);
    int *ctx = model_context(&m);
    mp3_sample_context(ctx, B, N, 1, Mp, 1, 0, 0, 0);
    model_set_context(&m, M);
    size_t nl = (size_t)B * T * N;
    float *base = xmalloc(nl * sizeof(float), "base"), *out = xmalloc(nl * sizeof(float), "out");
    memcpy(base, model_forward(&m, B, 0, (rng_addr){0}), nl * sizeof(float));
    // A non-context patch of image 0 and a context patch of image 0.
    int in_ctx[17] = {0};
    for (int k = 1; k < M; k++) in_ctx[ctx[k]] = 1;
    int outside = 1, inside = ctx[1];
    while (in_ctx[outside]) outside++;
    float *img = model_images(&m);
    float saved[144];
    memcpy(saved, img, sizeof saved);
    int pn = outside - 1; // patch index of token `outside`
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) img[((pn / 4) * 3 + y) * 12 + (pn % 4) * 3 + x] += 0.7f;
    memcpy(out, model_forward(&m, B, 0, (rng_addr){0}), nl * sizeof(float));
    double others = 0, own = 0;
    for (int t = 0; t < T; t++) {
        double d = max_diff(base + (size_t)t * N, out + (size_t)t * N, N);
        if (t == outside) own = d;
        else others = fmax(others, d);
    }
    others = fmax(others, max_diff(base + (size_t)T * N, out + (size_t)T * N, (size_t)T * N)); // image 1
    test_check("mp3 masked attention: a non-context patch changes only its own output (every layer)",
               others == 0.0 && own > 1e-4, "token %d changed: own logits moved %.3g, every other token %.3g",
               outside, own, others);
    memcpy(img, saved, sizeof saved);
    pn = inside - 1;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) img[((pn / 4) * 3 + y) * 12 + (pn % 4) * 3 + x] += 0.7f;
    memcpy(out, model_forward(&m, B, 0, (rng_addr){0}), nl * sizeof(float));
    double moved = max_diff(base + (size_t)outside * N, out + (size_t)outside * N, N);
    test_check("mp3 masked attention: a context patch changes the other tokens", moved > 1e-4,
               "context token %d changed: non-context token %d's logits moved %.3g", inside, outside, moved);
    memcpy(img, saved, sizeof saved);

    // A context of every token but the last patch (an explicit index list, masked path):
    // changing the excluded patch changes no other token's output.
    model masked_all;
    make_model(&masked_all, T - 1, B);
    memcpy(masked_all.param, m.param, m.params.total * sizeof(float));
    memcpy(model_images(&masked_all), img, (size_t)B * 144 * sizeof(float));
    int *all = model_context(&masked_all);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T - 1; t++) all[b * (T - 1) + t] = t; // every token but the last patch
    model_set_context(&masked_all, T - 1);
    memcpy(out, model_forward(&masked_all, B, 0, (rng_addr){0}), nl * sizeof(float));
    float *img2 = model_images(&masked_all);
    for (int b = 0; b < B; b++) img2[b * 144 + 143] += 1.0f; // inside the last patch
    float *out2 = xmalloc(nl * sizeof(float), "out2");
    memcpy(out2, model_forward(&masked_all, B, 0, (rng_addr){0}), nl * sizeof(float));
    double leak = 0;
    for (int b = 0; b < B; b++) leak = fmax(leak, max_diff(out + (size_t)b * T * N, out2 + (size_t)b * T * N, (size_t)(T - 1) * N));
    test_check("mp3 masked attention: T-1 context tokens, the excluded one leaks nowhere", leak == 0.0,
               "max change of the other tokens' logits %.3g", leak);
    free(out2);
    model_free(&masked_all);
    free(base);
    free(out);
    model_free(&m);
}

static void test_loss_ignores_cls(void) {
    const int B = 3, N = 9, t0 = 1, T = N + t0;
    mp3 o;
    mp3_create(&o, &ops_cpu, B, N, t0);
    float logits[3 * 10 * 9], grad[3 * 10 * 9];
    test_fill_uniform(logits, sizeof logits / sizeof *logits, -2, 2, 3);
    double loss = mp3_forward(&o, logits, B);
    double ref = 0; // mean over patch tokens of -log softmax[target]
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++) {
            const float *z = logits + ((size_t)b * T + t0 + n) * N;
            double mx = z[0], s = 0;
            for (int k = 1; k < N; k++) mx = fmax(mx, z[k]);
            for (int k = 0; k < N; k++) s += exp(z[k] - mx);
            ref += -(z[n] - mx - log(s));
        }
    ref /= B * N;
    for (int b = 0; b < B; b++)
        for (int k = 0; k < N; k++) logits[(size_t)b * T * N + k] = 50.0f * (k % 2); // cls rows: anything
    double loss2 = mp3_forward(&o, logits, B);
    memset(grad, 0, sizeof grad);
    mp3_backward(&o, grad, B);
    double cls_grad = 0;
    for (int b = 0; b < B; b++) cls_grad = fmax(cls_grad, max_diff(grad + (size_t)b * T * N, (float[9]){0}, N));
    test_check("mp3 loss: mean cross entropy over patch tokens, cls ignored (value and gradient)",
               fabs(loss - ref) < 1e-5 && loss2 == loss && cls_grad == 0.0,
               "loss %.7f reference %.7f; after changing cls rows %.7f; max |grad| on cls rows %g", loss, ref, loss2, cls_grad);
    mp3_free(&o);
}

static void test_accuracy_and_reassembly(void) {
    const int S = 6, p = 2, C = 1;
    const mp3_layout L = {C, S, S, p, p};
    float img[36];
    for (int i = 0; i < 36; i++) img[i] = (float)i;
    for (int y = 0; y < 2; y++) // patch 4 (centre) blank
        for (int x = 0; x < 2; x++) img[(2 + y) * S + 2 + x] = 3.0f;
    int pred[9] = {0, 1, 2, 3, 4, 5, 6, 8, 7}; // patches 7 and 8 swapped
    long c = 0, t = 0, cn = 0, tn = 0;
    mp3_count_correct(pred, img, 1, &L, NULL, 0, 1, &c, &t, &cn, &tn);
    test_check("mp3 accuracy: all patches and non-blank patches", c == 7 && t == 9 && cn == 6 && tn == 8,
               "correct %ld/%ld, non-blank %ld/%ld (want 7/9, 6/8)", c, t, cn, tn);
    // Error distances (non-blank): patch 7 (row 2, col 1) predicted at 8 (row 2, col 2) and 8 at
    // 7: one cell each; patch 0 sent to 8 (two rows, two columns): two cells; patch 4 is blank.
    int far[9] = {8, 1, 2, 3, 0, 5, 6, 8, 7};
    mp3_counts k = {0};
    mp3_count_positions(far, img, 1, &L, NULL, 0, 1, &k);
    test_check("mp3 error distance: Chebyshev cells of the non-blank patches (0 = correct)",
               k.distance_nonblank[0] == 5 && k.distance_nonblank[1] == 2 && k.distance_nonblank[2] == 1 && k.total_nonblank == 8 &&
                   k.correct == 5 && k.total == 9,
               "distances 0:%ld 1:%ld 2:%ld of %ld non-blank; correct %ld/%ld (want 5, 2, 1 of 8; 5/9)", k.distance_nonblank[0],
               k.distance_nonblank[1], k.distance_nonblank[2], k.total_nonblank, k.correct, k.total);
    int refs[3] = {0, 1 + 4, 1 + 7}; // cls (ignored), the blank patch 4 and the misplaced patch 7
    c = t = cn = tn = 0;
    mp3_count_correct(pred, img, 1, &L, refs, 3, 1, &c, &t, &cn, &tn);
    test_check("mp3 accuracy: reference patches are not counted", c == 6 && t == 7 && cn == 6 && tn == 7,
               "correct %ld/%ld, non-blank %ld/%ld (want 6/7, 6/7)", c, t, cn, tn);
    int perfect[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    float out[36];
    mp3_reassemble(img, perfect, &L, -1.0f, out);
    test_check("mp3 reassembly: perfect predictions give the image back", max_diff(out, img, 36) == 0.0, "max diff %g",
               max_diff(out, img, 36));
    int collide[9] = {0, 0, 2, 3, 4, 5, 6, 7, 8}; // patches 0 and 1 both at 0; position 1 empty
    mp3_reassemble(img, collide, &L, -1.0f, out);
    float want00 = 0.5f * (img[0] + img[2]), got01 = out[2];
    test_check("mp3 reassembly: collisions average, empty positions filled", out[0] == want00 && got01 == -1.0f,
               "position 0 pixel %g (want %g), position 1 pixel %g (want -1)", out[0], want00, got01);
    int ctx_patches[2] = {0, 8};
    mp3_context_image(img, ctx_patches, 2, &L, -1.0f, out);
    test_check("mp3 context view: context patches in place, the rest empty",
               out[0] == img[0] && out[35] == img[35] && out[2] == -1.0f && out[14] == -1.0f, "pixels %g %g %g %g", out[0],
               out[35], out[2], out[14]);
    // A sequence: 4 frames of 3 features, each frame one patch (1 x 3); frame 2 is constant (blank).
    const mp3_layout seq = {1, 4, 3, 1, 3};
    float frames[12] = {0, 1, 2, 3, 4, 5, 7, 7, 7, 9, 10, 11}, back[12];
    int swapped[4] = {1, 0, 2, 3};
    c = t = cn = tn = 0;
    mp3_count_correct(swapped, frames, 1, &seq, NULL, 0, 1, &c, &t, &cn, &tn);
    mp3_reassemble(frames, swapped, &seq, -1.0f, back);
    int moved = back[0] == 3 && back[2] == 5 && back[3] == 0 && back[8] == 7 && back[11] == 11;
    test_check("mp3 on a sequence: one frame per patch (accuracy, blank frames, reassembly)",
               c == 2 && t == 4 && cn == 1 && tn == 3 && moved, "correct %ld/%ld, non-blank %ld/%ld (want 2/4, 1/3), frames moved %d",
               c, t, cn, tn, moved);
}

// Reference points (the speech variant): how many, and which objective / pe.kind / fraction
// combinations are accepted.
static void test_reference_config(void) {
    int r0 = mp3_reference_patches(49, 0.0), r5 = mp3_reference_patches(49, 0.05), rsmall = mp3_reference_patches(49, 0.001);
    int rall = mp3_reference_patches(49, 1.0);
    test_check("mp3 reference patches: round(f·N), at least 1, at most N-1", r0 == 0 && r5 == 2 && rsmall == 1 && rall == 48,
               "f 0: %d, 0.05: %d, 0.001: %d, 1: %d (want 0, 2, 1, 48 of 49)", r0, r5, rsmall, rall);
    const char *ok_none = mp3_config_error("none", 0.0), *ok_sin2d = mp3_config_error("sin2d", 0.05);
    test_check("mp3 config: none without references, sin2d with accepted", !ok_none && !ok_sin2d,
               "%s", ok_none ? ok_none : ok_sin2d ? ok_sin2d : "all accepted");
    // (each message lives in one static buffer: check it before the next call)
    const char *pe_no_refs = mp3_config_error("abs", 0.0);
    test_check("mp3 config: a position encoding without references refused", pe_no_refs && strstr(pe_no_refs, "valid with mp3: none"),
               "%s", pe_no_refs ? pe_no_refs : "(accepted)");
    const char *rope_refs = mp3_config_error("rope", 0.1);
    test_check("mp3 config: rope on references refused", rope_refs && strstr(rope_refs, "abs, sin1d, sin2d"), "%s",
               rope_refs ? rope_refs : "(accepted)");
    objective_settings sup = {.name = "supervised", .pe_kind = "abs", .ref_fraction = 0.1};
    const char *sup_refs = objective_config_error(&sup);
    test_check("mp3 config: references without mp3 refused", sup_refs && strstr(sup_refs, "objective.name=supervised"), "%s",
               sup_refs ? sup_refs : "(accepted)");
}

int main(void) {
    posbench_set_threads(2);
    test_context_sampling();
    test_masked_attention();
    test_loss_ignores_cls();
    test_accuracy_and_reassembly();
    test_reference_config();
    return test_exit_code();
}
