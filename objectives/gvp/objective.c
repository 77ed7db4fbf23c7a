// objectives/gvp/objective.c — objective.name=gvp (docs/methods.md "GVP", GVP-p2p): the two-stream
// model (model_config.request.query_stream) with a linear pixel head on every token; each training
// image draws its order z and its group segmentation (gvp.h) from the counter RNG at
// (seed, RNG_GVP, epoch, step, image), so a resumed run draws the same; the content and query
// streams' group ids go to the model's `<=` group mask. Loss: the mean squared error between
// the query stream's last-layer output through the pixel head and the per-patch normalised
// pixels, over the patches of the predicted groups G_1 … G_K only (G_0, the condition, is the
// input: its patches are visible to every query, so predicting them would be copying).
// Each epoch: the test MSE over the predicted patches and over the last group G_K, with each
// test image's draw fixed at (seed, RNG_GVP, PIXEL_EVAL_DRAW, 0, image). At the end: reconstructions
// of a few test images (paper Fig. 2) and one drawn segmentation's masks (Fig. 1).
// objective.streams=1 (GVP Table 10's "+causal masks" row): no query stream; the content
// stream alone with its causal group mask, and the patch at position t of z predicted by the
// pixel head on the content token at position t - 1 (cls for t = 0), which sees z_<t but not
// which position comes next (the paper's A2 / XLNet argument). Only leak-free with one patch
// per group: fixed segmentation, K = N (G_0 = {cls}); anything else is refused.
#include "../objective.h"
#include "gvp.h"
#include "../pixel_eval.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int seg, ord, K, N, T, Ts, t0, D; // D = channels·p·p, Ts = T + N
    int streams;                      // 2: two streams; 1: the content stream alone (rows b·T + token)
    int *order, *cuts, *scratch;      // one image's draw (N), (K + 1), (N)
    int *group;                       // (max_batch, N) f of every patch of the last draw
    float *patch_targets;             // (N, D) one image's normalised patches (host)
    void *staged;                     // host, pinned, whole pages of its own: target_host and rows_host
    int *rows_host, *rows;            // (max_batch·N) logit rows b·Ts + T + n of the predicted patches
    int *row_group;                   // (max_batch·N) their group (host)
    float *target_host, *target;      // (max_batch·N, D)
    float *pred, *dpred, *losses;     // backend (max_batch·N, D), (max_batch·N, D), (max_batch·N)
    float *losses_host;               // (max_batch·N)
    double *kept;                     // (max_batch·N, 2) a test batch's losses and last-group flags
    int P, B;                         // predicted rows and images of the last forward
} gvp_state;

static int has_table(const posenc_kind *k) { return k->has_table; }

static const char *gvp_config_error(const objective_settings *s) {
    static char msg[512];
    const gvp_settings *own = OBJECTIVE_OWN(s, const gvp_settings);
    if (gvp_segmentation_parse(own->segmentation) < 0) {
        snprintf(msg, sizeof msg, "objective.segmentation=%s is not a segmentation (valid: fixed, random, mixed)",
                 own->segmentation ? own->segmentation : "");
        return msg;
    }
    if (gvp_order_parse(own->order) < 0) {
        snprintf(msg, sizeof msg, "objective.order=%s is not an order (valid: random, raster)", own->order ? own->order : "");
        return msg;
    }
    const posenc_kind *pe = posenc_find(s->pe_kind);
    if (!pe || !pe->has_table) {
        char valid[160];
        snprintf(msg, sizeof msg, "objective.name=gvp gives each query token the position encoding of the patch it "
                 "predicts, so it needs a table of positions: pe.kind=%s (valid with gvp: %s)", s->pe_kind,
                 posenc_names_where(has_table, valid, sizeof valid));
        return msg;
    }
    if (!s->cls)
        return "objective.name=gvp keeps the cls token in the condition group G_0, so every query sees at least one "
               "token: model.cls=false (valid with gvp: true)";
    if (s->patch > 0 && s->train_size > 0 && s->train_size % s->patch == 0) {
        int g = s->train_size / s->patch;
        const char *why = gvp_groups_error(gvp_segmentation_parse(own->segmentation), own->groups, g * g);
        if (why) return why;
        if (own->streams == 1 && (gvp_segmentation_parse(own->segmentation) != GVP_SEG_FIXED || own->groups != g * g)) {
            snprintf(msg, sizeof msg, "objective.streams=1 predicts each patch from the content token before it in the order z; "
                     "with groups of more than one patch that token sees the patch it predicts: objective.segmentation=%s "
                     "objective.groups=%d (valid with streams=1: segmentation fixed, groups %d, one patch per group)",
                     own->segmentation ? own->segmentation : "", own->groups, g * g);
            return msg;
        }
    } else if (own->groups < 1) {
        return "objective.groups must be >= 1";
    }
    return NULL;
}

