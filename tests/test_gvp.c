// tests/test_gvp.c — GVP (objectives/gvp/ and the model's two streams, models/model.c):
//   * fixed cut points on enumerated cases (K = 1, 2, 4, N) and the paper's App. A example
//     (N = 5, G_0 = [1], G_1 = [2, 3], G_2 = [4, 5]) with its content and query masks written out;
//   * the masks from the group ids against the paper's eq. 11 written by positions in z, for every
//     segmentation, raster and random order, K = 1 and the largest K; no empty query row;
//   * the mixed sampler: n_{K-1}/N has mean 0.5 and standard deviation 0.1 over 20000 draws, the
//     other cuts are distinct, below it and uniform; random cuts uniform over [1, N-1];
//   * the model: attention probabilities are non-zero exactly where the paper's masks allow;
//     perturbing patch i changes no query output of its group or of earlier groups (bitwise) and
//     every query output of later groups;
//   * train_loss_terms: each image's predicted patches; the whole batch's mean loss equals the
//     micro-batches' means weighted by their shares of them (not by 1/2), mixed and random;
//   * gradient checks of every parameter of the two-stream model through the objective's loss
//     (abs and sin2d; eps 3e-3, |err| <= 5e-4 + 3e-2·|g|, 8 entries per tensor, as test_vit);
//   * the PyTorch oracle (tests/torch_oracle.py, torch twin tests/torch_vit.py with the two
//     streams written as separate content and query attentions and explicit masks): loss,
//     logits and every gradient against float64 PyTorch (tolerances in torch_oracle.py).
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include "../models/model.h"
#include "../objectives/objective.h"
#include "../objectives/gvp/gvp.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// --- the paper's masks, written by positions in z (independent of gvp_stream_ids) ---

typedef struct {
    int N, K, t0;
    int pos[256];   // 1-based position of each patch in z
    int cuts[257];  // n_0 .. n_K
} draw_info;

static int is_condition(const draw_info *d, int tok) { return tok < d->t0 || d->pos[tok - d->t0] <= d->cuts[0]; }
// f(t) for a non-condition token: the k >= 1 with n_{k-1} < pos <= n_k.
static int group_of(const draw_info *d, int tok) {
    if (is_condition(d, tok)) return 0;
    int k = 1;
    while (d->pos[tok - d->t0] > d->cuts[k]) k++;
    return k;
}
// Eq. 11: (M_h)_ij = 0 if j is a condition token; -inf if i is one and j not; else f(i) >= f(j).
static int content_visible(const draw_info *d, int i, int j) {
    if (is_condition(d, j)) return 1;
    if (is_condition(d, i)) return 0;
    return group_of(d, i) >= group_of(d, j);
}
// (M_g)_ij for the query of patch token i: condition keys always; a condition query sees only
// them; else f(i) > f(j).
static int query_visible(const draw_info *d, int i, int j) {
    if (is_condition(d, j)) return 1;
    if (is_condition(d, i)) return 0;
    return group_of(d, i) > group_of(d, j);
}

static void make_info(draw_info *d, const int *order, const int *cuts, int N, int K, int t0) {
    d->N = N, d->K = K, d->t0 = t0;
    for (int k = 0; k < N; k++) d->pos[order[k]] = k + 1;
    for (int k = 0; k <= K; k++) d->cuts[k] = cuts[k];
}

static void test_fixed_cuts(void) {
    int order[9], cuts[10], group[9], scratch[9];
    const int Ks[] = {1, 2, 4, 9};
    const char *want[] = {"4 9", "3 6 9", "1 3 5 7 9", "0 1 2 3 4 5 6 7 8 9"};
    for (int c = 0; c < 4; c++) {
        gvp_draw(order, cuts, group, GVP_SEG_FIXED, GVP_ORDER_RASTER, Ks[c], 9, 1, 0, 0, 0, scratch);
        char got[64] = "";
        for (int k = 0; k <= Ks[c]; k++) snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", k ? " " : "", cuts[k]);
        test_check("gvp fixed cuts: n_i = floor((i+1)N/(K+1))", !strcmp(got, want[c]), "N 9 K %d: %s (want %s)", Ks[c], got, want[c]);
    }
    // The paper's App. A example: N = 5, K = 2 gives G_0 = [1], G_1 = [2, 3], G_2 = [4, 5].
    gvp_draw(order, cuts, group, GVP_SEG_FIXED, GVP_ORDER_RASTER, 2, 5, 1, 0, 0, 0, scratch);
    int ids[11];
    gvp_stream_ids(ids, group, 5, 1);
    const char *content_want = "110000110000111100111100111111111111";
    const char *query_want = "110000110000110000111100111100";
    char content[37] = "", query[31] = "";
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) content[i * 6 + j] = ids[j] <= ids[i] ? '1' : '0';
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++) query[i * 6 + j] = ids[j] <= ids[6 + i] ? '1' : '0';
    test_check("gvp masks: the paper's example G_0=[1], G_1=[2,3], G_2=[4,5] (cls, 5 patches)",
               !strcmp(content, content_want) && !strcmp(query, query_want), "content %s (want %s), query %s (want %s)",
               content, content_want, query, query_want);
}

