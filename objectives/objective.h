// objectives/objective.h — the objective interface, as core/ops.h is for ops: one table entry
// per objective (OBJECTIVE_KINDS below), each in its own module (objectives/<name>/), owning
// its configuration rules, what it asks of the backbone (head, masked context, reference
// tokens), its batch preparation, its loss forward/backward, its per-epoch evaluation and
// what it records at the end of a run. The trainer (bench/train) calls through the table and
// has no per-objective code; the experiment checker calls config_error before anything runs.
// Memory: an objective holds backend pointers for its tensors (ops->alloc) and reads results
// back with explicit downloads (losses come back through ops->sum, accuracy through
// ops->class_rank / ops->argmax_rows).
#pragma once
#include "../models/model.h"
#include "../core/tensorfile.h"
#include "../core/keys.h"
#include "../core/optimizer.h"
#include "metric.h"
#include "record.h"
#include <stdint.h>

struct dataset; // datasets/dataset.h

#define OBJECTIVE_MAX_SIZES 32
#define OBJECTIVE_OWN_BYTES 64 // the largest objective-own settings struct (each asserts it fits)

typedef struct { // the run's settings objectives read (plain values: bench fills them from the config)
    const char *name;          // objective.name
    const char *pe_kind;       // pe.kind
    double eta;                // objective.eta
    double ref_fraction;       // objective.ref_fraction
    double label_smoothing;    // objective.label_smoothing
    int train_sizes;           // data.resolutions: sizes drawn per batch (0: one training size)
    int eval_sizes[OBJECTIVE_MAX_SIZES], n_eval_sizes; // eval.resolutions (+ the training size with TTA only)
    int tta_delta;             // eval.tta_delta
    int train_size;            // the training image size in px (0: not known yet)
    int patch;                 // model.patch
    int position_limit;        // eval.position_limit
    int samples;               // eval.samples
    uint32_t seed;             // train.seed
    int cls;                   // model.cls
    int text_data;             // data.name=text: the input is byte tokens, for objective.name=mlm only
    int heads;                 // model.heads
    int linear_probe;          // eval.linear_probe
    int knn;                   // eval.knn
    const char *data_name;     // data.name
    int data_unlabeled;        // 1: the data has no class labels (datasets/registry.h: text); 0 (a zeroed settings): labelled
    int data_audio;            // 1: the data is speech (MFCC frames), not images (datasets/registry.h)
    int batch;                 // train.batch (0: not known)
    long total_steps;          // the run's optimizer steps, and steps per epoch (bench/train: 0 where no run is set up)
    int steps_per_epoch;
    // The objective's own settings (objective_kind.read_settings from its own keys), e.g.
    // objectives/gvp/gvp.h gvp_settings: read through OBJECTIVE_OWN(s, type).
    _Alignas(8) unsigned char own[OBJECTIVE_OWN_BYTES];
} objective_settings;
#define OBJECTIVE_OWN(s, type) ((type *)(void *)(s)->own)

// One evaluation: the two metrics the kind names (metric_names) and the mean loss.
typedef struct { double metric[2], loss; } eval_scores;

// What the trainer lends an objective for its evaluations.
typedef struct objective_env {
    void *trainer;
    // Test images [first, first + B) at `size` px, no augmentation, into the model's staging
    // input (model_images) and their labels into `labels`; sets the model to that size.
    void (*load_test)(struct objective_env *env, int first, int B, int size);
    int test_n, eval_batch;
    const int32_t *labels;                // (eval_batch) host labels of the last load_test
    const float *pixel_mean, *pixel_std;  // per channel: staging images back to pixel units
    const record_sink *rec;
    const struct dataset *test_data;      // the evaluation set load_test reads (raw images: own views)
    // A sharded evaluation (objectives/eval_shard.h; only for a kind with sharded_eval): every
    // rank of a run across processes calls evaluate at once, shard_ranks > 1, and each evaluates
    // its share of the batches; shard_sum_f64 is the communicator's rank-ordered sum. 0 / NULL:
    // this process evaluates everything.
    int shard_rank, shard_ranks;
    void (*shard_sum_f64)(double *buf, size_t n);
} objective_env;

typedef struct objective objective;

// What the trainer hands an objective that makes its own views (objective_kind.train_views)
// each training step, in place of the augmented staging batch: the raw images of the step and
// the RNG address its draws hang on (datasets/views.h: view_draw at (rng.seed, RNG_VIEWS,
// rng.epoch, rng.step, b) for image b of the batch), so a resumed run draws the same views.
typedef struct objective_batch {
    const struct dataset *data; // the training set (datasets/dataset.h), raw (uint8) images and labels
    const int *indices;         // (B) the step's images: rows of data, in the epoch's order
    int B;                      // train.batch
    rng_addr rng;               // seed = train.seed, epoch, step in the epoch, index 0
} objective_batch;

