// bench/train/train_plan.c — the crosscheck plan of a run (train_options.plan_path): everything
// an independent trainer needs to train the same configuration on the same data in the same
// order (bench/crosscheck/torch_train.py reads it), written as a tensorfile (core/tensorfile.h)
// instead of training:
//   data.train.pixels u8 (n, C, H, W), data.train.labels i32 (n): the training rows after
//       data.limit / data.labeled_fraction; data.test.* the same for the evaluation rows after
//       data.test_limit (data.test_split=train: the training images); data.mean, data.std f32
//       (C): images are (pixel/255 − mean)/std
//   order i32 (steps, B): the training rows of every step's batch (the epoch permutations)
//   augment i32 (steps, B, 3): dy, dx, flip of every image (datasets/dataset.h
//       dataset_augment_draw: output (y, x) reads source (y + dy, x' + dx), black outside,
//       x' = W − 1 − x when flip)
//   param.<name> f32: the initial weights (the model's names, = tests/torch_vit.py's), and
//       decay.<name> (f64 scalar, 1: AdamW weight decay applies)
//   sizes i32 (steps): every step's training image size in px (data.resolution, or UniViT's
//       per-batch draw from data.resolutions): the augmented, normalised native image is resized
//       bicubically (align_corners false, no antialiasing: core/resize.c) when it differs;
//       eval_sizes i32 (n): eval.resolutions, where top-1 is also measured (may be empty)
//   context i32 (steps, B, M) (MP3 only): every step's context tokens of each image, as the
//       training loop draws them (objectives/mp3: cls first, then the sorted context patches as
//       token indices; M = cls + round((1 − η)·N)), the keys and values of every layer. The
//       test evaluation draws nothing: position top-1 at test η 0 has every token in the
//       context (full attention), over all patches and over non-blank ones (blank: each channel
//       constant over the patch of the normalised image at the training size, as
//       mp3_count_positions sees it)
//   config.<key> (f64 scalars): patch dim depth heads mlp_ratio cls num_classes image_size
//       (the training size: data.resolution or the dataset's; evaluations at top1 run there)
//       channels; pe_<kind> for every kind the PyTorch trainer has (encoding.h crosscheck_ok:
//       pe_abs pe_sin1d pe_sin2d pe_cape pe_relbias pe_rope; one is 1 unless none), rope_dims, rope_base, cape_global_shift cape_local_shift (resolved at the training size: 1/grid for
//       -1) cape_local_default (1: it was -1, so 1/grid of each batch's grid) cape_scale (rope_*
//       and cape_*: the keys' defaults when the run's encoding is another: models/posenc/rope.h, cape.h),
//       content_scale, drop_path, label_smoothing; lr min_lr weight_decay beta1 beta2 eps clip
//       warmup_steps total_steps steps_per_epoch batch eval_batch seed; then the objective's own
//       (objective_crosscheck.plan): label_smoothing; MP3: mp3 = 1, eta, position_limit (position
//       accuracy at test η 0 on the first N test images)
// Configurations the independent trainer does not implement are refused (exit 2 naming the
// key): an objective without objective_kind.crosscheck (or settings its config_error refuses,
// e.g. MP3's reference points), blocks without backbone_kind.crosscheck_ok, an encoding without
// posenc_kind.crosscheck_ok, dropout, UniViT with an encoding that is not `resizable` (tied to
// one grid: relbias, rope, sin1d; abs is resized like posbench's), sequences.
#include "train_data.h"
#include "../../core/common.h"
#include "../../core/tensorfile.h"
#include "../../models/posenc/cape.h"
#include "../../models/posenc/rope.h"
#include "../../models/posenc/tables.h"
#include <stdlib.h>
#include <string.h>

static void scalar(tensorfile *tf, const char *key, double v) {
    char name[96];
    int one[1] = {1};
    snprintf(name, sizeof name, "config.%s", key);
    tf_add(tf, name, TF_F64, 1, one, &v);
}

static int crosscheck_ok(const posenc_kind *k) { return k->crosscheck_ok; }
static int resizable(const posenc_kind *k) { return k->crosscheck_ok && k->resizable; }