// Every segmentation, both orders, K = 1 and the largest: the ids' masks equal eq. 11.
static void test_masks_equal_equations(void) {
    const int N = 9, t0 = 1, T = N + t0;
    const char *seg_names[] = {"fixed", "random", "mixed"}, *ord_names[] = {"random", "raster"};
    for (int seg = 0; seg < 3; seg++)
        for (int ord = 0; ord < 2; ord++) {
            int most = seg == GVP_SEG_FIXED ? N : seg == GVP_SEG_RANDOM ? N - 1 : (int)nearbyint(0.5 * N);
            const int Ks[] = {1, 2, most};
            int bad = 0, empty = 0, cases = 0;
            for (int c = 0; c < 3; c++)
                for (uint32_t img = 0; img < 50; img++) {
                    int order[9], cuts[10], group[9], scratch[9], ids[2 * 9 + 1];
                    gvp_draw(order, cuts, group, seg, ord, Ks[c], N, 7, 3, 2, img, scratch);
                    gvp_stream_ids(ids, group, N, t0);
                    draw_info d;
                    make_info(&d, order, cuts, N, Ks[c], t0);
                    for (int i = 0; i < T; i++) {
                        for (int j = 0; j < T; j++) bad += (ids[j] <= ids[i]) != content_visible(&d, i, j);
                    }
                    for (int n = 0; n < N; n++) {
                        int seen = 0;
                        for (int j = 0; j < T; j++) {
                            int v = ids[j] <= ids[T + n];
                            bad += v != query_visible(&d, t0 + n, j);
                            seen += v;
                        }
                        empty += seen == 0;
                    }
                    if (ord == GVP_ORDER_RASTER)
                        for (int k = 0; k < N; k++) bad += order[k] != k;
                    cases++;
                }
            test_check("gvp masks = paper eq. 11 (content f(j)<=f(i), query f(j)<f(i)), no empty query row",
                       bad == 0 && empty == 0, "%s segmentation, %s order, K 1, 2, %d, %d draws: %d entries differ, %d empty query rows",
                       seg_names[seg], ord_names[ord], most, cases, bad, empty);
        }
}