// The pixel head on every token (only the query rows of predicted patches are read); the
// content tokens are the keys of every query (masked attention with all of them as context).
static void gvp_configure_model(const objective_settings *s, model_config *mc) {
    mc->request.token_head = 1;
    mc->request.head_name = "pixel_head";
    mc->request.token_outputs = mc->channels * mc->patch * mc->patch;
    mc->request.query_stream = 1;
    if (mc->patch > 0 && mc->image_size % mc->patch == 0) {
        int g = mc->image_size / mc->patch;
        mc->request.context_tokens = g * g + (mc->cls ? 1 : 0);
    }
}

// Per image beyond the content stream's forward and backward: the query stream's, a second pass
// through every block (its queries attend to the content keys), about one more forward's FLOPs.
static double gvp_train_extra_flops(const objective_settings *s, const model_config *mc) {
    return OBJECTIVE_OWN(s, const gvp_settings)->streams == 2 ? 3.0 * model_forward_flops(mc) : 0.0;
}

static void gvp_obj_create(objective *o) {
    gvp_state *st = xcalloc(1, sizeof *st, "gvp objective");
    model *m = o->model;
    const ops_backend *ops = o->ops;
    const gvp_settings *own = OBJECTIVE_OWN(&o->s, const gvp_settings);
    st->seg = gvp_segmentation_parse(own->segmentation);
    st->ord = gvp_order_parse(own->order);
    st->K = own->groups;
    st->streams = own->streams == 1 ? 1 : 2;
    st->N = m->N, st->t0 = m->t0, st->T = m->T, st->Ts = m->T + m->N;
    st->D = m->cfg.channels * m->cfg.patch * m->cfg.patch;
    const char *why = gvp_groups_error(st->seg, st->K, st->N);
    if (why) die_input("%s", why);
    size_t rows = (size_t)o->max_batch * st->N;
    st->order = xmalloc((size_t)st->N * sizeof(int), "GVP order");
    st->cuts = xmalloc((size_t)(st->K + 1) * sizeof(int), "GVP cut points");
    st->scratch = xmalloc((size_t)st->N * sizeof(int), "GVP draw scratch");
    st->group = xmalloc(rows * sizeof(int), "GVP groups");
    st->patch_targets = xmalloc((size_t)st->N * st->D * sizeof(float), "GVP patch targets");
    // The rows and targets prepare uploads, in one pinned block of whole pages (a pinned range
    // shares no page with another): uploaded asynchronously before each step, replayed or not.
    size_t staged = rows * sizeof(int) + rows * st->D * sizeof(float);
    st->staged = xmalloc_pages(staged, "GVP's staged rows and targets");
    ops->pin_host(st->staged, staged);
    st->target_host = st->staged;
    st->rows_host = (int *)(st->target_host + rows * st->D);
    st->row_group = xmalloc(rows * sizeof(int), "GVP predicted rows' groups");
    st->losses_host = xmalloc(rows * sizeof(float), "GVP per-patch losses (host)");
    st->kept = xmalloc(rows * 2 * sizeof(double), "GVP evaluation losses");
    st->rows = ops->alloc(rows * sizeof(int), "GVP predicted rows");
    st->target = ops->alloc(rows * st->D * sizeof(float), "GVP targets");
    st->pred = ops->alloc(rows * st->D * sizeof(float), "GVP predictions");
    st->dpred = ops->alloc(rows * st->D * sizeof(float), "GVP prediction gradients");
    st->losses = ops->alloc(rows * sizeof(float), "GVP per-patch losses");
    o->state = st;
}

