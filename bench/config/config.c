// bench/config/config.c — the key table with every default, typed parsing, overrides and run ids.
#include "config.h"
#include "../text/yaml_text.h"
#include "../../core/attention_route.h"
#include "../../core/common.h"
#include "../../objectives/objective.h"
#include "../../models/model.h"
#include "../../models/backbone.h"
#include "../../models/posenc/encoding.h"
#include "../../datasets/registry.h"
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BIG CFG_BIG
// The largest value of an integer key: counts and sizes are used as C int, so every integer key
// is refused above INT_MAX rather than wrapped (data.limit=4294967552 would otherwise be 256).
#define INT_BIG CFG_INT_BIG
// The keys every stage shares: data, evaluation, training and the model's shape. The keys of one
// objective, encoding or backbone live in its module (their registry entries' `keys`) and are
// gathered with these into the key table below.
static const cfg_key shared_keys[] = {
    {"data.background_frequency", CFG_FLOAT, "0.8", 0, 1, NULL, 1, "speech-commands: fraction of training word clips mixed with background noise (the reference recipe's 0.8)"},
    {"data.background_volume", CFG_FLOAT, "0.1", 0, 1, NULL, 1, "speech-commands: their noise volume, uniform in [0, this) (_silence_ rows: [0, 1))"},
    {"data.crop_pad", CFG_INT, "1", 0, 16, NULL, 1, "random-crop padding in pixels (0 = no crop augmentation)"},
    {"data.hflip", CFG_BOOL, "true", 0, 1, NULL, 1, "random horizontal flip in training"},
    {"data.labeled_fraction", CFG_FLOAT, "1.0", 1e-6, 1, NULL, 1, "fixed, seeded, class-balanced fraction of the training set that keeps labels"},
    {"data.limit", CFG_INT, "0", 0, INT_BIG, NULL, 1, "use only the first N training images (0 = all)"},
    {"data.long_clips", CFG_CHOICE, "cut", 0, 0, "cut|refuse", 0, "speech-commands: a clip longer than 1 s is cut to its first second with a warning naming how many (cut, the reference recipe's desired_samples) or refused, naming the clip (refuse)"},
    {"data.max_bytes", CFG_INT, "4294967296", 1, 1e15, NULL, 0, "the largest data file a run reads, in bytes (text, IDX, CIFAR, split lists; checked before reading, and for gzip files as they inflate): a device, FIFO or a sparse file of terabytes is refused, not read"},
    {"data.mfcc", CFG_CHOICE, "posbench", 0, 0, "posbench|tc_resnet", 1, "speech-commands: MFCC front end (datasets/speech/mfcc.h), both 40 coefficients per 10 ms frame of a 30 ms Hann window, 512-point FFT, power: posbench (the default, used by every experiment: 40 HTK mel bands 20-8000 Hz, triangles in Hz, orthonormal DCT, frames centred on each 10 ms hop, 100 frames per second) or tc_resnet (TC-ResNet's TensorFlow front end: 64 mel bands 80-7600 Hz, triangles in mel, the first 40 of 64 DCT coefficients, unpadded frames: 98 per 1-second clip; durations of D s are 100 D - 2 frames). Sequence length, durations and rates follow the front end; positions in seconds (cape) stay 10 ms apart"},
    {"data.name", CFG_CHOICE, "fashion-mnist", 0, 0, DATASET_CHOICES, 1, "dataset"},
    {"data.path", CFG_STRING, "", 0, 0, NULL, 1, "directory of IDX files (default for fashion-mnist: /usr/share/datasets/fashion-mnist), or of CIFAR binary batches or its parent, or the Speech Commands folder (no default; posbench data speech-synth writes one), or the text file (default for text: data/kjv.txt, the King James Bible, made by `make data/kjv.txt`)"},
    {"data.resolution", CFG_INT, "0", 0, 4096, NULL, 1, "training image size in pixels: images are resized bicubically (0 = the dataset's own size)"},
    {"data.resolutions", CFG_INT_LIST, "", 1, 4096, NULL, 1, "UniViT: each training batch is resized to a size drawn uniformly from this list (replaces data.resolution; [] = off)"},
    {"data.seq_len", CFG_INT, "128", 1, 65536, NULL, 1, "text: bytes per sequence (the file is cut into consecutive sequences of this length; the tail is dropped)"},
    {"data.subset_seed", CFG_INT, "0", 0, 4294967295.0, NULL, 1, "seed of the labelled-subset choice (fixed across train.seed)"},
    {"data.test_limit", CFG_INT, "0", 0, INT_BIG, NULL, 1, "evaluate on only the first N test images (0 = all)"},
    {"data.test_split", CFG_CHOICE, "test", 0, 0, "test|train", 1, "the images every evaluation reads: test (held out) or train (the training images after data.limit and before the labelled subset; the overfit check: can the model fit what it trained on?)"},
    {"data.time_shift_ms", CFG_INT, "100", 0, 100, NULL, 1, "speech-commands: training clips shift by a whole number of 10 ms frames in [-ms, ms] (0 = off)"},
    {"eval.batch", CFG_INT, "500", 1, 65536, NULL, 0, "evaluation batch size"},
    {"eval.knn", CFG_BOOL, "false", 0, 1, NULL, 1, "layer-wise kNN probe at the end (mean-pooled and cls features of every block; cosine, weighted votes); the layer and feature are chosen on validation images carved from the training images (eval.probe_val_images), the test images only score that choice (/final knn_top1)"},
    {"eval.knn_k", CFG_INT, "20", 1, 1000, NULL, 1, "kNN probe: neighbours"},
    {"eval.knn_temperature", CFG_FLOAT, "0.07", 1e-6, 100, NULL, 1, "kNN probe: vote weight exp(similarity / temperature)"},
    {"eval.knn_test_limit", CFG_INT, "2000", 0, INT_BIG, NULL, 1, "kNN probe: first N test images (0 = all)"},
    {"eval.knn_train_limit", CFG_INT, "10000", 0, INT_BIG, NULL, 1, "kNN probe: first N (labelled) training images as the memory bank (0 = all)"},
    {"eval.linear_probe", CFG_BOOL, "false", 0, 1, NULL, 1, "linear probe at the end: multinomial logistic regression on frozen block features (mean-pooled patches and cls), L2 strength chosen on held-out training images, layer and feature on validation images (eval.probe_val_images), never on test (not for MP3 pretraining runs)"},
    {"eval.position_limit", CFG_INT, "2000", 0, INT_BIG, NULL, 1, "MP3: first N test images for position accuracy at each test eta (0 = all)"},
    {"eval.probe_layers", CFG_CHOICE, "last", 0, 0, "last|all", 1, "linear probe: the last block's features, or every block's"},
    {"eval.probe_test_limit", CFG_INT, "2000", 0, INT_BIG, NULL, 1, "linear probe: first N test images score it (0 = all)"},
    {"eval.probe_train_limit", CFG_INT, "5000", 0, INT_BIG, NULL, 1, "linear probe: first N (labelled) training images fit it, every 5th held out to choose the L2 strength (0 = all)"},
    {"eval.probe_val_images", CFG_INT, "1000", 1, INT_BIG, NULL, 1, "kNN and linear probes: training images, disjoint from the bank / fit set, that choose the layer and the feature (mean-pooled or cls; ties to the deeper layer, then cls) by their top-1; seeded by data.subset_seed: drawn from the training images beyond eval.knn_train_limit / eval.probe_train_limit when there are this many, else min(this, n/5) of all n training images, the bank then the first of the others (objectives/probe_select.h)"},
    {"eval.resolutions", CFG_INT_LIST, "", 1, 4096, NULL, 1, "at the end, evaluate on the test set resized bicubically to each of these sizes, with throughput in images/s ([] = the training size only)"},
    {"eval.samples", CFG_INT, "4", 0, 64, NULL, 1, "test images drawn at the end (/samples): MP3 reassembles them from predicted positions (paper Fig. 2), MAE and GVP reconstruct their masked / predicted patches (MAE Fig. 2, GVP Fig. 2)"},
    {"eval.speech_durations", CFG_INT_LIST, "", 1, 60, NULL, 1, "speech (supervised): at the end, evaluate on the test clips placed at a random offset inside clips of background noise this many seconds long (100 frames per second; [] = off)"},
    {"eval.speech_rate_mode", CFG_CHOICE, "resample", 0, 0, "resample|hop|both", 1, "speech: how eval.speech_rates changes the rate: resample (the audio resampled and played at P% speed, pitch with it; frames 10 ms apart in the stretched audio; /final top1_rate<P>), hop (CAPE 5.2.2: the audio unchanged, the STFT hop set to round(160 P/100) samples, 80 -> 8 ms: 125 frames, 125 -> 12.5 ms: 80 frames; 'Positions remain tied to the original audio timestamps': cape positions h/16000 s apart; /final top1_rate<P>_hop) or both"},
    {"eval.speech_rates", CFG_INT_LIST, "", 25, 400, NULL, 1, "speech (supervised): at the end, evaluate on the test clips played at this percent of their speed (80 = 0.8x: 125 frames; 125 = 1.25x: 80 frames; [] = off)"},
    {"eval.tta_delta", CFG_INT, "0", 0, 4096, NULL, 1, "test-time augmentation: at each evaluation size r also score the logits averaged over r-delta, r, r+delta (0 = off)"},
    {"eval.view_images", CFG_INT, "8", 0, 256, NULL, 1, "the lecture's views at the end (/views, docs/views.md): the last block's [CLS] attention per head, its share on non-blank patches and the PCA of every block's keys, for the first N test images (0 = off)"},
    {"model.cls", CFG_BOOL, "true", 0, 1, NULL, 1, "prepend a cls token and classify from it (false: mean of all tokens)"},
    {"model.depth", CFG_INT, "6", 1, 64, NULL, 1, "number of transformer blocks"},
    {"model.dim", CFG_INT, "128", 1, 8192, NULL, 1, "token width d"},
    {"model.drop_path", CFG_FLOAT, "0.1", 0, 0.99, NULL, 1, "stochastic depth rate of the last block (linear from 0)"},
    {"model.dropout", CFG_FLOAT, "0.0", 0, 0.99, NULL, 1, "dropout after the embedding and on residual branches"},
    {"model.embed_init", CFG_CHOICE, "timm", 0, 0, MODEL_EMBED_INIT_CHOICES, 1, "initialisation of the patch (speech: frame) projection: timm (timm/DeiT: PyTorch's default, weight and bias ~ U(+-1/sqrt(fan_in)), embedded content RMS ~0.58 per channel for any patch size); xavier (MAE: Xavier-uniform weight, default bias); normal002 (trunc-normal std 0.02 weight, zero bias: posbench's earlier rule, which reproduces those runs and their ids; ~7x smaller content at patch 4). Learned tables (abs, cls, mask and query tokens, text token embedding) keep their papers' inits"},
    {"model.trunc_normal", CFG_CHOICE, "timm", 0, 0, "timm|std2", 1, "where the trunc-normal std 0.02 initialisations (block and head Linear weights, the abs table, cls / mask / query tokens) are cut: timm (timm's trunc_normal_ bounds, +-2 in absolute units: in effect N(0, 0.02^2), the reference implementation's rule); std2 (+-2 std, std 0.0176: posbench's rule before the init audit, which reproduces those runs and their ids)"},
    {"model.linear_init", CFG_CHOICE, "timm", 0, 0, MODEL_LINEAR_INIT_CHOICES, 1, "initialisation of every Linear layer's weight (blocks, heads, MAE's decoder; the patch projection is model.embed_init's): timm (trunc-normal std 0.02, cut by model.trunc_normal: timm's ViT, DeiT, DINO) or xavier (Xavier-uniform, U(+-sqrt(6/(fan_in + fan_out))): MAE's code, which initialises every nn.Linear so); biases start at 0 either way"},
    {"model.heads", CFG_INT, "4", 1, 256, NULL, 1, "attention heads (must divide model.dim)"},
    {"model.mlp_ratio", CFG_INT, "2", 1, 16, NULL, 1, "MLP hidden width = mlp_ratio * dim (gmlp/amlp: d_ffn, split into u and v halves)"},
    {"model.patch", CFG_INT, "7", 1, 1024, NULL, 1, "patch size p (must divide the image size)"},
    {"train.accumulate", CFG_INT, "1", 1, 65536, NULL, 1, "gradient accumulation: each step splits train.batch (a multiple of this) into this many equal micro-batches in order, computes each one's gradient into its own zeroed buffer, sums them in order and takes one AdamW step (the same batches, masks and augmentations as 1; losses equal within float rounding). Under mpirun -np N: 1 or N, the ranks being the micro-batches (docs/usage.md \"One run across processes\")"},
    {"train.activations", CFG_CHOICE, "fp32", 0, 0, "fp32|bf16", 1, "storage of the activations that feed the linear layers' matrix products (model.arch=vit; needs train.precision=bf16): fp32; or bf16 (each block's LayerNorm outputs, q/k/v, attention output, MLP hidden and GELU output stored in bfloat16 by the op that writes them, as PyTorch autocast keeps them: half their memory; with pe.kind=rope or relbias, and with masked attention (MP3), q/k/v and the attention output stay fp32; the residual stream, LayerNorm statistics, softmax, losses, parameter gradients and optimizer state stay fp32; emulated bit for bit on the CPU backends). Changes the numerics, so part of the run id when bf16"},
    {"train.attention", CFG_CHOICE, "auto", 0, 0, ATTENTION_ROUTE_SETTINGS, 0, "the CUDA backend's training attention (core/attention_route.c; as posbench bench --attention): auto (train.precision bf16: the materialised bf16 route up to 1024 tokens, else the fused fp32 kernels); materialised (that route always; needs bf16); fused (the fused kernels always); cudnn (cuDNN's flash attention for the bf16 calls it can express: no key subset, group mask or bias; needs bf16 and libcudnn at run time, else auto's route, said on stderr); materialised-inplace (materialised whose train.activations=bf16 calls read q, k, v and write out and the gradients in their rows, no head-major copies, where no key index picks the keys and the heads are 16-byte aligned; unmeasured on a GPU so far). The CPU backends have one attention and ignore it; not part of the run id, like --device"},
    {"train.batch", CFG_INT, "128", 1, 65536, NULL, 1, "training batch size"},
    {"train.beta1", CFG_FLOAT, "0.9", 0, 0.99999, NULL, 1, "AdamW beta1"},
    {"train.beta2", CFG_FLOAT, "0.999", 0, 0.999999, NULL, 1, "AdamW beta2"},
    {"train.checkpoint_every", CFG_INT, "0", 0, INT_BIG, NULL, 0, "write a resumable checkpoint every N steps (0 = at each epoch end)"},
    {"train.clip", CFG_FLOAT, "1.0", 0, BIG, NULL, 1, "clip the global gradient norm to this (0 = off)"},
    {"train.early_stop", CFG_BOOL, "false", 0, 1, NULL, 1, "keep the parameters with the best validation top-1 (evaluated every train.eval_every steps) and report the test metrics of that state (needs a validation split: data.name=speech-commands)"},
    {"train.epochs", CFG_INT, "32", 1, 100000, NULL, 1, "training epochs"},
    {"train.eps", CFG_FLOAT, "1e-8", 0, 1, NULL, 1, "AdamW epsilon"},
    {"train.eval_every", CFG_INT, "0", 0, INT_BIG, NULL, 1, "evaluate on the test split (and the validation split with train.early_stop) every N steps and at the last step (0 = at each epoch end)"},
    {"train.graph", CFG_CHOICE, "off", 0, 0, "off|on", 0, "on: the training step reads nothing back mid-step (the loss, the gradient norm, clipping and the non-finite check stay on the backend; the host reads the steps' values at logging, evaluation and checkpoint steps) and, on the CUDA backend, where the configuration replays (docs/usage.md \"The step without host reads, and CUDA graphs\"), is captured once as a CUDA graph and replayed; the run file is the same as off's (bitwise on the CPU). off: the step as before (the default until a GPU has checked parity). Not part of the run id, like train.attention"},
    {"train.halve_every", CFG_INT, "10000", 1, INT_BIG, NULL, 1, "train.schedule=step_halving: halve the learning rate every N steps after the warmup"},
    {"train.init_partial", CFG_BOOL, "false", 0, 1, NULL, 0, "a stage with init: (or train --init) may start from weights that fit only partly: tensors of the same name but another shape are left fresh instead of refused (the head and tensors absent from the file are always fresh)"},
    {"train.lr", CFG_FLOAT, "2e-3", 0, 10, NULL, 1, "peak learning rate (after warmup)"},
    {"train.min_lr", CFG_FLOAT, "1e-5", 0, 10, NULL, 1, "learning rate at the end of the cosine decay"},
    {"train.precision", CFG_CHOICE, "fp32", 0, 0, "fp32|bf16", 1, "precision of the linear layers' matrix products: fp32; or bf16 (operands rounded to bfloat16, fp32 accumulation, as PyTorch autocast: tensor cores on cuda, emulated on the CPU backends); weights, gradients, optimizer state and every other op stay fp32"},
    {"train.recompute", CFG_CHOICE, "off", 0, 0, "off|gelu", 0, "what the blocks recompute in the backward instead of keeping it from the forward (model.arch=vit; needs train.activations=bf16): off (every block keeps its bf16 GELU output); gelu (no block keeps it: one shared (B, T, hidden) bf16 buffer holds it for fc2 in the forward and is recomputed from the block's stored bf16 hidden before fc2's backward, as llm.c's recompute; saves (depth - 1) x B x T x hidden x 2 bytes of arena for one more GELU per block). The GELU of the same bf16 hidden is the same bf16 value, so the run file is bitwise the same as off's; not part of the run id, like train.graph"},
    {"train.schedule", CFG_CHOICE, "cosine", 0, 0, "cosine|step_halving", 1, "learning-rate schedule: cosine (linear warmup, cosine decay to train.min_lr); step_halving (constant train.warmup_lr during the warmup, then train.lr halved every train.halve_every steps: the MP3 paper's speech recipe)"},
    {"train.seed", CFG_INT, "0", 0, 4294967295.0, NULL, 1, "seed of every random draw (init, data order, augmentation, drop path)"},
    {"train.steps", CFG_INT, "0", 0, INT_BIG, NULL, 1, "train exactly this many steps (updates), the last epoch possibly partial; replaces train.epochs (0 = train.epochs whole epochs)"},
    {"train.warmup_epochs", CFG_FLOAT, "1", 0, 100000, NULL, 1, "linear warmup length in epochs"},
    {"train.warmup_lr", CFG_FLOAT, "0", 0, 10, NULL, 1, "train.schedule=step_halving: constant learning rate of the warmup steps (0 = linear warmup to train.lr)"},
    {"train.warmup_steps", CFG_INT, "0", 0, INT_BIG, NULL, 1, "warmup length in steps; replaces train.warmup_epochs when > 0"},
    {"train.weight_decay", CFG_FLOAT, "0.05", 0, 10, NULL, 1, "AdamW decoupled weight decay (not on biases, norms, cls, position tables)"},
    {NULL},
};