static void refuse_unsupported(const run *r) {
    const model_config *mc = &r->model.cfg;
    const objective_kind *k = objective_find(r->settings.name);
    if (!k || !k->crosscheck) {
        char valid[160] = "";
        for (int i = 0; objective_at(i); i++)
            if (objective_at(i)->crosscheck)
                snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", valid[0] ? ", " : "", objective_at(i)->name);
        die_input("crosscheck: objective.name=%s: the PyTorch trainer does not implement it (valid: %s)", r->settings.name, valid);
    }
    const char *why = k->crosscheck->config_error ? k->crosscheck->config_error(&r->settings) : NULL;
    if (why) die_input("crosscheck: %s", why);
    if (!r->model.arch->crosscheck_ok)
        die_input("crosscheck: model.arch=%s: the PyTorch trainer does not have these blocks", r->model.arch->name);
    if (mc->dropout > 0) die_input("crosscheck: model.dropout=%g: the PyTorch trainer has no dropout (use 0)", mc->dropout);
    if (mc->features > 0) die_input("crosscheck: data.name=%s: the PyTorch trainer takes images only", r->trainer.data_name);
    if (r->accumulate > 1)
        die_input("crosscheck: train.accumulate=%d: the PyTorch trainer takes one step per whole batch (use 1)", r->accumulate);
    char valid[160];
    if (!r->model.pe->crosscheck_ok)
        die_input("crosscheck: pe.kind=%s: the PyTorch trainer does not have this encoding (valid: %s)", r->model.pe->name,
                  posenc_names_where(crosscheck_ok, valid, sizeof valid));
    if (r->n_univit > 0 && !r->model.pe->resizable)
        die_input("crosscheck: data.resolutions with pe.kind=%s: the PyTorch trainer changes the grid per batch only for "
                  "positions on [-1, 1] and the bicubically resized abs table (valid: %s)", r->model.pe->name,
                  posenc_names_where(resizable, valid, sizeof valid));
}

static void add_split(tensorfile *tf, const char *split, const dataset *ds) {
    char name[64];
    int pdims[4] = {ds->n, ds->channels, ds->height, ds->width}, ldims[1] = {ds->n};
    snprintf(name, sizeof name, "data.%s.pixels", split);
    tf_add(tf, name, TF_U8, 4, pdims, ds->pixels);
    snprintf(name, sizeof name, "data.%s.labels", split);
    tf_add(tf, name, TF_I32, 1, ldims, ds->labels);
}