// What the independent PyTorch trainer (bench/crosscheck/torch_train.py) needs of an objective
// it implements: bench/train/train_plan.c writes the plan, bench/crosscheck compares the metric.
typedef struct objective_crosscheck {
    // The /final metrics both trainers report, the default first, ended by NULL; "top1@" stands
    // for top1 at a size of eval.resolutions ("top1@20").
    const char *metrics[4];
    // NULL when the PyTorch trainer can run these settings, else why (naming the key and what is valid).
    const char *(*config_error)(const objective_settings *s);
    // The objective's part of the plan (bench/train/train_plan.c, whose header lists the plan's
    // entries): its per-step draws for `steps` steps of B images (steps_per_epoch per epoch) on
    // model m as the training loop draws them, and its config.<key> scalars.
    void (*plan)(const objective_settings *s, const model *m, long steps, int steps_per_epoch, int B, tensorfile *tf);
} objective_crosscheck;

typedef struct objective_kind {
    const char *name;                // objective.name
    const char *description;         // one line: objective.name's help and docs/keys.md list it
    const char *metric_names[2];     // evaluate's metrics: /eval columns and /final attributes
    // Every /final metric the objective records (metric_names' first), ended by {NULL}: units,
    // direction, labels, how the report shows them (objectives/metric.h).
    const metric_info *metrics;
    // Its own configuration keys (ended by {NULL}), gathered into the key table
    // (bench/config/config.c); NULL: none besides objective_common_keys.
    const cfg_key *keys;
    // Reads its own settings (keys) into o->s.own (at most OBJECTIVE_OWN_BYTES; NULL: none).
    void (*read_settings)(const key_reader *r, void *own);
    int text_input;                  // 1: trains on byte tokens (data.name=text) only; 0: on images or speech only
    // Capabilities: what the trainer, the checker and crosscheck ask instead of comparing names.
    int needs_labels;                // 1: trains on class labels (0: pretraining, labels unused)
    int speech_ok;                   // 1: a keyword classifier: scores speech test variants (eval.speech_durations, eval.speech_rates)
    // Rules every objective shares, checked once by objective_config_error from these flags
    // (a zeroed kind: no reference tokens, one size, any data of its text_input kind):
    int reference_tokens;            // 1: objective.ref_fraction > 0 is its own to judge (MP3); 0: refused
    int multi_size;                  // 1: data.resolutions, eval.resolutions and eval.tta_delta apply; 0: refused
    const char *one_size_why;        // multi_size 0: what makes it one size, said after its name ("" or NULL: nothing)
    int images_only;                 // 1: draws its own views of images, so refuses speech (and text: text_input)
    int timm_vit;                    // 1: adds no parameter timm's VisionTransformer lacks (crosscheck --init timm)
    const objective_crosscheck *crosscheck; // NULL: the PyTorch trainer does not implement it
    // The metrics reach these formats in their unit (stored value x metrics' scale: top1 as %).
    const char *progress;            // printf format of the per-epoch line: epoch, epochs, loss, metric 0, 1, seconds
    const char *final_line;          // printf format of the last line: metric 0, metric 1, seconds
    // NULL when the settings go together, else why (naming the keys and what is valid).
    const char *(*config_error)(const objective_settings *s);
    // What the objective asks of the backbone: its head, masked context, reference tokens.
    void (*configure_model)(const objective_settings *s, model_config *mc);
    void (*create)(objective *o); // o->model, o->ops, o->s and o->max_batch are set
    void (*free)(objective *o);
    // One training step's forward (batch already in the model's staging input, labels on the
    // host): draws what the objective needs for (epoch, step), runs the model, returns the
    // mean loss. train_backward: the loss's gradient through the model (parameter gradients
    // accumulate; the caller zeroed them). Both NULL for an objective with train_views below
    // (train_backward may be set with train_stage_views).
    double (*train_forward)(objective *o, int B, const int32_t *labels, rng_addr rng);
    void (*train_backward)(objective *o, int B);
    // Optional: train_forward with the mean loss written to `loss` (one double in backend
    // memory: ops->sum_to) instead of returned, so the step reads nothing back (train.graph=on,
    // bench/train/step_device.c). The same ops as train_forward and the same value, but no draw
    // on the host: a captured step is replayed without calling it again, so what the host
    // draws per step is drawn by train_stage below, never here.
    void (*train_forward_to)(objective *o, int B, const int32_t *labels, rng_addr rng, double *loss);
    // Optional, with train_forward_to: draws on the host what the objective needs for the
    // training step at rng (index 0), exactly as train_forward draws it, the batch of B images
    // already in the staging input, into pinned host memory: the model's staging input (MP3's
    // contexts, MAE's kept tokens), which the step's forward uploads (a replay's memcpy nodes
    // again, from the same addresses), or the objective's own pinned buffers, which it uploads
    // here (MAE's rows and targets). The step without host reads calls it before every step,
    // replayed or not (outside a capture); the draw's size must not depend on the step (static
    // shapes). NULL: nothing is drawn on the host.
    void (*train_stage)(objective *o, int B, rng_addr rng);
    // Optional, for an objective with own views (train_views below) that also has
    // train_forward_to and train_backward (SimCLR): draws the step's views of batch->B raw images
    // into the model's pinned staging input exactly as train_views draws them, in place of the
    // trainer's loaded batch (and of train_stage); the step without host reads then calls
    // train_forward_to and train_backward with B = train.batch images (their batch_factor·B
    // inputs). Called before every step, replayed or not (outside a capture); the views' sizes
    // must not depend on the step. A kind with weight_decay_at or after_step also has
    // train_after_update (DINO: its per-step values are uploaded here, with the views). NULL:
    // own views are drawn by train_views only, and such a step reads its loss on the host.
    void (*train_stage_views)(objective *o, const objective_batch *batch);
    // Optional, with train_stage_views: the step without host reads calls it after AdamW, in the
    // step (captured), in place of after_step; scalars are the step's STEP_* values in backend
    // memory (scalars[STEP_SKIP] != 0: AdamW skipped the step). DINO: the teacher's EMA. The
    // weight decay of weight_decay_at reaches AdamW through scalars[STEP_WD].
    void (*train_after_update)(objective *o, const float *scalars);
    // Optional, for a loss that is a mean over a number of terms that varies per image (GVP's
    // random and mixed segmentations: its predicted patches). Called with a training step's
    // whole batch of B = train.batch images in the staging input (unchanged by it), their labels
    // and the step's rng (index 0); writes terms (B): how many terms image b adds to the mean
    // train_forward would return for the whole batch, drawn as train_forward draws them at
    // index rng.index + b. train.accumulate=N (and N ranks) weights micro-batch i's loss and
    // gradient by its share of the batch's terms instead of 1/N, so the step equals the whole
    // batch's (bench/train/train_step.c). NULL: every image adds the same number (1/N exactly).
    void (*train_loss_terms)(objective *o, int B, const int32_t *labels, rng_addr rng, long *terms);
    // Optional, with train_loss_terms: 0 when these settings give every image the same number of
    // terms (GVP's fixed segmentation), so the step's shapes (the rows its loss gathers) are
    // static and a captured step may replay (bench/train/graph_replay.h); 1 when the number is
    // drawn per image. NULL with train_loss_terms: drawn per image under every setting.
    int (*train_terms_vary)(const objective_settings *s);
    // Own views (NULL for most: the trainer loads the augmented batch into the staging input
    // and calls train_forward, zeroes the gradients, calls train_backward). Set: the trainer
    // zeroes the parameter gradients, then calls train_views with the step's raw data
    // (objective_batch) INSTEAD of loading a batch and of train_forward / train_backward; the
    // objective draws its views (datasets/views.h views_make_batch into model_images at the
    // sizes it sets with model_set_resolution), runs as many forwards and backwards as it
    // likes (parameter gradients accumulate; it zeroes the activation gradients before each
    // backward, model_zero_act_grads_batch), and returns the step's loss; when it is finite the
    // trainer takes the AdamW step from the accumulated gradient. SimCLR: one forward of the
    // 2B views, one backward; DINO: a forward + backward per group of crops (its student
    // gradient of a view depends only on that view and the fixed teacher outputs).
    // Such objectives are refused with train.accumulate > 1 or several ranks (exit 2; their
    // losses couple the whole batch: bench/train/train_step.c).
    double (*train_views)(objective *o, const objective_batch *batch);
    // Model inputs per train.batch image the objective's largest forward needs (0 or 1: one):
    // the model's staging input, activations and o->max_batch are sized for
    // max(train.batch · batch_factor, eval.batch) images (SimCLR: 2, its 2B views at once).
    int batch_factor;
    // Training FLOPs per train.batch image beyond 3 x batch_factor forward passes at the training
    // size, for the cost estimate (bench/run/estimate.h; mc as configure_model left it): DINO's
    // teacher forward of the global views and its local crops, GVP's query stream. NULL: none.
    double (*train_extra_flops)(const objective_settings *s, const model_config *mc);
    // Hooks for objectives with own views (NULL in every other): weight_decay_at gives AdamW's
    // weight decay for the 0-based step about to be taken (DINO's cosine schedule; NULL:
    // train.weight_decay); after_step runs after each AdamW step `step` (0-based; DINO's EMA
    // teacher); checkpoint_add puts the objective's own state into a checkpoint being written
    // (entries "<name>.*", their data valid until the objective is next called), and
    // checkpoint_restore reads it back on resume (NULL, or why the checkpoint is refused).
    double (*weight_decay_at)(const objective *o, long step);
    void (*after_step)(objective *o, long step);
    void (*checkpoint_add)(objective *o, tensorfile *tf);
    const char *(*checkpoint_restore)(objective *o, const tensorfile *tf);
    eval_scores (*evaluate)(objective *o, objective_env *env);
    int sharded_eval; // 1: evaluate shares its batches among the ranks (env.shard_ranks; eval_shard.h)
    // End-of-run records of a finished run (curves, samples, per-size accuracy, ...).
    void (*record_final)(objective *o, objective_env *env, const eval_scores *last);
    // Key tokens per image of a training step's attention (FLOPs accounting).
    int (*train_keys)(const objective *o);
    // The linear probe's own view (NULL: every token, full attention): probe_prepare is called
    // before the forward of B probe images [first, first + B) of a split to set the view of
    // pretraining (GVP: the causal group mask), and with B = 0 after the last to restore full
    // attention. An objective with one is probed both ways (bench/train: /final
    // probe_causal_* and probe_full_*); probe_full_default (NULL: 0) says whether its probe_*
    // metrics are the full-attention protocol (GVP's objective.probe_mask=full); probe_stream
    // says what a protocol reads (the /probe `stream` attribute; masked: 1 the view, 0 full
    // attention; NULL: "all tokens, full attention").
    void (*probe_prepare)(objective *o, int B, uint32_t first);
    int (*probe_full_default)(const objective *o);
    const char *(*probe_stream)(const objective *o, int masked);
} objective_kind;

