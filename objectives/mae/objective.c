// objectives/mae/objective.c — objective.name=mae (docs/methods.md "MAE"): the position encoding is
// added to every patch (pe.kind, sin2d as MAE), then each training image keeps
// round((1-eta)·N) random patches (mae.h: argsort of noise drawn at (seed, RNG_MAE, epoch,
// step, image), so a resumed run draws the same); the encoder's blocks see cls and the kept
// patches only (model_config.request.keep_tokens: their activations are sized for them); its token
// head decoder_embed maps them to the decoder width, and the light decoder (objectives/mae/decoder.h)
// rebuilds every token with a learned mask token and its own sin2d. Loss: the mean squared
// error between the decoder's prediction and the per-patch normalised pixels
// (objectives/pixel_targets.h), over the masked patches only (mean over their pixels, then over
// the masked patches of the batch), as MAE's norm_pix_loss.
// Each epoch: the test MSE over the masked patches and over the kept ones (not trained on),
// each test image's draw fixed at (seed, RNG_MAE, PIXEL_EVAL_DRAW, 0, image). At the end:
// reconstructions of a few test images (original, masked input, reconstruction: MP3's
// /samples, MAE Fig. 2). `init:` finetuning loads the encoder; decoder_embed and decoder.*
// are not in the finetuned model and are left behind.
#include "../objective.h"
#include "mae.h"
#include "../pixel_eval.h"
#include "../pixel_targets.h"
#include "decoder.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int N, T, t0, K, Kt, Mk, D;      // patches, tokens, cls, kept patches, kept tokens, masked patches, C·p·p
    int *shuffle, *restore;          // (N) one image's draw
    float *noise;                    // (N)
    float *patch_targets;            // (N, D) one image's normalised patches (host)
    void *staged;                    // host, pinned, whole pages of its own: the four *_host arrays below
    int *rows_host, *rows;           // (max_batch·Mk) prediction rows b·T + t0 + n of the masked patches
    int *vrows_host, *vrows;         // (max_batch·K) the same for the kept patches
    float *target_host, *target;     // (max_batch·Mk, D)
    float *vtarget_host, *vtarget;   // (max_batch·K, D)
    float *pred, *dpred, *losses;    // backend (max_batch·Mk, D), (max_batch·Mk, D), (max_batch·Mk)
    float *vpred, *vlosses;          // backend (max_batch·K, D), (max_batch·K)
    float *losses_host;              // (max_batch·Mk) (also the kept patches' losses)
    const float *decoded;            // the last forward's predictions (B, T, D), backend
    int B;                           // images of the last prepare
} mae_state;

static int on_tokens(const posenc_kind *k) { return !posenc_in_attention(k); }

static const char *mae_config_error(const objective_settings *s) {
    const mae_settings *own = OBJECTIVE_OWN(s, const mae_settings);
    static char msg[512];
    const posenc_kind *pe = posenc_find(s->pe_kind);
    if (!pe || posenc_in_attention(pe)) {
        char valid[160];
        snprintf(msg, sizeof msg, "objective.name=mae adds the position encoding to the patches before dropping the masked "
                 "ones; pe.kind=%s acts inside attention on the full token grid (valid with mae: %s)", s->pe_kind,
                 posenc_names_where(on_tokens, valid, sizeof valid));
        return msg;
    }
    if (own->decoder_dim % 2 != 0 || (s->heads > 0 && own->decoder_dim % s->heads != 0)) {
        snprintf(msg, sizeof msg, "mae.decoder_dim=%d: the decoder's width must be even (its sin2d pairs cos and sin) and a "
                 "multiple of model.heads=%d (valid: e.g. %d)", own->decoder_dim, s->heads, 2 * (s->heads > 0 ? s->heads : 1));
        return msg;
    }
    if (own->decoder_depth < 1) {
        snprintf(msg, sizeof msg, "mae.decoder_depth=%d: the decoder needs at least one block (valid: >= 1)", own->decoder_depth);
        return msg;
    }
    if (s->eta <= 0.0) {
        snprintf(msg, sizeof msg, "objective.eta=%g: objective.name=mae predicts the masked patches, so some must be masked "
                 "(valid: eta > 0, e.g. MAE's 0.75)", s->eta);
        return msg;
    }
    if (s->patch > 0 && s->train_size > 0 && s->train_size % s->patch == 0) {
        int g = s->train_size / s->patch;
        return mae_ratio_error(g * g, s->eta);
    }
    return NULL;
}