// The key table: shared_keys and every module's keys, each key once (a key two modules declare,
// like the sgu_* keys of gmlp and amlp, must be declared alike), in name order: the canonical
// text, the YAML dump and run ids follow it. One exception keeps the order every run id and
// config_yaml was made with before the keys moved to their modules: objective.eta sorts right
// after objective.label_smoothing.
static cfg_key table[CFG_MAX_KEYS];
static int table_count = -1;

static void sort_name(const char *key, char *out, size_t len) {
    snprintf(out, len, "%s", !strcmp(key, "objective.eta") ? "objective.label_smoothing\x01" : key);
}

static int cmp_keys(const void *pa, const void *pb) {
    char a[128], b[128];
    sort_name(((const cfg_key *)pa)->key, a, sizeof a), sort_name(((const cfg_key *)pb)->key, b, sizeof b);
    return strcmp(a, b);
}

static void gather(const cfg_key *keys, const char *owner) {
    for (const cfg_key *k = keys; k && k->key; k++) {
        int dup = -1;
        for (int i = 0; i < table_count && dup < 0; i++)
            if (!strcmp(table[i].key, k->key)) dup = i;
        if (dup >= 0) {
            const cfg_key *d = &table[dup];
            if (d->type != k->type || strcmp(d->fallback, k->fallback) || d->min != k->min || d->max != k->max ||
                d->identity != k->identity || (d->choices != k->choices && (!d->choices || !k->choices || strcmp(d->choices, k->choices))))
                die_fail("internal: config key '%s' is declared twice, differently (the second by %s)", k->key, owner);
            continue;
        }
        if (table_count >= CFG_MAX_KEYS) die_fail("internal: more than %d config keys: raise CFG_MAX_KEYS (config.h)", CFG_MAX_KEYS);
        table[table_count++] = *k;
    }
}