static void test_samplers(void) {
    const int N = 49, K = 5, draws = 20000;
    int order[49], cuts[50], group[49], scratch[49];
    double sum = 0, sq = 0;
    long at25 = 0, count[49] = {0}, random_count[49] = {0};
    int bad = 0;
    for (int i = 0; i < draws; i++) {
        gvp_draw(order, cuts, group, GVP_SEG_MIXED, GVP_ORDER_RANDOM, K, N, 11, 0, 0, (uint32_t)i, scratch);
        double p = (double)cuts[K - 1] / N;
        sum += p, sq += p * p;
        for (int k = 0; k < K - 1; k++) bad += cuts[k] < 1 || cuts[k] >= cuts[k + 1];
        bad += cuts[K - 1] < K || cuts[K - 1] > N - 1 || cuts[K] != N;
        if (cuts[K - 1] == 25) {
            at25++;
            for (int k = 0; k < K - 1; k++) count[cuts[k]]++;
        }
        gvp_draw(order, cuts, group, GVP_SEG_RANDOM, GVP_ORDER_RANDOM, K, N, 11, 1, 0, (uint32_t)i, scratch);
        for (int k = 0; k < K; k++) random_count[cuts[k]]++;
        for (int k = 0; k < K - 1; k++) bad += cuts[k] >= cuts[k + 1];
    }
    double mean = sum / draws, sd = sqrt(sq / draws - mean * mean);
    test_check("gvp mixed: n_{K-1}/N ~ Normal(0.5, std 0.1)", fabs(mean - 0.5) < 0.003 && fabs(sd - 0.1) < 0.004 && !bad,
               "N 49 K 5, %d draws: mean %.4f std %.4f, %d invalid cut lists", draws, mean, sd, bad);
    double p = (double)(K - 1) / 24, worst = 0;
    for (int v = 1; v <= 24; v++) worst = fmax(worst, fabs(count[v] - at25 * p) / sqrt(at25 * p * (1 - p)));
    test_check("gvp mixed: the other K-1 cuts uniform in [1, n_{K-1}-1]", at25 > 500 && worst < 4.5,
               "%ld draws with n_{K-1} = 25: worst value %.2f standard deviations off", at25, worst);
    p = (double)K / (N - 1), worst = 0;
    for (int v = 1; v < N; v++) worst = fmax(worst, fabs(random_count[v] - draws * p) / sqrt(draws * p * (1 - p)));
    test_check("gvp random: K cuts uniform in [1, N-1]", worst < 4.5 && random_count[0] == 0,
               "%d draws: worst value %.2f standard deviations off, %ld cuts at 0", draws, worst, random_count[0]);
    // Refusals: the largest K of each segmentation is accepted, one more is not.
    int ok = !gvp_groups_error(GVP_SEG_FIXED, 49, 49) && gvp_groups_error(GVP_SEG_FIXED, 50, 49) &&
             !gvp_groups_error(GVP_SEG_RANDOM, 48, 49) && gvp_groups_error(GVP_SEG_RANDOM, 49, 49) &&
             !gvp_groups_error(GVP_SEG_MIXED, 24, 49) && gvp_groups_error(GVP_SEG_MIXED, 25, 49) &&
             !gvp_groups_error(GVP_SEG_MIXED, 10, 49) && gvp_groups_error(GVP_SEG_MIXED, 40, 49) &&
             gvp_groups_error(GVP_SEG_FIXED, 0, 49);
    test_check("gvp groups: limits (fixed N, random N-1, mixed round(N/2); >= 1)", ok, "N 49: fixed 49/50, random 48/49, mixed 24/25 and 40, K 0");
}

// --- the model through the objective ---

typedef objective_case gvp_case; // tests/model_testing.h
#define case_rng objective_case_rng
#define case_free objective_case_free
#define case_loss objective_case_loss
#define case_grads objective_case_grads

static void case_create_streams(gvp_case *c, const char *pe, const char *seg, const char *ord, int K, int B, int streams) {
    objective_settings s = {.name = "gvp", .pe_kind = pe, .cls = 1, .seed = 3, .train_size = 12, .patch = 3, .samples = 2};
    *OBJECTIVE_OWN(&s, gvp_settings) = (gvp_settings){.groups = K, .segmentation = seg, .order = ord, .streams = streams};
    objective_case_create(c, &objective_gvp, &s, pe, B, B);
}

static void case_create(gvp_case *c, const char *pe, const char *seg, const char *ord, int K, int B) {
    case_create_streams(c, pe, seg, ord, K, B, 2);
}

// The draw of image b of the case's training step.
static void case_draw(const gvp_case *c, int b, int K, int seg, int ord, int *order, int *cuts, int *group) {
    int scratch[16];
    gvp_draw(order, cuts, group, seg, ord, K, c->m.N, case_rng.seed, case_rng.epoch, case_rng.step, (uint32_t)b, scratch);
}

static void test_model_masks(void) {
    const int B = 2, K = 3, N = 16, T = 17, Ts = 33, H = 2;
    gvp_case c;
    case_create(&c, "abs", "random", "random", K, B);
    model_keep_attention_probs(&c.m, 1);
    case_loss(&c);
    float *probs = xmalloc((size_t)B * H * Ts * T * sizeof(float), "probs");
    int bad = 0;
    for (int l = 0; l < 2; l++) {
        memcpy(probs, model_attention_probs(&c.m, l), (size_t)B * H * Ts * T * sizeof(float));
        for (int b = 0; b < B; b++) {
            int order[16], cuts[17], group[16];
            case_draw(&c, b, K, GVP_SEG_RANDOM, GVP_ORDER_RANDOM, order, cuts, group);
            draw_info d;
            make_info(&d, order, cuts, N, K, 1);
            for (int h = 0; h < H; h++)
                for (int i = 0; i < Ts; i++)
                    for (int j = 0; j < T; j++) {
                        int visible = i < T ? content_visible(&d, i, j) : query_visible(&d, i - T + 1, j);
                        float p = probs[(((size_t)b * H + h) * Ts + i) * T + j];
                        bad += visible != (p > 0.0f);
                    }
        }
    }
    test_check("gvp model: attention probabilities > 0 exactly where eq. 11 allows (both streams, every layer)", bad == 0,
               "2 layers, 2 images, 33 query rows x 17 content keys: %d entries disagree", bad);
    free(probs);
    case_free(&c);
}