// The encoder on cls + the kept patches, its token head decoder_embed (width mae.decoder_dim),
// and the decoder.
static void mae_configure_model(const objective_settings *s, model_config *mc) {
    const mae_settings *own = OBJECTIVE_OWN(s, const mae_settings);
    mc->request.token_head = 1;
    mc->request.head_name = "decoder_embed";
    mc->request.token_outputs = own->decoder_dim;
    mc->request.extension = &model_decoder_extension;
    mc->request.decoder_depth = own->decoder_depth;
    mc->request.decoder_dim = own->decoder_dim;
    if (mc->patch > 0 && mc->image_size % mc->patch == 0) {
        int g = mc->image_size / mc->patch, K = mae_kept_patches(g * g, s->eta);
        mc->request.keep_tokens = (mc->cls ? 1 : 0) + (K < 1 ? 1 : K);
    }
}

static void mae_obj_create(objective *o) {
    mae_state *st = xcalloc(1, sizeof *st, "mae objective");
    model *m = o->model;
    const ops_backend *ops = o->ops;
    st->N = m->N, st->T = m->T, st->t0 = m->t0;
    const char *why = mae_ratio_error(st->N, o->s.eta);
    if (why) die_input("%s", why);
    st->K = mae_kept_patches(st->N, o->s.eta), st->Kt = st->t0 + st->K, st->Mk = st->N - st->K;
    st->D = m->cfg.channels * m->cfg.patch * m->cfg.patch;
    size_t rows = (size_t)o->max_batch * st->Mk, vrows = (size_t)o->max_batch * st->K, D = (size_t)st->D;
    st->shuffle = xmalloc((size_t)st->N * sizeof(int), "MAE shuffle");
    st->restore = xmalloc((size_t)st->N * sizeof(int), "MAE restore");
    st->noise = xmalloc((size_t)st->N * sizeof(float), "MAE noise");
    st->patch_targets = xmalloc((size_t)st->N * D * sizeof(float), "MAE patch targets");
    // The rows and targets prepare uploads, in one pinned block of whole pages (a pinned range
    // shares no page with another): uploaded asynchronously before each step, replayed or not.
    size_t staged = (rows + vrows) * sizeof(int) + (rows + vrows) * D * sizeof(float);
    st->staged = xmalloc_pages(staged, "MAE's staged rows and targets");
    ops->pin_host(st->staged, staged);
    st->target_host = st->staged;
    st->vtarget_host = st->target_host + rows * D;
    st->rows_host = (int *)(st->vtarget_host + vrows * D);
    st->vrows_host = st->rows_host + rows;
    st->losses_host = xmalloc((rows > vrows ? rows : vrows) * sizeof(float), "MAE per-patch losses (host)");
    st->rows = ops->alloc(rows * sizeof(int), "MAE masked rows");
    st->vrows = ops->alloc(vrows * sizeof(int), "MAE kept rows");
    st->target = ops->alloc(rows * D * sizeof(float), "MAE targets");
    st->vtarget = ops->alloc(vrows * D * sizeof(float), "MAE kept targets");
    st->pred = ops->alloc(rows * D * sizeof(float), "MAE predictions");
    st->dpred = ops->alloc(rows * D * sizeof(float), "MAE prediction gradients");
    st->losses = ops->alloc(rows * sizeof(float), "MAE per-patch losses");
    st->vpred = ops->alloc(vrows * D * sizeof(float), "MAE kept predictions");
    st->vlosses = ops->alloc(vrows * sizeof(float), "MAE kept per-patch losses");
    o->state = st;
}

static void mae_obj_free(objective *o) {
    mae_state *st = o->state;
    if (!st) return;
    free(st->shuffle), free(st->restore), free(st->noise), free(st->patch_targets);
    const ops_backend *ops = o->ops;
    ops->unpin_host(st->staged);
    free(st->staged), free(st->losses_host);
    ops->free(st->rows), ops->free(st->vrows), ops->free(st->target), ops->free(st->vtarget);
    ops->free(st->pred), ops->free(st->dpred), ops->free(st->losses), ops->free(st->vpred), ops->free(st->vlosses);
    free(st);
}