// The help of a key that names a registry entry (objective.name, pe.kind, model.arch, data.name):
// the key's own text, then "name (description)" of every entry in registry order, so `posbench
// train --help`, `--help TOPIC` and docs/keys.md list each entry from its registry line and
// nothing lists them by hand. entry(i, &description) is entry i's name, NULL past the last.
typedef const char *(*registry_entry)(int i, const char **description);

static const char *objective_entry(int i, const char **d) {
    const objective_kind *k = objective_at(i);
    return k ? (*d = k->description, k->name) : NULL;
}
static const char *posenc_entry(int i, const char **d) {
    const posenc_kind *k = i < posenc_count() ? posenc_at(i) : NULL;
    return k ? (*d = k->description, k->name) : NULL;
}
static const char *backbone_entry(int i, const char **d) {
    const backbone_kind *k = backbone_at(i);
    return k ? (*d = k->description, k->name) : NULL;
}
static const char *dataset_entry(int i, const char **d) {
    const dataset_kind *k = dataset_at(i);
    return k ? (*d = k->description, k->name) : NULL;
}

static void describe_choices(const char *key, registry_entry entry) {
    static char helps[4][2048];
    static int used;
    cfg_key *k = NULL;
    for (int i = 0; i < table_count && !k; i++)
        if (!strcmp(table[i].key, key)) k = &table[i];
    if (!k || used >= 4) die_fail("internal: registry key '%s' is not in the key table, or more than 4 are", key);
    char *out = helps[used++];
    size_t o = (size_t)snprintf(out, sizeof helps[0], "%s:", k->help);
    const char *description = NULL, *name;
    for (int i = 0; (name = entry(i, &description)) != NULL; i++) {
        if (!description || !description[0]) die_fail("internal: %s=%s has no description (its registry entry's .description)", key, name);
        o += (size_t)snprintf(out + o, o < sizeof helps[0] ? sizeof helps[0] - o : 0, "%s %s (%s)", i ? ";" : "", name, description);
    }
    if (o >= sizeof helps[0]) die_fail("internal: the help of %s is longer than %zu bytes", key, sizeof helps[0] - 1);
    k->help = out;
}