static void test_perturbation(void) {
    const int B = 2, K = 4, N = 16, T = 17, Ts = 33, D = 9;
    gvp_case c;
    case_create(&c, "sin2d", "random", "random", K, B);
    size_t nl = (size_t)B * Ts * D;
    float *base = xmalloc(nl * sizeof(float), "base"), *out = xmalloc(nl * sizeof(float), "out");
    case_loss(&c);
    memcpy(base, c.m.activations.logits, nl * sizeof(float));
    int order[16], cuts[17], group[16];
    case_draw(&c, 0, K, GVP_SEG_RANDOM, GVP_ORDER_RANDOM, order, cuts, group);
    int checked = 0;
    for (int g = 1; g <= K; g++) { // one patch of each predicted group
        int pn = -1;
        for (int n = 0; n < N && pn < 0; n++) if (group[n] == g) pn = n;
        if (pn < 0) continue;
        float *img = model_images(&c.m), saved[144];
        memcpy(saved, img, sizeof saved);
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++) img[((pn / 4) * 3 + y) * 12 + (pn % 4) * 3 + x] += 0.7f * (float)(x - y + 1);
        case_loss(&c);
        memcpy(out, c.m.activations.logits, nl * sizeof(float));
        memcpy(img, saved, sizeof saved);
        int same_wrong = 0, later_same = 0, later = 0;
        for (int n = 0; n < N; n++) {
            const float *a = base + ((size_t)T + n) * D, *b = out + ((size_t)T + n) * D;
            int equal = !memcmp(a, b, D * sizeof(float));
            if (group[n] <= g) same_wrong += !equal;
            else later++, later_same += equal;
        }
        int other_image = !memcmp(base + (size_t)Ts * D, out + (size_t)Ts * D, (size_t)Ts * D * sizeof(float));
        test_check("gvp perturbation: patch i changes no query output of its group or earlier ones, every later one",
                   same_wrong == 0 && later_same == 0 && other_image,
                   "patch %d in group %d of %d: %d query rows of groups <= %d changed, %d of %d later rows unchanged, other image %s",
                   pn, g, K, same_wrong, g, later_same, later, other_image ? "unchanged" : "changed");
        checked++;
    }
    test_check("gvp perturbation: every predicted group tried", checked == K, "%d of %d", checked, K);
    free(base);
    free(out);
    case_free(&c);
}