// Draws each image's shuffle at (seed, RNG_MAE, epoch, step, first + b): the kept tokens (cls,
// then the first K of the shuffle) go to model_keep, the masked ones to decoder_masked; the
// prediction rows and normalised targets of the masked (and kept) patches are staged.
static void prepare(objective *o, int B, uint32_t epoch, uint32_t step, uint32_t first) {
    mae_state *st = o->state;
    model *m = o->model;
    int N = st->N, T = st->T, t0 = st->t0, K = st->K, Mk = st->Mk, D = st->D;
    int C = m->cfg.channels, S = m->image_size, p = m->cfg.patch;
    int *keep = model_keep(m), *masked = decoder_masked(m);
    const float *images = model_images(m);
    st->B = B;
    for (int b = 0; b < B; b++) {
        mae_shuffle(st->shuffle, st->restore, st->noise, N, o->s.seed, epoch, step, first + (uint32_t)b);
        pixel_patch_targets(st->patch_targets, NULL, NULL, images + (size_t)b * C * S * S, C, S, p);
        int *kb = keep + (size_t)b * st->Kt;
        if (t0) kb[0] = 0;
        for (int j = 0; j < N; j++) {
            int n = st->shuffle[j], kept = j < K;
            size_t r = kept ? (size_t)b * K + j : (size_t)b * Mk + (j - K);
            if (kept) kb[t0 + j] = t0 + n;
            else masked[(size_t)b * Mk + (j - K)] = t0 + n;
            (kept ? st->vrows_host : st->rows_host)[r] = b * T + t0 + n;
            memcpy((kept ? st->vtarget_host : st->target_host) + r * D, st->patch_targets + (size_t)n * D,
                   (size_t)D * sizeof(float));
        }
    }
    o->ops->upload(st->rows, st->rows_host, (size_t)B * Mk * sizeof(int));
    o->ops->upload(st->target, st->target_host, (size_t)B * Mk * D * sizeof(float));
    o->ops->upload(st->vrows, st->vrows_host, (size_t)B * K * sizeof(int));
    o->ops->upload(st->vtarget, st->vtarget_host, (size_t)B * K * D * sizeof(float));
}

// Encoder on the kept tokens, decoder on every token; the per-patch losses (B·Mk) of the masked
// patches in st->losses; returns their count.
static int patch_losses(objective *o, int B, int training, rng_addr rng) {
    mae_state *st = o->state;
    model *m = o->model;
    int P = B * st->Mk;
    model_set_keep(m, st->Kt);
    model_forward(m, B, training, rng);
    st->decoded = decoder_forward(m, B); // (B, T, D)
    o->ops->gather_tokens_forward(st->pred, st->decoded, st->rows, 1, B * st->T, P, st->D);
    o->ops->mse_forward(st->losses, st->pred, st->target, P, st->D);
    return P;
}

// The mean loss over the masked patches.
static double forward_loss(objective *o, int B, int training, rng_addr rng) {
    int P = patch_losses(o, B, training, rng);
    return o->ops->sum(((mae_state *)o->state)->losses, (size_t)P) / P;
}

// The training step's draws (the step without host reads calls it before every step, replayed or
// not): waits for the previous step's uploads to have read the staging and the pinned block.
static void mae_train_stage(objective *o, int B, rng_addr rng) {
    o->ops->upload_wait();
    prepare(o, B, rng.epoch, rng.step, rng.index); // rng.index: the micro-batch's first image (0 without train.accumulate)
}

static double mae_train_forward(objective *o, int B, const int32_t *labels, rng_addr rng) {
    mae_train_stage(o, B, rng);
    return forward_loss(o, B, 1, rng);
}

// The draws were staged by mae_train_stage: nothing is drawn here; the mean stays on the backend.
static void mae_train_forward_to(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss) {
    int P = patch_losses(o, B, 1, rng);
    o->ops->sum_to(loss, ((mae_state *)o->state)->losses, (size_t)P, (double)P);
}

static void mae_train_backward(objective *o, int B) {
    mae_state *st = o->state;
    model *m = o->model;
    int P = B * st->Mk;
    o->ops->zero(st->dpred, (size_t)P * st->D);
    o->ops->mse_backward(st->dpred, st->pred, st->target, P, st->D, 1.0f / (float)P);
    o->ops->gather_tokens_backward(decoder_dpred(m), st->dpred, st->rows, 1, B * st->T, P, st->D);
    decoder_backward(m, B);
    model_backward(m, B);
    model_set_keep(m, 0);
}

// Sum of the per-patch losses (downloaded, added in row order: independent of threads).
static double host_sum(objective *o, const float *losses, int n) {
    mae_state *st = o->state;
    o->ops->download(st->losses_host, losses, (size_t)n * sizeof(float));
    double sum = 0.0;
    for (int r = 0; r < n; r++) sum += st->losses_host[r];
    return sum;
}

// Test batch k's sums: the masked patches' loss (the forward's) and the kept patches' (not
// trained on), each added in row order on the host.
static void mae_score(objective *o, eval_shard *sh, int k, int B) {
    mae_state *st = o->state;
    double *row = eval_shard_row(sh, k);
    row[0] = host_sum(o, st->losses, B * st->Mk);
    o->ops->gather_tokens_forward(st->vpred, st->decoded, st->vrows, 1, B * st->T, B * st->K, st->D);
    o->ops->mse_forward(st->vlosses, st->vpred, st->vtarget, B * st->K, st->D);
    row[1] = host_sum(o, st->vlosses, B * st->K);
}