const cfg_key *config_key_table(void) {
    if (table_count >= 0) return table;
    table_count = 0;
    gather(shared_keys, "bench/config/config.c");
    gather(objective_common_keys, "objectives/objective.c");
    for (int i = 0; objective_at(i); i++) gather(objective_at(i)->keys, objective_at(i)->name);
    gather(posenc_common_keys, "models/posenc/registry.c");
    for (int i = 0; i < posenc_count(); i++) {
        gather(posenc_at(i)->keys, posenc_at(i)->name);
        if (posenc_at(i)->sequence_kind) gather(posenc_at(i)->sequence_kind->keys, posenc_at(i)->name);
    }
    gather(backbone_common_keys, "models/backbone.c");
    for (int i = 0; backbone_at(i); i++) gather(backbone_at(i)->keys, backbone_at(i)->name);
    describe_choices("objective.name", objective_entry);
    describe_choices("pe.kind", posenc_entry);
    describe_choices("model.arch", backbone_entry);
    describe_choices("data.name", dataset_entry);
    qsort(table, (size_t)table_count, sizeof *table, cmp_keys);
    return table;
}

int config_key_table_count(void) {
    config_key_table();
    return table_count;
}

static long reader_int(const void *c, const char *key) { return cfg_int(c, key); }
static double reader_float(const void *c, const char *key) { return cfg_float(c, key); }
static const char *reader_str(const void *c, const char *key) { return cfg_str(c, key); }