// One stream (objective.streams=1, fixed K = N): the content token at position u of z sees
// positions <= u, so perturbing the patch at position t changes exactly the content outputs
// at positions >= t: the predictions of positions <= t (read at u = t - 1 and before) do not
// change, every later one does; the loss reads those rows (the cls row predicts position 0).
static void test_one_stream(void) {
    const int B = 2, N = 16, T = 17, D = 9;
    gvp_case c;
    case_create_streams(&c, "sin2d", "fixed", "random", N, B, 1);
    size_t nl = (size_t)B * T * D;
    float *base = xmalloc(nl * sizeof(float), "base"), *out = xmalloc(nl * sizeof(float), "out");
    double loss0 = case_loss(&c);
    memcpy(base, c.m.activations.logits, nl * sizeof(float));
    int order[16], cuts[17], group[16], wrong = 0, tried = 0;
    case_draw(&c, 0, N, GVP_SEG_FIXED, GVP_ORDER_RANDOM, order, cuts, group);
    for (int t = 0; t < N; t += 5) {
        int pn = order[t];
        float *img = model_images(&c.m), saved[144];
        memcpy(saved, img, sizeof saved);
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++) img[((pn / 4) * 3 + y) * 12 + (pn % 4) * 3 + x] += 0.7f * (float)(x - y + 1);
        double loss1 = case_loss(&c);
        memcpy(out, c.m.activations.logits, nl * sizeof(float));
        memcpy(img, saved, sizeof saved);
        for (int u = -1; u < N; u++) { // u = -1: cls
            int tok = u < 0 ? 0 : 1 + order[u];
            int equal = !memcmp(base + (size_t)tok * D, out + (size_t)tok * D, D * sizeof(float));
            wrong += (u >= t) == equal;
        }
        wrong += loss1 == loss0 || memcmp(base + (size_t)T * D, out + (size_t)T * D, (size_t)T * D * sizeof(float)) != 0;
        tried++;
    }
    test_check("gvp one stream: the patch at position t of z changes the content outputs at positions >= t only (so no "
               "prediction of positions <= t), and the loss", wrong == 0, "%d positions tried, %d rows wrong", tried, wrong);
    free(base), free(out);
    case_free(&c);
    objective_settings s = {.name = "gvp", .pe_kind = "sin2d", .cls = 1, .train_size = 12, .patch = 3};
    gvp_settings *own = OBJECTIVE_OWN(&s, gvp_settings);
    *own = (gvp_settings){.groups = 5, .segmentation = "fixed", .order = "random", .streams = 1};
    const char *why = objective_config_error(&s);
    own->groups = 16, own->segmentation = "mixed";
    const char *why_mixed = objective_config_error(&s);
    own->segmentation = "fixed";
    const char *ok = objective_config_error(&s);
    test_check("gvp one stream: refused unless fixed with K = N (a token would see the patch it predicts)",
               why && strstr(why, "objective.streams=1") && strstr(why, "groups 16") && why_mixed && !ok, "%s", why ? why : "(accepted)");
}

static void gradcheck_case(const char *label, const char *pe, const char *seg, int K, int streams) {
    gvp_case c;
    case_create_streams(&c, pe, seg, "random", K, 3, streams);
    case_grads(&c);
    gradcheck_tol tol = {3e-3, 5e-4, 3e-2, 8};
    for (int i = 0; i < c.m.params.count; i++) {
        const tensor_info *info = &c.m.params.items[i];
        char name[160];
        snprintf(name, sizeof name, "gvp[%s] %s", label, info->name);
        gradcheck(name, &c, case_loss, c.m.param + info->offset, c.m.grad + info->offset, info->numel, tol);
    }
    case_free(&c);
}

// train_loss_terms (objective_kind; train.accumulate's micro-batch weights): each image's count
// is its predicted patches (group != 0 of its own draw), the staging images are left as they
// were, and the whole batch's mean loss is Σ_i w_i · (micro-batch i's mean loss), w_i = its share
// of the counts, while the equal weights 1/2 are not (the counts differ per image with random
// and mixed segmentations).
static void test_loss_terms(const char *seg, int K) {
    const int B = 4, half = 2;
    gvp_case c;
    case_create(&c, "abs", seg, "random", K, B);
    int N = c.m.N;
    size_t image_floats = 144, batch_floats = (size_t)B * image_floats;
    float *images = xmalloc(batch_floats * sizeof(float), "images");
    memcpy(images, model_images(&c.m), batch_floats * sizeof(float));
    long terms[4], counted[2] = {0, 0};
    c.o.kind->train_loss_terms(&c.o, B, NULL, case_rng, terms);
    int ok = memcmp(images, model_images(&c.m), batch_floats * sizeof(float)) == 0, differ = 0;
    for (int b = 0; b < B; b++) {
        int order[16], cuts[17], group[16];
        case_draw(&c, b, K, gvp_segmentation_parse(seg), gvp_order_parse("random"), order, cuts, group);
        long predicted = 0;
        for (int n = 0; n < N; n++) predicted += group[n] != 0;
        ok = ok && terms[b] == predicted;
        differ = differ || terms[b] != terms[0];
        counted[b / half] += terms[b];
    }
    char name[96];
    snprintf(name, sizeof name, "gvp loss terms (%s, K %d): each image's predicted patches, images unchanged", seg, K);
    test_check(name, ok && differ, "terms %ld %ld %ld %ld (differ: %d)", terms[0], terms[1], terms[2], terms[3], differ);
    double whole = case_loss(&c), micro[2];
    for (int i = 0; i < 2; i++) { // micro-batch i: images [i half, (i + 1) half), drawn at index i half
        memcpy(model_images(&c.m), images + (size_t)i * half * image_floats, (size_t)half * image_floats * sizeof(float));
        rng_addr rng = case_rng;
        rng.index = (uint32_t)(i * half);
        micro[i] = c.o.kind->train_forward(&c.o, half, NULL, rng);
    }
    double total = (double)(counted[0] + counted[1]);
    double weighted = counted[0] / total * micro[0] + counted[1] / total * micro[1], equal = (micro[0] + micro[1]) / 2;
    double rel_weighted = fabs(weighted - whole) / whole, rel_equal = fabs(equal - whole) / whole;
    snprintf(name, sizeof name, "gvp loss terms (%s, K %d): weighted micro-batch losses = the whole batch's", seg, K);
    test_check(name, rel_weighted <= 1e-6 && rel_equal > 1e-5, "whole %.9g, weighted %.9g (relative %.2g), equal weights %.9g (%.2g)",
               whole, weighted, rel_weighted, equal, rel_equal);
    free(images);
    case_free(&c);
}

