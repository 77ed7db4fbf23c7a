// tests/test_mae.c — MAE (objectives/mae, objectives/mae/decoder.c): the shuffle and its restore
// indices (a permutation, argsort of the noise, restore inverts it, kept patches uniform over
// many draws, addressed by the rng), the config refusals (each naming its key), the encoder
// sees the kept patches only (a masked patch changes no encoder output and no prediction, a
// kept one does), the encoder's activations and FLOPs scale with the kept tokens, finite-
// difference gradient checks of every parameter of the whole model (encoder, decoder_embed,
// decoder) through the loss, and the PyTorch oracle (tests/torch_oracle.py, a torch twin
// written as MAE's code: gather by ids_keep, mask tokens, torch.gather by ids_restore, loss
// masked by the restored mask).
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include "../models/model.h"
#include "../objectives/mae/decoder.h"
#include "../objectives/objective.h"
#include "../objectives/mae/mae.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_shuffle(void) {
    enum { N = 16, DRAWS = 4000 };
    int shuffle[N], restore[N], bad_perm = 0, bad_sort = 0, bad_restore = 0;
    float noise[N];
    long kept_count[N] = {0};
    const int K = 4;
    for (int i = 0; i < DRAWS; i++) {
        mae_shuffle(shuffle, restore, noise, N, 7, 2, 3, (uint32_t)i);
        int seen[N] = {0};
        for (int j = 0; j < N; j++) {
            if (shuffle[j] < 0 || shuffle[j] >= N || seen[shuffle[j]]++) bad_perm++;
            if (j > 0 && noise[shuffle[j - 1]] > noise[shuffle[j]]) bad_sort++;
            if (j > 0 && noise[shuffle[j - 1]] == noise[shuffle[j]] && shuffle[j - 1] > shuffle[j]) bad_sort++;
        }
        for (int j = 0; j < N; j++) {
            if (restore[shuffle[j]] != j) bad_restore++;
            if (shuffle[restore[j]] != j) bad_restore++;
        }
        for (int j = 0; j < K; j++) kept_count[shuffle[j]]++;
    }
    test_check("mae shuffle: a permutation of the patches", bad_perm == 0, "%d draws of N %d: %d bad entries", DRAWS, N, bad_perm);
    test_check("mae shuffle: argsort of the noise (ties to the lower index)", bad_sort == 0, "%d out of order", bad_sort);
    test_check("mae restore indices invert the shuffle: restore[shuffle[j]] = j, shuffle[restore[n]] = n", bad_restore == 0,
               "%d mismatches", bad_restore);
    // Each patch is kept with probability K/N: binomial(DRAWS, 1/4), sd = sqrt(4000·3/16) = 27.4.
    double expect = (double)DRAWS * K / N, sd = sqrt(DRAWS * (double)K / N * (1.0 - (double)K / N)), worst = 0.0;
    for (int n = 0; n < N; n++) worst = fmax(worst, fabs(kept_count[n] - expect) / sd);
    test_check("mae shuffle: every patch kept with probability K/N (4000 draws, within 4.5 sd)", worst < 4.5,
               "worst patch %.2f sd from %.0f", worst, expect);
    // MAE's unshuffle: a sequence in shuffle order gathered by restore is in patch order.
    int in_shuffle_order[N], unshuffled[N], again[N], restore2[N], bad = 0;
    float noise2[N];
    mae_shuffle(shuffle, restore, noise, N, 7, 2, 3, 0);
    for (int j = 0; j < N; j++) in_shuffle_order[j] = 100 + shuffle[j];
    for (int n = 0; n < N; n++) unshuffled[n] = in_shuffle_order[restore[n]];
    for (int n = 0; n < N; n++) bad += unshuffled[n] != 100 + n;
    mae_shuffle(again, restore2, noise2, N, 7, 2, 3, 0);
    int same = !memcmp(again, shuffle, sizeof again);
    mae_shuffle(again, restore2, noise2, N, 7, 2, 4, 0);
    int other = memcmp(again, shuffle, sizeof again) != 0;
    test_check("mae unshuffle: gathering a shuffled sequence by restore gives patch order; the draw is addressed by "
               "(seed, epoch, step, image)", bad == 0 && same && other, "%d misplaced, same address %s, another step %s",
               bad, same ? "same draw" : "DIFFERENT draw", other ? "another draw" : "the SAME draw");
    test_check("mae kept patches: round((1 - eta) N)",
               mae_kept_patches(49, 0.75) == 12 && mae_kept_patches(16, 0.75) == 4 && mae_kept_patches(16, 0.5) == 8 &&
                   mae_kept_patches(49, 0.5) == 25,
               "N 49 eta .75: %d, N 16 eta .75: %d, N 16 eta .5: %d, N 49 eta .5: %d", mae_kept_patches(49, 0.75),
               mae_kept_patches(16, 0.75), mae_kept_patches(16, 0.5), mae_kept_patches(49, 0.5));
}