key_reader config_reader(const config *c) {
    return (key_reader){.ctx = c, .int_value = reader_int, .float_value = reader_float, .str_value = reader_str};
}

int cfg_index(const char *key) {
    for (int i = 0; i < cfg_key_count; i++)
        if (strcmp(cfg_keys[i].key, key) == 0) return i;
    return -1;
}

static int key_or_die(const char *key) {
    int i = cfg_index(key);
    if (i < 0) die_fail("internal: config key '%s' is not in the key table", key);
    return i;
}

static void describe_valid(const cfg_key *k, char *buf, size_t len) {
    switch (k->type) {
    case CFG_INT:
        if (k->max >= BIG) snprintf(buf, len, "an integer >= %.0f", k->min);
        else snprintf(buf, len, "an integer in [%.0f, %.0f]", k->min, k->max);
        break;
    case CFG_FLOAT:
        if (k->max >= BIG) snprintf(buf, len, "a number >= %g", k->min);
        else snprintf(buf, len, "a number in [%g, %g]", k->min, k->max);
        break;
    case CFG_BOOL: snprintf(buf, len, "true or false"); break;
    case CFG_STRING: snprintf(buf, len, "any text"); break;
    case CFG_CHOICE: snprintf(buf, len, "one of %s", k->choices); break;
    case CFG_INT_LIST:
        snprintf(buf, len, "a list of at most %d integers in [%.0f, %.0f] (YAML [16, 28, 40] or the text 16,28,40), or [] for none",
                 CFG_LIST_MAX, k->min, k->max);
        break;
    }
}

// "[16, 28,40]" or "16,28,40" -> canonical "16,28,40" in out; -1 with a message on bad text.
static int parse_int_list(const cfg_key *k, const char *text, const char *valid, char *out, size_t outlen,
                          char *err, size_t errlen) {
    const char *p = text;
    while (*p == ' ') p++;
    int bracket = *p == '[';
    if (bracket) p++;
    size_t used = 0;
    int count = 0;
    out[0] = 0;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p || *p == ']') break;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno != 0 || v != floor(v)) {
            snprintf(err, errlen, "%s: '%s' is not %s", k->key, text, valid);
            return -1;
        }
        if (v < k->min || v > k->max) {
            snprintf(err, errlen, "%s: %.0f in '%s' is out of range (valid: %s)", k->key, v, text, valid);
            return -1;
        }
        if (++count > CFG_LIST_MAX) {
            snprintf(err, errlen, "%s: more than %d values in '%s' (valid: %s)", k->key, CFG_LIST_MAX, text, valid);
            return -1;
        }
        used += (size_t)snprintf(out + used, outlen - used, "%s%.0f", count > 1 ? "," : "", v);
        if (used >= outlen) {
            snprintf(err, errlen, "%s: '%s' is too long", k->key, text);
            return -1;
        }
        p = end;
        while (*p == ' ') p++;
        if (*p == ',') p++;
        else if (*p && *p != ']') {
            snprintf(err, errlen, "%s: '%s' is not %s", k->key, text, valid);
            return -1;
        }
    }
    if (bracket != (*p == ']') || (*p == ']' && p[1 + strspn(p + 1, " ")] != 0)) {
        snprintf(err, errlen, "%s: '%s' is not %s", k->key, text, valid);
        return -1;
    }
    return 0;
}