// --- PyTorch oracle ---
#define scalar test_tf_scalar

static void oracle_case(const char *dir, const char *label, const char *pe, const char *seg, const char *ord, int K) {
    const int B = 3;
    gvp_case c;
    case_create(&c, pe, seg, ord, K, B);
    model *m = &c.m;
    case_grads(&c);
    float loss = (float)case_loss(&c);
    int N = m->N, Ts = m->T + N, D = 9;
    int *groups = xmalloc((size_t)B * N * sizeof(int), "groups"), *labels = xcalloc((size_t)B, sizeof(int), "labels");
    for (int b = 0; b < B; b++) {
        int order[16], cuts[17];
        case_draw(&c, b, K, gvp_segmentation_parse(seg), gvp_order_parse(ord), order, cuts, groups + (size_t)b * N);
    }
    tensorfile tf;
    tf_init(&tf);
    const model_config *cfg = &m->cfg;
    test_model_dump_shape(&tf, cfg);
    scalar(&tf, "config.pos_abs", !strcmp(pe, "abs"));
    scalar(&tf, "config.sin1d", !strcmp(pe, "sin1d"));
    scalar(&tf, "config.sin2d", !strcmp(pe, "sin2d"));
    scalar(&tf, "config.gvp", 1);
    scalar(&tf, "config.num_classes", cfg->num_classes);
    scalar(&tf, "config.label_smoothing", 0);
    int idims[4] = {B, 1, 12, 12}, ldims[1] = {B}, gdims[2] = {B, N}, one[1] = {1}, lg[3] = {B, Ts, D};
    tf_add(&tf, "input.images", TF_F32, 4, idims, model_images(m));
    tf_add(&tf, "input.labels", TF_I32, 1, ldims, labels);
    tf_add(&tf, "input.gvp_groups", TF_I32, 2, gdims, groups);
    test_model_dump(&tf, m);
    tf_add(&tf, "output.loss", TF_F32, 1, one, &loss);
    tf_add(&tf, "output.logits", TF_F32, 3, lg, m->activations.logits);
    test_python_check(dir, "tests/torch_oracle.py", "oracle", label, &tf);
    tf_free(&tf);
    free(groups);
    free(labels);
    case_free(&c);
}

static void test_torch_oracle(void) {
    char dir[] = "/tmp/posbench-gvp-oracle.XXXXXX";
    if (!test_torch_dir("oracle gvp", dir)) return;
    oracle_case(dir, "gvp-abs-mixed", "abs", "mixed", "random", 3);
    oracle_case(dir, "gvp-sin2d-fixed-raster", "sin2d", "fixed", "raster", 16);
    oracle_case(dir, "gvp-sin1d-random", "sin1d", "random", "random", 5);
    test_torch_dir_remove(dir);
}

int main(void) {
    test_fixed_cuts();
    test_masks_equal_equations();
    test_samplers();
    test_model_masks();
    test_perturbation();
    test_one_stream();
    test_loss_terms("mixed", 3);
    test_loss_terms("random", 5);
    gradcheck_case("abs,mixed", "abs", "mixed", 3, 2);
    gradcheck_case("sin2d,fixed K=N", "sin2d", "fixed", 16, 2);
    gradcheck_case("one stream,sin2d,fixed K=N", "sin2d", "fixed", 16, 1);
    test_torch_oracle();
    return test_exit_code();
}