static void gvp_obj_free(objective *o) {
    gvp_state *st = o->state;
    if (!st) return;
    free(st->order);
    free(st->cuts);
    free(st->scratch);
    free(st->group);
    free(st->patch_targets);
    o->ops->unpin_host(st->staged);
    free(st->staged);
    free(st->row_group);
    free(st->losses_host);
    free(st->kept);
    o->ops->free(st->rows);
    o->ops->free(st->target);
    o->ops->free(st->pred);
    o->ops->free(st->dpred);
    o->ops->free(st->losses);
    free(st);
}

// Draws each image's order and segmentation at (seed, RNG_GVP, epoch, step, first + b), writes
// the streams' group ids into the model's staging input and stages the predicted rows and their
// targets (uploaded from the pinned block): the query row of each predicted patch (two streams),
// or the content row of the token before it in z (one stream). st->P, the predicted rows, is the
// batch's: B·(N - n_0) with fixed segmentation, drawn with random and mixed.
static void prepare(objective *o, int B, uint32_t epoch, uint32_t step, uint32_t first) {
    gvp_state *st = o->state;
    model *m = o->model;
    int N = st->N, D = st->D, C = m->cfg.channels, S = m->image_size, p = m->cfg.patch;
    int *ids = model_groups(m);
    const float *images = model_images(m);
    st->P = 0, st->B = B;
    for (int b = 0; b < B; b++) {
        int *group = st->group + (size_t)b * N;
        gvp_draw(st->order, st->cuts, group, st->seg, st->ord, st->K, N, o->s.seed, epoch, step, first + (uint32_t)b,
                 st->scratch);
        if (st->streams == 2) gvp_stream_ids(ids + (size_t)b * st->Ts, group, N, st->t0);
        else gvp_content_ids(ids + (size_t)b * st->T, group, N, st->t0);
        for (int t = 0; t < N; t++) st->scratch[st->order[t]] = t; // position in z of each patch
        pixel_patch_targets(st->patch_targets, NULL, NULL, images + (size_t)b * C * S * S, C, S, p);
        for (int n = 0; n < N; n++) {
            if (group[n] == 0) continue;
            int t = st->scratch[n];
            st->rows_host[st->P] = st->streams == 2 ? b * st->Ts + st->T + n : b * st->T + (t == 0 ? 0 : st->t0 + st->order[t - 1]);
            st->row_group[st->P] = group[n];
            memcpy(st->target_host + (size_t)st->P * D, st->patch_targets + (size_t)n * D, (size_t)D * sizeof(float));
            st->P++;
        }
    }
    o->ops->upload(st->rows, st->rows_host, (size_t)st->P * sizeof(int));
    o->ops->upload(st->target, st->target_host, (size_t)st->P * D * sizeof(float));
}

// The two-stream forward of the staged batch: each predicted patch's loss in st->losses (st->P).
static void patch_losses(objective *o, int B, int training, rng_addr rng) {
    gvp_state *st = o->state;
    model *m = o->model;
    model_set_streams(m, st->streams == 2, ATTN_MASK_LE);
    const float *logits = model_forward(m, B, training, rng); // (B, Ts, D), one stream (B, T, D)
    o->ops->gather_tokens_forward(st->pred, logits, st->rows, 1, B * (st->streams == 2 ? st->Ts : st->T), st->P, st->D);
    o->ops->mse_forward(st->losses, st->pred, st->target, st->P, st->D);
}

// The mean loss over the predicted patches.
static double forward_loss(objective *o, int B, int training, rng_addr rng) {
    gvp_state *st = o->state;
    patch_losses(o, B, training, rng);
    return o->ops->sum(st->losses, (size_t)st->P) / st->P;
}

// The training step's draws (the step without host reads calls it before every step, replayed or
// not): waits for the previous step's uploads to have read the staging and the pinned block.
static void gvp_train_stage(objective *o, int B, rng_addr rng) {
    o->ops->upload_wait();
    prepare(o, B, rng.epoch, rng.step, rng.index); // rng.index: the micro-batch's first image (0 without train.accumulate)
}

static double gvp_train_forward(objective *o, int B, const int32_t *labels, rng_addr rng) {
    gvp_train_stage(o, B, rng);
    return forward_loss(o, B, 1, rng);
}

// The draws were staged by gvp_train_stage: nothing is drawn here; the mean stays on the backend
// (the same sum in the same order as forward_loss, divided by the same count).
static void gvp_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    gvp_state *st = o->state;
    patch_losses(o, B, 1, rng);
    o->ops->sum_to(loss, st->losses, (size_t)st->P, (double)st->P);
}