int cfg_parse_bool(const char *text) {
    static const char *yes[] = {"true", "True", "TRUE"}, *no[] = {"false", "False", "FALSE"};
    for (int i = 0; i < 3; i++) {
        if (!strcmp(text, yes[i])) return 1;
        if (!strcmp(text, no[i])) return 0;
    }
    return -1;
}

// The choice of `choices` ("a|b|c") closest to text, into out: the same letters in another case
// first ("sin2D" -> "sin2d"), else at most 2 edits and fewer than text's length. 0 when none is close.
static int suggest_choice(const char *choices, const char *text, char *out, size_t outlen) {
    int best_d = 3, tlen = (int)strlen(text);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char choice[64];
        snprintf(choice, sizeof choice, "%.*s", (int)len, p);
        int d = strcasecmp(choice, text) == 0 ? 0 : cfg_edit_distance(choice, text);
        if (d < best_d && d < tlen) best_d = d, snprintf(out, outlen, "%s", choice);
        p = bar ? bar + 1 : p + len;
    }
    return best_d < 3;
}

// Appends "; did you mean 'x'?" to err when a choice of `choices` is close to text.
static void append_suggestion(const char *choices, const char *text, char *err, size_t errlen) {
    char near[64];
    size_t used = strlen(err);
    if (suggest_choice(choices, text, near, sizeof near) && used < errlen)
        snprintf(err + used, errlen - used, "; did you mean '%s'?", near);
}

int config_set(config *c, int index, const char *text, char *err, size_t errlen) {
    const cfg_key *k = &cfg_keys[index];
    char valid[160];
    describe_valid(k, valid, sizeof valid);
    if (k->type == CFG_INT_LIST) {
        char canon[512];
        if (parse_int_list(k, text, valid, canon, sizeof canon, err, errlen) != 0) return -1;
        free(c->str[index]);
        c->str[index] = xstrdup(canon, "config value");
        return 0;
    }
    if (k->type == CFG_STRING || k->type == CFG_CHOICE) {
        if (k->type == CFG_CHOICE) {
            size_t n = strlen(text);
            const char *p = k->choices;
            int found = 0;
            while (*p && !found) {
                const char *bar = strchr(p, '|');
                size_t len = bar ? (size_t)(bar - p) : strlen(p);
                found = len == n && strncmp(p, text, n) == 0;
                p = bar ? bar + 1 : p + len;
            }
            if (!found) {
                snprintf(err, errlen, "%s: '%s' is not valid (valid: %s)", k->key, text, valid);
                append_suggestion(k->choices, text, err, errlen);
                return -1;
            }
        }
        free(c->str[index]);
        c->str[index] = xstrdup(text, "config value");
        return 0;
    }
    double v;
    if (k->type == CFG_BOOL) {
        v = cfg_parse_bool(text);
        if (v < 0) {
            snprintf(err, errlen, "%s: '%s' is not a boolean (valid: %s)", k->key, text, valid);
            append_suggestion("true|false", text, err, errlen);
            return -1;
        }
    } else {
        char *end;
        errno = 0;
        v = strtod(text, &end);
        int underflow = errno == ERANGE && fabs(v) <= DBL_MIN; // 1e-320: a number, tiny (not an error)
        if (errno == ERANGE && !underflow && end != text && *end == 0) {
            snprintf(err, errlen, "%s: %s is out of range (valid: %s)", k->key, text, valid);
            return -1;
        }
        int bad = end == text || *end != 0 || (errno != 0 && !underflow) || !isfinite(v);
        if (!bad && k->type == CFG_INT && v != floor(v)) bad = 1;
        if (bad) {
            snprintf(err, errlen, "%s: '%s' is not %s", k->key, text, valid);
            return -1;
        }
        if (v < k->min || v > k->max) {
            snprintf(err, errlen, "%s: %s is out of range (valid: %s)", k->key, text, valid);
            return -1;
        }
    }
    c->num[index] = v == 0.0 ? 0.0 : v; // -0 and 0 are one value (and one run id)
    return 0;
}

void config_defaults(config *c) {
    memset(c, 0, sizeof *c);
    if (cfg_key_count > (int)(sizeof c->num / sizeof c->num[0])) die_fail("internal: config table too large");
    char err[256];
    for (int i = 0; i < cfg_key_count; i++)
        if (config_set(c, i, cfg_keys[i].fallback, err, sizeof err) != 0) die_fail("internal: bad default: %s", err);
}

void config_key_where(const config *c, int index, char *buf, size_t len) {
    if (index >= 0 && index < cfg_key_count && c->source && c->line[index] > 0)
        snprintf(buf, len, "%s:%d:%d: ", c->source, c->line[index], c->col[index]);
    else if (len > 0)
        buf[0] = '\0';
}

void config_free(config *c) {
    for (int i = 0; i < cfg_key_count; i++) free(c->str[i]);
    memset(c, 0, sizeof *c);
}

void config_copy(config *dst, const config *src) {
    *dst = *src;
    for (int i = 0; i < cfg_key_count; i++)
        if (src->str[i]) dst->str[i] = xstrdup(src->str[i], "config value");
}

int cfg_edit_distance(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63) return 99;
    int prev[64], cur[64];
    for (int j = 0; j <= lb; j++) prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        for (int j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
    }
    return prev[lb];
}

