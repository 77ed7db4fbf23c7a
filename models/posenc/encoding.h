// models/posenc/encoding.h — the position-encoding interface: one table entry per `pe.kind`
// (docs/methods.md "Position encodings"), so the backbone has no per-kind branches and a new kind
// touches its own file and one line of POSENC_KINDS below.
// A kind says what it adds or rotates (a (T, d) table added to every token, a per-image
// addition to the patch tokens, a rotation of q/k, or a bias on the attention scores), how it
// follows another grid (set_grid: tables recomputed, resized or clipped), and what it needs
// from the batch (tokens_forward draws CAPE's positions into the model's staging inputs).
// Every hook is optional (NULL: the kind does nothing there). Hooks see the model only through
// models/api/model_view.h (its config, current grid and backend: model_view_of; never model.h) and
// keep named pointers to their own tensors in a small state struct of their own
// (model_pe_state), bound by model_add_param / model_add_act / model_add_input in
// declare_params / declare_acts. The q/k and score hooks are for backbones with attention.
#pragma once
#include "../../core/rng.h"
#include "../../core/keys.h"
#include <stddef.h>

struct model;
struct model_config;

typedef struct posenc_kind {
    const char *name;        // the pe.kind value
    const char *description; // one line: pe.kind's help and docs/keys.md list it
    // Capabilities: what the rest of the code asks of a kind instead of comparing its name.
    int positional;      // 1: gives the tokens position information (0: none)
    int has_table;       // 1: a fixed table of positions a token can carry on its own (GVP's query tokens)
    int resizable;       // 1: follows another grid per batch with no tables tied to one grid (positions on
                         //    [-1, 1], or a bicubically resized table): UniViT batches, crosschecks at other sizes
    int per_image_draws; // 1: draws random positions per image in training (CAPE's augmentation)
    int grid_ok;         // 1: runs on an image's token grid
    int sequence_ok;     // 1: runs on a sequence (model_config.features > 0), itself or through sequence_kind
    int crosscheck_ok;   // 1: the PyTorch trainer (bench/crosscheck/torch_train.py) has it: plan scalar pe_<name>
    int timm_vit;        // 1: timm's VisionTransformer has it (a learned table, or none): crosscheck --init timm
    // Its own configuration keys (ended by {NULL}; NULL: none), gathered into the key table
    // (bench/config/config.c), and their reader into the model config (NULL: none).
    const cfg_key *keys;
    void (*read_keys)(const key_reader *r, struct model_config *c);
    // NULL when the model config works with this kind, else a message naming the keys.
    const char *(*config_error)(const struct model_config *c);
    // The kind's state (m->pe_state): state_size zeroed bytes, allocated by the model before
    // create (NULL when 0) and freed after free. create/free handle what it points to.
    size_t state_size;
    void (*create)(struct model *m);
    // Parameters: declared right after the cls token (a learned table), and inside block l's
    // declarations, after the attention projection (a per-block table; backbones with attention). The order of
    // declarations fixes each tensor's initialisation stream: do not reorder.
    void (*declare_params)(struct model *m);
    void (*declare_block_params)(struct model *m, int l);
    // Activations and staging inputs, sized for the largest grid and batch.
    void (*declare_acts)(struct model *m);
    // The grid changed (or the model was just allocated): recompute the tables of the current
    // grid into the staging inputs and upload them.
    void (*set_grid)(struct model *m);
    // A (T, d) table added to every token by the embedding (abs, sin1d), and its gradient
    // buffer (NULL: nothing learned) with the backward that carries it to the parameters.
    const float *(*table_forward)(struct model *m);
    float *(*table_grad)(struct model *m);
    void (*table_backward)(struct model *m);
    // MP3 reference tokens: the (T, d) rows a reference token adds (NULL: the kind cannot be
    // kept on reference tokens alone).
    const float *(*reference_table)(struct model *m);
    // Per-image addition to the embedded tokens x0 (B, T, d) (sin2d, cape). prepare_inputs runs
    // at the start of each forward (without reference tokens): per-step host draws (cape in
    // training) are staged and uploaded there; what only follows the grid belongs in set_grid.
    void (*prepare_inputs)(struct model *m, int B, int training, rng_addr rng);
    void (*tokens_forward)(struct model *m, int B);
    // Rotation of q and k in qkv (B, T, 3C) and its adjoint on dqkv (rope).
    void (*qk_forward)(struct model *m, float *qkv, int B);
    void (*qk_backward)(struct model *m, float *dqkv, int B);
    // Attention-score bias of block l (H, T, T) (relbias), and its backward from dbias.
    const float *(*bias_forward)(struct model *m, int l);
    const float *(*bias_saved)(struct model *m, int l); // the bias the last forward computed
    float *(*bias_grad)(struct model *m, int l);       // where attention_backward puts dbias
    float *(*bias_scratch)(struct model *m);           // attention_backward's workspace
    void (*bias_backward)(struct model *m, int l);
    void (*free)(struct model *m);
    // The kind that runs in this one's place on a sequence input (model_config.features > 0),
    // e.g. cape's 1D form (positions in seconds); NULL: this kind itself.
    const struct posenc_kind *sequence_kind;
} posenc_kind;