int train_plan_write(run *r, const char *path) {
    refuse_unsupported(r);
    const model *m = &r->model;
    const model_config *mc = &m->cfg;
    tensorfile tf;
    tf_init(&tf);
    add_split(&tf, "train", &r->train);
    add_split(&tf, "test", &r->test);
    int cdims[1] = {r->train.channels};
    tf_add(&tf, "data.mean", TF_F32, 1, cdims, r->train.mean);
    tf_add(&tf, "data.std", TF_F32, 1, cdims, r->train.std);

    // Every step's rows and augmentation draws, exactly as the training loop makes them.
    augment_config aug = {.crop_pad = r->trainer.crop_pad, .hflip = r->trainer.hflip};
    int B = r->batch;
    int32_t *order = xmalloc((size_t)r->total_steps * B * sizeof(int32_t) + 1, "plan order");
    int32_t *sizes = xmalloc((size_t)r->total_steps * sizeof(int32_t) + 1, "plan sizes");
    int32_t *draws = xmalloc((size_t)r->total_steps * B * 3 * sizeof(int32_t) + 1, "plan augmentation");
    for (long step = 0; step < r->total_steps; step++) {
        int epoch = (int)(step / r->steps_per_epoch), in_epoch = (int)(step % r->steps_per_epoch);
        if (in_epoch == 0) train_epoch_order(r, epoch);
        sizes[step] = r->n_univit > 0 ? resize_draw_size(r->univit, r->n_univit, r->seed, (uint32_t)epoch, (uint32_t)in_epoch)
                                      : r->train_size; // as train_step draws it
        for (int b = 0; b < B; b++) {
            int32_t *d = draws + ((size_t)step * B + b) * 3;
            order[(size_t)step * B + b] = r->order[(size_t)in_epoch * B + b];
            int dy, dx, flip;
            dataset_augment_draw(&aug, r->seed, (uint32_t)epoch, (uint32_t)in_epoch, b, &dy, &dx, &flip);
            d[0] = dy, d[1] = dx, d[2] = flip;
        }
    }
    int odims[2] = {(int)r->total_steps, B}, adims[3] = {(int)r->total_steps, B, 3};
    tf_add(&tf, "order", TF_I32, 2, odims, order);
    tf_add(&tf, "augment", TF_I32, 3, adims, draws);
    tf_add(&tf, "sizes", TF_I32, 1, odims, sizes);
    int edims[1] = {r->settings.n_eval_sizes};
    int32_t eval_sizes[OBJECTIVE_MAX_SIZES + 1];
    for (int e = 0; e < r->settings.n_eval_sizes; e++) eval_sizes[e] = r->settings.eval_sizes[e];
    tf_add(&tf, "eval_sizes", TF_I32, 1, edims, eval_sizes);
    // The objective's draws (MP3: every step's context) and scalars.
    objective_find(r->settings.name)->crosscheck->plan(&r->settings, m, r->total_steps, r->steps_per_epoch, B, &tf);

    // The initial weights, from the backend.
    float *host = xmalloc(m->params.total * sizeof(float) + 1, "plan weights");
    m->ops->download(host, m->param, m->params.total * sizeof(float));
    for (int i = 0; i < m->params.count; i++) {
        const tensor_info *info = &m->params.items[i];
        char name[TENSOR_NAME_MAX + 16];
        snprintf(name, sizeof name, "param.%s", info->name);
        tf_add(&tf, name, TF_F32, info->ndim, info->shape, host + info->offset);
        double decay = info->decay;
        int one[1] = {1};
        snprintf(name, sizeof name, "decay.%s", info->name);
        tf_add(&tf, name, TF_F64, 1, one, &decay);
    }

    scalar(&tf, "patch", mc->patch), scalar(&tf, "dim", mc->dim), scalar(&tf, "depth", mc->depth);
    scalar(&tf, "heads", mc->heads), scalar(&tf, "mlp_ratio", mc->mlp_ratio), scalar(&tf, "cls", mc->cls);
    scalar(&tf, "num_classes", mc->num_classes), scalar(&tf, "image_size", r->train_size);
    scalar(&tf, "channels", mc->channels);
    for (int i = 0; i < posenc_count(); i++) { // pe_<kind>: 1 for the run's encoding, 0 for the others the trainer has
        const posenc_kind *k = posenc_at(i);
        char name[64];
        snprintf(name, sizeof name, "pe_%s", k->name);
        if (k->positional && k->crosscheck_ok) scalar(&tf, name, k == m->pe);
    }
    const posenc_rope_settings rope = posenc_rope_settings_of(mc); // the run's, or the keys' defaults
    const posenc_cape_settings cape = posenc_cape_settings_of(mc);
    scalar(&tf, "rope_dims", rope.dims), scalar(&tf, "rope_base", rope.base);
    scalar(&tf, "cape_global_shift", cape.global_shift);
    scalar(&tf, "cape_local_shift", cape.local_shift < 0 ? cape_default_local_shift(m->grid) : cape.local_shift);
    scalar(&tf, "cape_local_default", cape.local_shift < 0);
    scalar(&tf, "cape_scale", cape.scale);
    scalar(&tf, "content_scale", mc->content_scale != 0.0f ? mc->content_scale : 1.0);
    scalar(&tf, "drop_path", mc->drop_path);
    const optim_config *o = &r->optim;
    scalar(&tf, "lr", o->lr), scalar(&tf, "min_lr", o->min_lr), scalar(&tf, "weight_decay", o->weight_decay);
    scalar(&tf, "beta1", o->beta1), scalar(&tf, "beta2", o->beta2), scalar(&tf, "eps", o->eps), scalar(&tf, "clip", o->clip);
    scalar(&tf, "warmup_steps", (double)o->warmup_steps), scalar(&tf, "total_steps", (double)r->total_steps);
    scalar(&tf, "steps_per_epoch", r->steps_per_epoch), scalar(&tf, "batch", B), scalar(&tf, "eval_batch", r->eval_batch);
    scalar(&tf, "seed", r->seed);

    char err[1024];
    int rc = tf_write(&tf, path, err, sizeof err);
    tf_free(&tf);
    free(order), free(sizes), free(draws), free(host);
    if (rc != 0) die_code(rc, "crosscheck plan: %s", err);
    printf("crosscheck plan: %s (%ld steps of %d, %d train / %d test images, %d parameter tensors)\n", vis(path), r->total_steps, B,
           r->train.n, r->test.n, m->params.count);
    return 0;
}