const char *cfg_flag_hint(const char *flag, const char *valid) {
    static char hint[96];
    char best[64] = "";
    int best_d = 3;
    hint[0] = 0;
    if (!flag || strncmp(flag, "-", 1) != 0 || !valid) return hint;
    for (const char *p = valid; *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t len = strcspn(p, " ,|"); // the item's first word: the flag (a "--precision fp32|bf16" item too)
        if (len > 2 && len < sizeof best && p[0] == '-') {
            char name[64];
            memcpy(name, p, len), name[len] = 0;
            int d = cfg_edit_distance(flag, name);
            if (d < best_d && d < (int)len / 2) best_d = d, snprintf(best, sizeof best, "%s", name);
        }
        p += strcspn(p, ",");
    }
    if (best[0] && strcmp(best, flag) != 0) snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
    return hint;
}

const char *cfg_suggest(const char *key) {
    const char *best = NULL;
    int best_d = 4; // at most 3 edits, or the same last component under another group
    const char *leaf = strrchr(key, '.');
    for (int i = 0; i < cfg_key_count; i++) {
        int d = cfg_edit_distance(key, cfg_keys[i].key);
        const char *kleaf = strrchr(cfg_keys[i].key, '.');
        if (leaf && kleaf && strcmp(leaf, kleaf) == 0 && d > 2) d = 3;
        if (d < best_d) {
            best_d = d;
            best = cfg_keys[i].key;
        }
    }
    return best;
}

int config_apply_override(config *c, const char *arg, char *err, size_t errlen) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, errlen, "'%s' is not key=value (e.g. model.dim=128; see posbench train --help)", arg);
        return -1;
    }
    char key[128];
    size_t n = (size_t)(eq - arg);
    if (n >= sizeof key) n = sizeof key - 1;
    memcpy(key, arg, n);
    key[n] = 0;
    int i = cfg_index(key);
    if (i < 0) {
        const char *s = cfg_suggest(key);
        if (s) snprintf(err, errlen, "unknown key '%s' (did you mean '%s'?); posbench train --help lists every key", key, s);
        else snprintf(err, errlen, "unknown key '%s'; posbench train --help lists every key", key);
        return -1;
    }
    return config_set(c, i, eq + 1, err, errlen);
}

long cfg_int(const config *c, const char *key) { return (long)c->num[key_or_die(key)]; }
double cfg_float(const config *c, const char *key) { return c->num[key_or_die(key)]; }
int cfg_bool(const config *c, const char *key) { return c->num[key_or_die(key)] != 0; }
const char *cfg_str(const config *c, const char *key) {
    const char *s = c->str[key_or_die(key)];
    return s ? s : "";
}

int cfg_int_list(const config *c, const char *key, int *out, int max) {
    int i = key_or_die(key);
    if (cfg_keys[i].type != CFG_INT_LIST) die_fail("internal: config key '%s' is not a list", key);
    const char *p = c->str[i] ? c->str[i] : "";
    int n = 0;
    while (*p) { // canonical text: integers separated by commas
        long v = strtol(p, (char **)&p, 10);
        if (n < max) out[n] = (int)v;
        n++;
        if (*p == ',') p++;
    }
    if (n > max) die_fail("internal: config key '%s' has %d values (room for %d)", key, n, max);
    return n;
}

void config_value_text(const config *c, int i, char *buf, size_t len) {
    const cfg_key *k = &cfg_keys[i];
    switch (k->type) {
    case CFG_INT: snprintf(buf, len, "%.0f", c->num[i]); break;
    case CFG_BOOL: snprintf(buf, len, "%s", c->num[i] ? "true" : "false"); break;
    case CFG_FLOAT: {
        for (int prec = 1; prec <= 17; prec++) { // shortest text that reads back exactly
            snprintf(buf, len, "%.*g", prec, c->num[i]);
            if (strtod(buf, NULL) == c->num[i]) break;
        }
        if (!strpbrk(buf, ".en")) strncat(buf, ".0", len - strlen(buf) - 1);
        break;
    }
    default: snprintf(buf, len, "%s", c->str[i] ? c->str[i] : ""); break;
    }
}

char *config_yaml(const config *c) {
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) die_fail("out of memory writing the config");
    char group[64] = "";
    for (int i = 0; i < cfg_key_count; i++) {
        const char *key = cfg_keys[i].key, *dot = strchr(key, '.');
        char value[512];
        config_value_text(c, i, value, sizeof value);
        size_t glen = (size_t)(dot - key);
        if (strlen(group) != glen || strncmp(group, key, glen) != 0) {
            snprintf(group, sizeof group, "%.*s", (int)glen, key);
            fprintf(f, "%s:\n", group);
        }
        fprintf(f, "  %s: ", dot + 1);
        if (cfg_keys[i].type == CFG_STRING) yaml_quoted(f, value); // a string never ends its scalar (yaml_text.h)
        else fprintf(f, cfg_keys[i].type == CFG_INT_LIST ? "[%s]" : "%s", value);
        fputc('\n', f);
    }
    if (fclose(f) != 0 || !out) die_fail("out of memory writing the config");
    return out;
}