// The predicted patches (groups G_1 … G_K) of each image, the terms of its mean loss: N minus
// the patches of G_0, which varies per image with random and mixed segmentations (and is
// N - floor(N / (K + 1)) for every image with fixed segmentation: gvp_train_terms_vary). Drawn as
// prepare draws them (at index rng.index + b), so train.accumulate weights its micro-batches
// by their predicted patches (objective_kind.train_loss_terms).
static void gvp_train_loss_terms(objective *o, int B, const int32_t *labels, rng_addr rng, long *terms) {
    (void)labels;
    gvp_state *st = o->state;
    for (int b = 0; b < B; b++) {
        gvp_draw(st->order, st->cuts, st->group, st->seg, st->ord, st->K, st->N, o->s.seed, rng.epoch, rng.step,
                 rng.index + (uint32_t)b, st->scratch);
        long predicted = 0;
        for (int n = 0; n < st->N; n++) predicted += st->group[n] != 0;
        terms[b] = predicted;
    }
}

// Only fixed segmentation gives every image the same predicted patches, so a step's shapes are
// static (objective_kind.train_terms_vary): it replays as a graph; random and mixed draw them.
static int gvp_train_terms_vary(const objective_settings *s) {
    return gvp_segmentation_parse(OBJECTIVE_OWN(s, const gvp_settings)->segmentation) != GVP_SEG_FIXED;
}

static void gvp_train_backward(objective *o, int B) {
    gvp_state *st = o->state;
    model *m = o->model;
    o->ops->zero(st->dpred, (size_t)st->P * st->D);
    o->ops->mse_backward(st->dpred, st->pred, st->target, st->P, st->D, 1.0f / (float)st->P);
    o->ops->gather_tokens_backward(model_dlogits(m), st->dpred, st->rows, 1, B * (st->streams == 2 ? st->Ts : st->T), st->P, st->D);
    model_backward(m, B);
    model_set_streams(m, 0, ATTN_MASK_NONE);
}

// Test batch k's values: each predicted patch's loss and whether it is in the last group, kept
// per batch (the sum runs over every patch in turn, eval_shard_keep).
static void gvp_score(objective *o, eval_shard *sh, int k, int B) {
    (void)B;
    gvp_state *st = o->state;
    o->ops->download(st->losses_host, st->losses, (size_t)st->P * sizeof(float));
    for (int r = 0; r < st->P; r++) st->kept[2 * r] = st->losses_host[r], st->kept[2 * r + 1] = st->row_group[r] == st->K;
    eval_shard_keep(sh, k, st->kept, (size_t)st->P);
}

static const float *gvp_predictions(const objective *o, int *rows) {
    const gvp_state *st = o->state;
    *rows = st->P;
    return st->pred;
}

// Predicted rows are in (image, patch) order: image b's start after the earlier images' ones;
// its G_0 patches (the condition) are NULL.
static void gvp_patch_rows(const objective *o, int b, const float *pred, const float **patch_pred) {
    const gvp_state *st = o->state;
    size_t r = 0;
    for (size_t i = 0; i < (size_t)b * st->N; i++) r += st->group[i] > 0;
    for (int n = 0; n < st->N; n++) patch_pred[n] = st->group[(size_t)b * st->N + n] > 0 ? pred + r++ * st->D : NULL;
}

static void gvp_restore(objective *o) { model_set_streams(o->model, 0, ATTN_MASK_NONE); }

// The shared skeleton's GVP parts (objectives/pixel_eval.h); the input view is the condition:
// G_0's patches as they are, the rest 0.5 grey; every predicted patch reconstructed (Fig. 2).
static const pixel_eval gvp_eval = {
    .prepare = prepare, .forward_loss = forward_loss, .score = gvp_score, .predictions = gvp_predictions,
    .patch_rows = gvp_patch_rows, .restore = gvp_restore, .width = 2, .view_name = "condition",
};