static objective_settings settings(const char *pe, double eta, int depth, int dim) {
    objective_settings s = {.name = "mae", .pe_kind = pe, .eta = eta, .cls = 1, .seed = 3, .train_size = 12,
                            .patch = 3, .samples = 2, .heads = 2};
    *OBJECTIVE_OWN(&s, mae_settings) = (mae_settings){.decoder_depth = depth, .decoder_dim = dim};
    return s;
}

static void test_refusals(void) {
    struct { objective_settings s; const char *key; } cases[] = {
        {settings("sin2d", 0.0, 2, 8), "objective.eta="},
        {settings("sin2d", 0.98, 2, 8), "objective.eta="},      // round(0.02·16) = 0 kept
        {settings("sin2d", 0.01, 2, 8), "objective.eta="},      // round(0.99·16) = 16 kept: none masked
        {settings("sin2d", 0.75, 2, 7), "mae.decoder_dim="},    // odd
        {settings("sin2d", 0.75, 2, 6), "mae.decoder_dim="},    // with 4 heads (below): not a multiple
        {settings("sin2d", 0.75, 0, 8), "mae.decoder_depth="},
        {settings("rope", 0.75, 2, 8), "pe.kind="},
        {settings("relbias", 0.75, 2, 8), "pe.kind="},
    };
    cases[4].s.heads = 4; // 6 is not a multiple of 4 heads
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = objective_config_error(&cases[i].s);
        char name[160];
        snprintf(name, sizeof name, "mae refuses %s (eta %g, decoder depth %d dim %d, heads %d, pe %s)", cases[i].key,
                 cases[i].s.eta, OBJECTIVE_OWN(&cases[i].s, mae_settings)->decoder_depth, OBJECTIVE_OWN(&cases[i].s, mae_settings)->decoder_dim, cases[i].s.heads, cases[i].s.pe_kind);
        test_check(name, why && strstr(why, cases[i].key), "%s", why ? why : "accepted");
    }
    objective_settings ok = settings("abs", 0.75, 1, 8);
    const char *why = objective_config_error(&ok);
    test_check("mae accepts eta 0.75, abs, decoder depth 1 width 8", !why, "%s", why ? why : "accepted");
}

typedef objective_case mae_case; // tests/model_testing.h
#define case_rng objective_case_rng
#define case_free objective_case_free
#define case_loss objective_case_loss
#define case_grads objective_case_grads

static void case_create(mae_case *c, const char *pe, double eta, int B, int max_batch) {
    objective_settings s = settings(pe, eta, 2, 8);
    objective_case_create(c, &objective_mae, &s, pe, B, max_batch);
}

// Adds a pattern to patch n of image b (12 px, patch 3).
static void bump_patch(model *m, int b, int n) {
    float *img = model_images(m) + (size_t)b * 144;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) img[((n / 4) * 3 + y) * 12 + (n % 4) * 3 + x] += 0.7f * (float)(x - y + 1);
}