uint64_t config_hash_text(uint64_t h, const char *text) {
    for (const char *p = text; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull; // FNV-1a 64
    return h;
}

// Keys whose default changed when they were added: the value that reproduces the runs made
// before the key existed is the one left out of the hash (so those runs keep their ids), and
// every other value, the new default included, is hashed (so a new-default run never takes an
// old run's id and its results).
static const struct {
    const char *key, *legacy;
} hash_legacy[] = {
    {"model.embed_init", "normal002"}, // timm's patch init replaced trunc-normal 0.02
    {"model.trunc_normal", "std2"},    // timm's trunc_normal_ bounds (±2 absolute) replaced a ±2 std cut
};

const char *config_legacy_value(const char *key) {
    for (size_t i = 0; i < sizeof hash_legacy / sizeof hash_legacy[0]; i++)
        if (!strcmp(key, hash_legacy[i].key)) return hash_legacy[i].legacy;
    return NULL;
}

static const char *unhashed_value(int index, const config *defaults, char *buf, size_t len) {
    const char *legacy = config_legacy_value(cfg_keys[index].key);
    if (legacy) return legacy;
    config_value_text(defaults, index, buf, len);
    return buf;
}

uint64_t config_identity_hash(uint64_t h, const config *c) {
    config defaults;
    config_defaults(&defaults);
    for (int i = 0; i < cfg_key_count; i++) {
        if (!cfg_keys[i].identity) continue;
        char value[512], fallback[512], line[700];
        config_value_text(c, i, value, sizeof value);
        // defaults are not hashed: a new key keeps old ids (hash_legacy: the old behaviour's value)
        if (!strcmp(value, unhashed_value(i, &defaults, fallback, sizeof fallback))) continue;
        snprintf(line, sizeof line, "%s=%s\n", cfg_keys[i].key, value);
        h = config_hash_text(h, line);
    }
    config_free(&defaults);
    return h;
}

void config_run_id(const config *c, char out[13]) {
    uint64_t h = config_identity_hash(1469598103934665603ull, c); // FNV-1a 64 offset basis
    snprintf(out, 13, "%012llx", (unsigned long long)(h & 0xffffffffffffull));
}

// Does key k belong to help topic `topic`: its group ("pe" for pe.kind), the key itself, or a
// word of the key or of its help text (case-insensitive)?
static int key_in_topic(const cfg_key *k, const char *topic) {
    size_t n = strlen(topic);
    if (!strncmp(k->key, topic, n) && (k->key[n] == '.' || k->key[n] == 0)) return 1;
    return strcasestr(k->key, topic) != NULL || strcasestr(k->help, topic) != NULL;
}

int config_print_help(FILE *out, const char *topic) {
    int shown = 0;
    for (int i = 0; i < cfg_key_count; i++) {
        const cfg_key *k = &cfg_keys[i];
        if (topic && !key_in_topic(k, topic)) continue;
        if (!shown++) fprintf(out, topic ? "Keys about '%s' (key=value; default in brackets):\n" : "Keys (key=value; default in brackets):\n", topic);
        char valid[160];
        describe_valid(k, valid, sizeof valid);
        fprintf(out, "  %-27s [%s]  %s (%s)\n", k->key, k->fallback[0] ? k->fallback : k->type == CFG_INT_LIST ? "[]" : "\"\"", k->help, valid);
    }
    return shown;
}

const char *config_key_groups(void) {
    static char groups[512];
    if (groups[0]) return groups;
    size_t o = 0;
    for (int i = 0; i < cfg_key_count; i++) {
        size_t len = strcspn(cfg_keys[i].key, ".");
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = strcspn(cfg_keys[j].key, ".") == len && !strncmp(cfg_keys[j].key, cfg_keys[i].key, len);
        if (seen || o + len + 3 >= sizeof groups) continue;
        o += (size_t)snprintf(groups + o, sizeof groups - o, "%s%.*s", o ? ", " : "", (int)len, cfg_keys[i].key);
    }
    return groups;
}

// One Markdown table cell: '|' escaped, so a choice list "a|b" stays in its cell.
static void markdown_cell(FILE *out, const char *text) {
    for (const char *p = text; *p; p++) {
        if (*p == '|') fputs("\\|", out);
        else fputc(*p, out);
    }
}

void config_print_markdown(FILE *out) {
    fprintf(out, "# Configuration keys\n\n"
                 "Generated by `make docs` (`build/posbench --keys-markdown`) from the one key table: the keys every\n"
                 "stage shares (bench/config/config.c) and each objective's, position encoding's and\n"
                 "backbone's own `keys` (their registry entries). Do not edit by hand: `make test`\n"
                 "(tests/e2e_docs.sh) fails when this file differs from what `make docs` writes.\n"
                 "`posbench train --help` prints the same table. A key set on the command line is `key=value`;\n"
                 "in an experiment file it is nested or dotted ([experiments.md](experiments.md)). \"run id: no\" marks\n"
                 "bookkeeping keys that do not change results and are left out of the run id.\n");
    char group[64] = "";
    for (int i = 0; i < cfg_key_count; i++) {
        const cfg_key *k = &cfg_keys[i];
        size_t prefix = strcspn(k->key, ".");
        if (strlen(group) != prefix || strncmp(group, k->key, prefix)) {
            snprintf(group, sizeof group, "%.*s", (int)prefix, k->key);
            fprintf(out, "\n## %s\n\n| key | default | valid | run id | meaning |\n|---|---|---|---|---|\n", group);
        }
        char valid[512];
        describe_valid(k, valid, sizeof valid);
        fprintf(out, "| `%s` | ", k->key);
        markdown_cell(out, k->fallback[0] ? k->fallback : k->type == CFG_INT_LIST ? "[]" : "\"\"");
        fputs(" | ", out);
        markdown_cell(out, valid);
        fprintf(out, " | %s | ", k->identity ? "yes" : "no");
        markdown_cell(out, k->help);
        fputs(" |\n", out);
    }
}