// Test MSE over the predicted patches and over the last group's, each image's draw fixed: the
// patches' losses of every batch (the ranks share the batches: eval_shard.h), added patch after
// patch in batch order.
static eval_scores gvp_evaluate(objective *o, objective_env *env) {
    eval_shard sh;
    pixel_eval_test(o, env, &gvp_eval, &sh);
    size_t rows = 0;
    double *all = eval_shard_end_list(&sh, &rows), sum = 0.0, sum_last = 0.0;
    long rows_last = 0;
    for (size_t r = 0; r < rows; r++) { // in row order: the sum does not depend on threads or ranks
        sum += all[2 * r];
        if (all[2 * r + 1] != 0.0) sum_last += all[2 * r], rows_last++;
    }
    free(all);
    double mse = sum / (double)rows;
    return (eval_scores){{mse, sum_last / (double)rows_last}, mse};
}

// Reconstructions (paper Fig. 2) of the first eval.samples test images at their evaluation
// draw (pixel_eval_samples: original, condition view, reconstruction). Also one drawn
// segmentation's content and query masks (1 = may attend; paper Fig. 1) and its groups.
static void gvp_record_final(objective *o, objective_env *env, const eval_scores *last) {
    gvp_state *st = o->state;
    model *m = o->model;
    int g = m->grid, N = st->N;
    pixel_eval_samples(o, env, &gvp_eval);
    // One draw's masks over (cls, patches in raster order): content (T, T) and query (N, T).
    int T = st->T, Ts = st->Ts;
    int *ids = xmalloc((size_t)Ts * sizeof(int), "GVP ids");
    gvp_draw(st->order, st->cuts, st->group, st->seg, st->ord, st->K, N, o->s.seed, PIXEL_EVAL_DRAW, 0, 0, st->scratch);
    gvp_stream_ids(ids, st->group, N, st->t0);
    float *content = xmalloc((size_t)T * T * sizeof(float), "GVP content mask");
    float *query = xmalloc((size_t)N * T * sizeof(float), "GVP query mask");
    float *groups = xmalloc((size_t)N * sizeof(float), "GVP groups");
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) content[(size_t)i * T + j] = ids[j] <= ids[i] ? 1.0f : 0.0f;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < T; j++) query[(size_t)i * T + j] = ids[j] <= ids[T + i] ? 1.0f : 0.0f;
    for (int n = 0; n < N; n++) groups[n] = (float)st->group[n];
    int cd[2] = {T, T}, qd[2] = {N, T}, gd[2] = {g, g};
    record_f32(env->rec, "/gvp/content_mask", 2, cd, content);
    record_f32(env->rec, "/gvp/query_mask", 2, qd, query);
    record_f32(env->rec, "/gvp/groups", 2, gd, groups);
    record_int(env->rec, "/gvp", "groups", st->K);
    record_int(env->rec, "/gvp", "streams", st->streams); // 1: /gvp/query_mask is not used
    free(ids), free(content), free(query), free(groups);
}

static int gvp_train_keys(const objective *o) { return o->model->T; }

static int gvp_probe_full_default(const objective *o) {
    const char *mask = OBJECTIVE_OWN(&o->s, const gvp_settings)->probe_mask;
    return mask && !strcmp(mask, "full");
}

// The linear probe reads the content stream, under both protocols (objective.h): with the
// causal mask of pretraining kept (this view): each probe image's order and segmentation drawn
// at (seed, RNG_GVP, PIXEL_EVAL_DRAW + 1, 0, image index) (a training and a test image of the same
// index share a draw), content ids 2·f through the `<=` group mask; or with full attention, every
// content token seeing every other (the encoder as finetuning, the kNN probe and MAE's probe
// read it). objective.probe_mask says which one probe_* reports. B = 0 restores full attention.
static void gvp_probe_prepare(objective *o, int B, uint32_t first) {
    gvp_state *st = o->state;
    model *m = o->model;
    if (B == 0) {
        model_set_streams(m, 0, ATTN_MASK_NONE);
        return;
    }
    int *ids = model_groups(m);
    for (int b = 0; b < B; b++) {
        gvp_draw(st->order, st->cuts, st->group, st->seg, st->ord, st->K, st->N, o->s.seed, PIXEL_EVAL_DRAW + 1, 0,
                 first + (uint32_t)b, st->scratch);
        gvp_content_ids(ids + (size_t)b * st->T, st->group, st->N, st->t0);
    }
    model_set_streams(m, 0, ATTN_MASK_LE);
}