// The chosen kind's own settings in a model config (model_config.pe_own, MODEL_OWN_BYTES zeroed
// bytes that only that kind's read_keys fills), as its own struct: POSENC_OWN(c, const rope_settings).
#define POSENC_OWN(c, type) ((type *)(void *)(c)->pe_own)

// The registry: X(name) once per kind, in the order `--help` lists them.
#define POSENC_KINDS(X) X(none) X(abs) X(sin1d) X(sin2d) X(cape) X(relbias) X(rope)
// "none|abs|...": the names as one string constant (the config key table's choices).
#define POSENC_CHOICE_(name) "|" #name
#define POSENC_CHOICES (POSENC_KINDS(POSENC_CHOICE_) + 1)
#define POSENC_DECLARE(name) extern const posenc_kind posenc_##name;
POSENC_KINDS(POSENC_DECLARE)
#undef POSENC_DECLARE

// The keys every kind shares (pe.kind, pe.content_scale), ended by {NULL}.
extern const cfg_key posenc_common_keys[];
// pe.kind and pe.content_scale into c, then posenc_read_own.
void posenc_read_keys(const key_reader *r, struct model_config *c);
// The own keys of the kind c runs (posenc_for_model of c->pe_kind: a sequence kind on a
// sequence input, so c->features and c->vocab must be set) into c->pe_own, zeroed first.
void posenc_read_own(const key_reader *r, struct model_config *c);
// The kind named `name`, or NULL.
const posenc_kind *posenc_find(const char *name);
// The kind a model with this config runs: posenc_find(pe_kind, NULL = "none"), or its
// sequence_kind when the input is a sequence. NULL for an unknown name.
const posenc_kind *posenc_for_model(const struct model_config *c);
// cape on a sequence (models/posenc/cape1d.c): reached only through posenc_cape.sequence_kind.
extern const posenc_kind posenc_cape1d;
// POSENC_CHOICES, for messages.
const char *posenc_names(void);
// The names of the kinds that can be kept on reference tokens ("abs, sin1d, sin2d").
const char *posenc_reference_names(void);
// The kinds in registry order (n of them), for code that walks them (the crosscheck plan).
const posenc_kind *posenc_at(int i);
int posenc_count(void);
// "a, b, c": the names of the kinds for which ok(kind) is 1 (into buf, which is returned).
const char *posenc_names_where(int (*ok)(const posenc_kind *k), char *buf, size_t len);
// 1 when the kind acts inside attention (rotates q and k, or biases the scores).
int posenc_in_attention(const posenc_kind *k);

// The default of key `name` among kind k's own keys (its cfg_key default string as a number);
// dies when k has no such key.
double posenc_key_default(const posenc_kind *k, const char *name);

// For the kinds: NULL when model.dim suits a sinusoidal encoding (even), else why.
const char *posenc_sinusoid_config_error(const struct model_config *c);
