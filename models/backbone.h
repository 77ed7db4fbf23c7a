// models/backbone.h — the backbone interface: one table entry per `model.arch`, the module
// that owns a model's blocks (models/backbones/<arch>.c). The shared steps around them (embed,
// position encoding, final norm, head; memory) are models/model.c's, so a new backbone (gMLP,
// a 1D audio model) is a sibling of the ViT's blocks and touches its own file and one line of
// BACKBONE_KINDS below.
// The blocks map the encoded tokens x (B, T, d) to features of the same shape; what they keep
// for the backward and their parameters are declared through model_add_param / model_add_act
// (models/model.h) into a state struct of their own (m->arch_state).
#pragma once
#include "../core/rng.h"
#include "../core/keys.h"
#include <stddef.h>

struct model;
struct model_config;
struct posenc_kind;

typedef struct backbone_kind {
    const char *name;        // the model.arch value
    const char *description; // one line: model.arch's help and docs/keys.md list it
    // NULL when the config works with these blocks, else a message naming the keys (for
    // example an encoding the blocks cannot use, or masked attention without attention).
    const char *(*config_error)(const struct model_config *c);
    // The blocks' state (m->arch_state): state_size zeroed bytes, allocated by the model before
    // declare and freed after free; free handles what it points to.
    size_t state_size;
    // Parameters of every block (called after the embedding's, before the head's: the order of
    // declarations fixes each tensor's initialisation stream), and activations sized for
    // max_batch images at the largest grid (and m->M_alloc key tokens).
    void (*declare_params)(struct model *m);
    void (*declare_acts)(struct model *m);
    void (*free)(struct model *m);
    // The grid changed (or the model was just allocated): what the blocks tie to the token grid
    // (gMLP's spatial weights) follows it. NULL: nothing does.
    void (*set_grid)(struct model *m);
    // Forward of all blocks from x (B, m->T, d); returns the last block's output (B, T, d).
    // dropout > 0 and drop_path apply only in training; draws at `rng` with the purpose and
    // index of each site (RNG_DROPOUT 1 + 2l and 2 + 2l, RNG_DROPPATH 2l and 2l + 1).
    const float *(*forward)(struct model *m, const float *x, int B, int training, float dropout, rng_addr rng);
    // Where the gradient of the output goes (the caller writes it before backward, after
    // model_zero_act_grads_batch cleared every activation gradient).
    float *(*output_grad)(struct model *m);
    // Backward of all blocks of the last forward: from output_grad to dx (B, T, d), which it
    // accumulates into (cleared with every activation gradient); x is the forward's input.
    // Parameter gradients accumulate. The blocks' own activation gradients are one set shared
    // by every block, cleared between blocks by the backward itself (vit.c, gmlp.c).
    void (*backward)(struct model *m, const float *x, float *dx, int B);
    // The output of block `layer` in the last forward (B, T, d).
    const float *(*block_output)(const struct model *m, int layer);
    // Attention probabilities of block `layer` (B, H, T, M) of the last forward run while the
    // model kept them (keep_attention_probs on), else NULL; NULL hooks: no attention.
    const float *(*attention_probs)(const struct model *m, int layer);
    void (*keep_attention_probs)(struct model *m, int on);
    // The keys block `layer` of the last full-attention forward (M = T, batch B) read, after the
    // encoding's qk hook (RoPE rotates k), backend memory: image b's token t has its d key values
    // (heads side by side) at element (b·T + t)·*row_stride of the pointer returned (3d in a
    // packed (B, T, 3d) q|k|v, 2d in MP3's compact k|v); NULL when that forward was masked.
    // *bf16 = 1 when they are stored bf16 (train.activations=bf16), else 0 (fp32). NULL hook: no
    // attention.
    const void *(*attention_keys)(const struct model *m, int layer, int B, int *bf16, size_t *row_stride);
    // Learned token-mixing weights of block `layer` as the last forward used them (T, T) (gMLP's
    // spatial W: the dense one, resampled, or gathered from the Toeplitz table); NULL hook: none.
    const float *(*spatial_weights)(const struct model *m, int layer);
    // 1: supports masked attention with a context of M < T key tokens (model_set_context).
    int masked_attention;
    // 1: runs train.activations=bf16 (model_config.bf16_activations: the GEMM-feeding activations
    // stored bf16, core/ops_list.h "bf16 activations"); 0: model_config_error refuses it.
    int bf16_activations;
    // The position encodings these blocks can use (NULL: every kind); config_error names the
    // valid ones with posenc_names_where(pe_ok, ...).
    int (*pe_ok)(const struct posenc_kind *pe);
    // 1: the PyTorch trainer (bench/crosscheck/torch_train.py, its model tests/torch_vit.py) has these blocks.
    int crosscheck_ok;
    // The blocks' PyTorch twin in `posbench bench --torch` (bench/perf/torch_cpu_step.py --arch):
    // 0 ViT (tests/torch_vit.py, also the only one torch_gpu_step.py has), 1 gMLP, 2 aMLP
    // (tests/torch_gmlp.py).
    int torch_step_arch;
    // 1: timm's VisionTransformer builds these blocks, so `crosscheck --init timm` can start the
    // PyTorch twin from it (bench/crosscheck/timm_match.c).
    int timm_vit;
    // Its own configuration keys (ended by {NULL}; NULL: none), gathered into the key table
    // (bench/config/config.c), and their reader into the model config's arch_own (NULL: none),
    // called by backbone_read_keys only for the model's backbone.
    const cfg_key *keys;
    void (*read_keys)(const key_reader *r, struct model_config *c);
    // Forward FLOPs of one block per image with T tokens and M key tokens (multiply-add = 2).
    double (*block_flops)(const struct model_config *c, int T, int M);
} backbone_kind;

// The chosen backbone's own settings in a model config (model_config.arch_own, MODEL_OWN_BYTES
// zeroed bytes that only its read_keys fills), as its own struct: BACKBONE_OWN(c, const gmlp_settings).
#define BACKBONE_OWN(c, type) ((type *)(void *)(c)->arch_own)

// The registry: X(name) once per backbone, in the order `--help` lists them.
#define BACKBONE_KINDS(X) X(vit) X(gmlp) X(amlp)
#define BACKBONE_CHOICE_(name) "|" #name
#define BACKBONE_CHOICES (BACKBONE_KINDS(BACKBONE_CHOICE_) + 1)
#define BACKBONE_DECLARE(name) extern const backbone_kind backbone_##name;
BACKBONE_KINDS(BACKBONE_DECLARE)
#undef BACKBONE_DECLARE

// model.arch, ended by {NULL}.
extern const cfg_key backbone_common_keys[];
// The i-th kind of BACKBONE_KINDS, NULL past the last.
const backbone_kind *backbone_at(int i);
// The backbone named `name` (NULL: "vit"), or NULL when there is none.
const backbone_kind *backbone_find(const char *name);
// Reading model.arch and the chosen backbone's own keys into a model_config: backbone_read_keys
// and backbone_read_own in model_config.h (model_config.c), so that this table needs no config.