struct objective {
    const objective_kind *kind;
    objective_settings s;
    model *model;
    const ops_backend *ops;
    int max_batch;
    void *state;      // the kind's own
};

// The registry: X(name) once per objective.
#define OBJECTIVE_KINDS(X) X(supervised) X(mp3) X(gvp) X(mlm) X(mae) X(simclr) X(dino)
#define OBJECTIVE_CHOICE_(name) "|" #name
#define OBJECTIVE_CHOICES (OBJECTIVE_KINDS(OBJECTIVE_CHOICE_) + 1) // "supervised|mp3|gvp|mlm|mae|simclr|dino"
#define OBJECTIVE_DECLARE(name) extern const objective_kind objective_##name;
OBJECTIVE_KINDS(OBJECTIVE_DECLARE)
#undef OBJECTIVE_DECLARE

// The keys every objective reads (objective.name, eta, label_smoothing, ref_fraction), ended by {NULL}.
extern const cfg_key objective_common_keys[];
const objective_kind *objective_find(const char *name); // NULL when unknown
const char *objective_names(void);                      // OBJECTIVE_CHOICES
const objective_kind *objective_at(int i);              // the i-th kind of OBJECTIVE_KINDS, NULL past the last
// config_error of the named objective (or "unknown objective" naming the valid ones).
const char *objective_config_error(const objective_settings *s);

// A crosscheck plan scalar: config.<key> as a float64 of shape (1) (objective_crosscheck.plan;
// objectives/plan_scalar.c).
void objective_plan_scalar(tensorfile *tf, const char *key, double v);

// objective.name, eta, label_smoothing, ref_fraction into s, then the named objective's own
// settings (read_settings) into s->own (zeroed first). The rest of s (data, eval, model keys) is
// the trainer's to fill.
void objective_read_settings(const key_reader *r, objective_settings *s);

// Creates o for `model` (already created with the kind's configure_model applied).
void objective_create(objective *o, const objective_kind *kind, const objective_settings *s, model *model, int max_batch);
void objective_free(objective *o);

// One training step of an objective that draws its own views (train_views), read on the host:
// the gradients zeroed, train_views on `batch`, then (a finite loss only) AdamW at 0-based `step`
// with the objective's weight decay (weight_decay_at, else oc's), then after_step (DINO's EMA).
// Returns the loss; *grad_norm and *lr (either may be NULL) as optim_step gives them. The trainer's
// step and posbench bench's both take it.
double objective_views_step(objective *o, const objective_batch *batch, float *adam_m, float *adam_v,
                            const optim_config *oc, long step, double *grad_norm, float *lr);