static void test_encoder_sees_kept_only(void) {
    mae_case c;
    case_create(&c, "sin2d", 0.75, 2, 2);
    const int Kt = 5, dd = 8, T = 17, D = 9;
    size_t ne = (size_t)c.B * Kt * dd, np = (size_t)c.B * T * D;
    float *enc = xmalloc(ne * sizeof(float), "enc"), *pred = xmalloc(np * sizeof(float), "pred");
    float saved[2 * 144];
    memcpy(saved, model_images(&c.m), sizeof saved);
    case_loss(&c);
    memcpy(enc, c.m.activations.logits, ne * sizeof(float));
    memcpy(pred, decoder_pred(&c.m), np * sizeof(float));
    int shuffle[16], restore[16];
    float noise[16];
    mae_shuffle(shuffle, restore, noise, 16, case_rng.seed, case_rng.epoch, case_rng.step, 0);
    bump_patch(&c.m, 0, shuffle[10]); // a masked patch of image 0
    case_loss(&c);
    int enc_same = !memcmp(enc, c.m.activations.logits, ne * sizeof(float));
    int pred_same = !memcmp(pred, decoder_pred(&c.m), np * sizeof(float));
    memcpy(model_images(&c.m), saved, sizeof saved);
    bump_patch(&c.m, 0, shuffle[1]); // a kept one
    case_loss(&c);
    int enc_changed = memcmp(enc, c.m.activations.logits, (size_t)Kt * dd * sizeof(float)) != 0;
    int other_same = !memcmp(enc + (size_t)Kt * dd, c.m.activations.logits + (size_t)Kt * dd, (size_t)Kt * dd * sizeof(float));
    test_check("mae encoder sees the kept patches only: a masked patch changes no encoder output and no prediction, a "
               "kept one changes its image's encoder outputs (and not the other image's)",
               enc_same && pred_same && enc_changed && other_same, "masked: encoder %s, predictions %s; kept: image 0 %s, "
               "image 1 %s", enc_same ? "same" : "CHANGED", pred_same ? "same" : "CHANGED",
               enc_changed ? "changed" : "UNCHANGED", other_same ? "same" : "CHANGED");
    memcpy(model_images(&c.m), saved, sizeof saved);
    free(enc);
    free(pred);
    case_free(&c);
}

// Floats of the encoder's block activations ("blocks.*", not the decoder's) per arena image,
// split into the saved attention state (on the CPU backend the probabilities) and the per-token rest (drop path's per-image scales
// left out).
static void encoder_block_floats(const model *m, double *rows, double *probs) {
    *rows = *probs = 0.0;
    for (int i = 0; i < m->acts.count; i++) {
        const tensor_info *t = &m->acts.items[i];
        if (strncmp(t->name, "blocks.", 7) != 0 || strstr(t->name, "drop_path")) continue; // (B) per image, not per token
        if (strstr(t->name, "attn.state")) *probs += (double)t->numel / m->max_batch; // CPU: the probabilities
        else *rows += (double)t->numel / m->max_batch;
    }
    for (int i = 0; i < m->act_grads.count; i++) {
        const tensor_info *t = &m->act_grads.items[i];
        if (!strncmp(t->name, "blocks.", 7)) *rows += (double)t->numel / m->max_batch;
    }
}

static void test_cost_scales(void) {
    const double etas[] = {0.25, 0.5, 0.75};
    double rows[3], probs[3], flops[3], kt[3];
    int bad = 0;
    char detail[600] = "";
    for (int e = 0; e < 3; e++) {
        mae_case c;
        case_create(&c, "sin2d", etas[e], 16, 16);
        encoder_block_floats(&c.m, &rows[e], &probs[e]);
        kt[e] = c.m.cfg.request.keep_tokens;
        model_config enc = c.m.cfg;
        flops[e] = model_forward_flops(&enc) - decoder_forward_flops(&enc);
        bad += c.m.keep_alloc != c.m.cfg.request.keep_tokens;
        snprintf(detail + strlen(detail), sizeof detail - strlen(detail), "%seta %.2f: %g tokens, %.0f floats + %.0f probs, "
                 "%.0f FLOPs", e ? "; " : "", etas[e], kt[e], rows[e], probs[e], flops[e]);
        case_free(&c);
    }
    for (int e = 1; e < 3; e++) {
        bad += fabs(rows[e] / kt[e] - rows[0] / kt[0]) > 1e-9 * rows[0];             // linear in the kept tokens
        bad += fabs(probs[e] / (kt[e] * kt[e]) - probs[0] / (kt[0] * kt[0])) > 1e-9 * probs[0]; // quadratic
        bad += !(flops[e] < flops[e - 1]);
    }
    test_check("mae encoder cost scales with the kept fraction: block activations per image proportional to the kept "
               "tokens (probabilities to their square), FLOPs falling with eta", bad == 0, "%s", detail);
    // A full forward (probes, attention statistics) of the same model fits fewer images, and runs.
    mae_case c;
    case_create(&c, "sin2d", 0.75, 16, 16);
    int cap = model_batch_capacity(&c.m, c.m.T);
    model_forward(&c.m, cap, 0, (rng_addr){0});
    test_check("mae model: a full-attention forward of every token fits model_batch_capacity images (5^2·16/17^2)",
               cap == 16 * 25 / (17 * 17), "capacity %d", cap);
    case_free(&c);
}