static const char *gvp_probe_stream(const objective *o, int masked) {
    (void)o;
    return !masked ? "the content stream with full attention (as finetuning, the kNN probe and MAE's probe read it)"
                   : "the content stream with the causal (group) mask kept: content token i sees j iff f(j) <= f(i), each "
                           "image's order and segmentation drawn at (seed, RNG_GVP, 0xE0000001, 0, image index)";
}

static const metric_info gvp_metrics[] = {
    {"pixel_mse", "", 1, -1, 0, NULL, -1, 50, 0, METRIC_SAMPLED},
    {"pixel_mse_last_group", "", 1, -1, 0, NULL, -1, 50, 0, METRIC_SAMPLED},
    {NULL},
};

static const cfg_key gvp_keys[] = {
    {"objective.groups", CFG_INT, "20", 1, 4096, NULL, 1, "GVP: predicted groups K after the condition group G_0 (fixed: up to N, the fully autoregressive case; random: up to N-1; mixed: up to round(N/2))"},
    {"objective.order", CFG_CHOICE, "random", 0, 0, "random|raster", 1, "GVP: order z of the patches: a random permutation per image, or raster order"},
    {"objective.segmentation", CFG_CHOICE, "mixed", 0, 0, "fixed|random|mixed", 1, "GVP: group segmentation: fixed (equal groups), random (K cut points uniform in [1, N-1]), mixed (last cut at round(p*N), p ~ N(0.5, std 0.1), the others uniform below it)"},
    {"objective.probe_mask", CFG_CHOICE, "causal", 0, 0, "causal|full", 1, "GVP: which protocol the linear probe's probe_* metrics (eval.linear_probe) report: the content stream with the causal group mask of pretraining kept (causal: each probe image's order and segmentation drawn as in evaluation) or with full attention (full: every token sees every other, as finetuning, the kNN probe and MAE's probe read it); both are recorded either way, labelled (probe_causal_top1, probe_full_top1, and with eval.probe_layers=all probe_causal_best_top1, probe_full_best_top1); the training is the same"},
    {"objective.streams", CFG_INT, "2", 1, 2, NULL, 1, "GVP: 2 = the two-stream model (content and query streams); 1 = one stream with the causal group mask (GVP Table 10's '+causal masks' row): each patch predicted from the content token before it in the order z, which cannot know which position it predicts; needs objective.segmentation=fixed and objective.groups = the number of patches"},
    {NULL},
};

static void gvp_read_settings(const key_reader *r, void *own) {
    _Static_assert(sizeof(gvp_settings) <= OBJECTIVE_OWN_BYTES, "raise OBJECTIVE_OWN_BYTES (objective.h)");
    gvp_settings *g = own;
    g->groups = (int)key_int(r, "objective.groups");
    g->segmentation = key_str(r, "objective.segmentation");
    g->order = key_str(r, "objective.order");
    g->streams = (int)key_int(r, "objective.streams");
    g->probe_mask = key_str(r, "objective.probe_mask");
}

const objective_kind objective_gvp = {
    .name = "gvp",
    .description = "two-stream group-wise pixel prediction pretraining",
    .metric_names = {"pixel_mse", "pixel_mse_last_group"},
    .metrics = gvp_metrics,
    .keys = gvp_keys,
    .read_settings = gvp_read_settings,
    .progress = "epoch %d/%d  loss %.4f  test pixel mse %.4f last group %.4f  (%.0f s)",
    .final_line = "final: pixel_mse=%.4f pixel_mse_last_group=%.4f time=%.0fs\n",
    .config_error = gvp_config_error,
    .configure_model = gvp_configure_model,
    .train_extra_flops = gvp_train_extra_flops,
    .create = gvp_obj_create,
    .free = gvp_obj_free,
    .train_forward = gvp_train_forward,
    .train_backward = gvp_train_backward,
    .train_forward_to = gvp_train_forward_to,
    .train_stage = gvp_train_stage,
    .train_loss_terms = gvp_train_loss_terms,
    .train_terms_vary = gvp_train_terms_vary,
    .evaluate = gvp_evaluate,
    .sharded_eval = 1,
    .record_final = gvp_record_final,
    .train_keys = gvp_train_keys,
    .probe_prepare = gvp_probe_prepare,
    .probe_full_default = gvp_probe_full_default,
    .probe_stream = gvp_probe_stream,
};