static const float *mae_predictions(const objective *o, int *rows) {
    const mae_state *st = o->state;
    *rows = st->B * st->Mk;
    return st->pred;
}

// Image b's masked row j predicts patch rows_host - b·T - t0; its kept patches are NULL.
static void mae_patch_rows(const objective *o, int b, const float *pred, const float **patch_pred) {
    const mae_state *st = o->state;
    for (int n = 0; n < st->N; n++) patch_pred[n] = NULL;
    for (int j = 0; j < st->Mk; j++)
        patch_pred[st->rows_host[(size_t)b * st->Mk + j] - b * st->T - st->t0] = pred + ((size_t)b * st->Mk + j) * st->D;
}

static void mae_restore(objective *o) { model_set_keep(o->model, 0); }

// The shared skeleton's MAE parts (objectives/pixel_eval.h); the input view is the masked one:
// kept patches as they are, the rest 0.5 grey; every masked patch reconstructed (MAE Fig. 2).
static const pixel_eval mae_eval = {
    .prepare = prepare, .forward_loss = forward_loss, .score = mae_score, .predictions = mae_predictions,
    .patch_rows = mae_patch_rows, .restore = mae_restore, .width = 2, .view_name = "masked",
};

// Test MSE over the masked patches and over the kept ones, each image's draw fixed.
static eval_scores mae_evaluate(objective *o, objective_env *env) {
    mae_state *st = o->state;
    int n = env->test_n;
    eval_shard sh; // per batch: the masked and the kept patches' loss sums (the ranks share the batches)
    pixel_eval_test(o, env, &mae_eval, &sh);
    double sums[2];
    eval_shard_end(&sh, sums);
    double sum = sums[0], vsum = sums[1];
    double mse = sum / ((double)n * st->Mk);
    return (eval_scores){{mse, vsum / ((double)n * st->K)}, mse};
}

// The masking's sizes, then reconstructions (MAE Fig. 2) of the first eval.samples test images
// at their evaluation draw (pixel_eval_samples: original, masked input, reconstruction).
static void mae_record_final(objective *o, objective_env *env, const eval_scores *last) {
    mae_state *st = o->state;
    record_int(env->rec, "/mae", "kept_patches", st->K);
    record_int(env->rec, "/mae", "patches", st->N);
    record_double(env->rec, "/mae", "mask_ratio", o->s.eta);
    pixel_eval_samples(o, env, &mae_eval);
}

static int mae_train_keys(const objective *o) { return ((const mae_state *)o->state)->Kt; }

static const metric_info mae_metrics[] = {
    {"pixel_mse", "", 1, -1, 0, NULL, -1, 50, 0, METRIC_SAMPLED},
    {"pixel_mse_visible", "", 1, -1, 0, NULL, -1, 50, 0, METRIC_SAMPLED},
    {NULL},
};

static const cfg_key mae_keys[] = {
    {"mae.decoder_depth", CFG_INT, "2", 1, 64, NULL, 1, "MAE: blocks of the light decoder (the backbone's blocks, heads and mlp_ratio as the encoder's)"},
    {"mae.decoder_dim", CFG_INT, "64", 2, 8192, NULL, 1, "MAE: width of the light decoder (even, a multiple of model.heads); the encoder's token head decoder_embed maps to it"},
    {NULL},
};

static void mae_read_settings(const key_reader *r, void *own) {
    _Static_assert(sizeof(mae_settings) <= OBJECTIVE_OWN_BYTES, "raise OBJECTIVE_OWN_BYTES (objective.h)");
    mae_settings *m = own;
    m->decoder_depth = (int)key_int(r, "mae.decoder_depth");
    m->decoder_dim = (int)key_int(r, "mae.decoder_dim");
}

const objective_kind objective_mae = {
    .name = "mae",
    .description = "masked autoencoder pretraining: encoder on the kept patches, light decoder, pixel MSE on the masked ones",
    .metric_names = {"pixel_mse", "pixel_mse_visible"},
    .metrics = mae_metrics,
    .keys = mae_keys,
    .read_settings = mae_read_settings,
    .progress = "epoch %d/%d  loss %.4f  test pixel mse %.4f (kept patches %.4f)  (%.0f s)",
    .final_line = "final: pixel_mse=%.4f pixel_mse_visible=%.4f time=%.0fs\n",
    .config_error = mae_config_error,
    .configure_model = mae_configure_model,
    .create = mae_obj_create,
    .free = mae_obj_free,
    .train_forward = mae_train_forward,
    .train_forward_to = mae_train_forward_to,
    .train_stage = mae_train_stage,
    .train_backward = mae_train_backward,
    .evaluate = mae_evaluate,
    .sharded_eval = 1,
    .record_final = mae_record_final,
    .train_keys = mae_train_keys,
};