static void gradcheck_case(const char *label, const char *pe) {
    mae_case c;
    case_create(&c, pe, 0.5, 3, 3);
    case_grads(&c);
    gradcheck_tol tol = {3e-3, 5e-4, 3e-2, 8};
    for (int i = 0; i < c.m.params.count; i++) {
        const tensor_info *info = &c.m.params.items[i];
        char name[160];
        snprintf(name, sizeof name, "mae[%s] %s", label, info->name);
        gradcheck(name, &c, case_loss, c.m.param + info->offset, c.m.grad + info->offset, info->numel, tol);
    }
    case_free(&c);
}

// --- PyTorch oracle ---
#define scalar test_tf_scalar

static void oracle_case(const char *dir, const char *label, const char *pe, double eta) {
    const int B = 3;
    mae_case c;
    case_create(&c, pe, eta, B, B);
    model *m = &c.m;
    case_grads(&c);
    float loss = (float)case_loss(&c);
    int N = m->N, T = m->T, D = 9, K = mae_kept_patches(N, eta);
    int *shuffle = xmalloc((size_t)B * N * sizeof(int), "shuffle"), restore[64], *labels = xcalloc((size_t)B, sizeof(int), "labels");
    float noise[64];
    for (int b = 0; b < B; b++)
        mae_shuffle(shuffle + (size_t)b * N, restore, noise, N, case_rng.seed, case_rng.epoch, case_rng.step, (uint32_t)b);
    tensorfile tf;
    tf_init(&tf);
    const model_config *cfg = &m->cfg;
    test_model_dump_shape(&tf, cfg);
    scalar(&tf, "config.pos_abs", !strcmp(pe, "abs"));
    scalar(&tf, "config.sin1d", !strcmp(pe, "sin1d"));
    scalar(&tf, "config.sin2d", !strcmp(pe, "sin2d"));
    scalar(&tf, "config.mae", 1);
    scalar(&tf, "config.mae_keep", K);
    scalar(&tf, "config.decoder_depth", cfg->request.decoder_depth);
    scalar(&tf, "config.decoder_dim", cfg->request.decoder_dim);
    scalar(&tf, "config.num_classes", cfg->num_classes);
    scalar(&tf, "config.label_smoothing", 0);
    int idims[4] = {B, 1, 12, 12}, ldims[1] = {B}, sdims[2] = {B, N}, one[1] = {1}, pd[3] = {B, T, D};
    tf_add(&tf, "input.images", TF_F32, 4, idims, model_images(m));
    tf_add(&tf, "input.labels", TF_I32, 1, ldims, labels);
    tf_add(&tf, "input.mae_shuffle", TF_I32, 2, sdims, shuffle);
    test_model_dump(&tf, m);
    tf_add(&tf, "output.loss", TF_F32, 1, one, &loss);
    tf_add(&tf, "output.logits", TF_F32, 3, pd, decoder_pred(m));
    test_python_check(dir, "tests/torch_oracle.py", "oracle", label, &tf);
    tf_free(&tf);
    free(shuffle);
    free(labels);
    case_free(&c);
}

static void test_torch_oracle(void) {
    char dir[] = "/tmp/posbench-mae-oracle.XXXXXX";
    if (!test_torch_dir("oracle mae", dir)) return;
    oracle_case(dir, "mae-sin2d-0.75", "sin2d", 0.75);
    oracle_case(dir, "mae-abs-0.5", "abs", 0.5);
    test_torch_dir_remove(dir);
}

int main(void) {
    test_shuffle();
    test_refusals();
    test_encoder_sees_kept_only();
    test_cost_scales();
    gradcheck_case("sin2d", "sin2d");
    gradcheck_case("abs", "abs");
    test_torch_oracle();
    return test_exit_code();
}
