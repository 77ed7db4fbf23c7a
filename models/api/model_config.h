// models/api/model_config.h — what a model is built from (model_config): what every model has (the
// input, the shape, the encoding and backbone names, the regularisation and initialisation
// rules), what the objective asks of it (model_request) and two opaque blocks of the chosen
// encoding's and backbone's own settings, each read only by its module (POSENC_OWN,
// BACKBONE_OWN); and the sub-model interface (model_extension). A setting of one module does
// not belong here (tests/test_registries.c lists the fields and fails on a new one). Split from
// model.h so the position encodings (models/posenc/) read their config without the model itself
// (they see the model through model_view.h).
#pragma once
#include "../../core/keys.h"

struct model;
struct model_config;
// A sub-model that a model owns and declares into its own tables (MAE's light decoder,
// objectives/mae/decoder.c), chosen by the objective that needs it (configure_model sets
// model_request.extension); model.c reaches it only through this table.
typedef struct model_extension {
    const char *(*config_error)(const struct model_config *c); // NULL: fine, else why (naming keys)
    void (*declare_params)(struct model *m); // after the head's parameters
    void (*declare_acts)(struct model *m);   // after the model's activations
    void (*ready)(struct model *m);          // the arenas exist
    void (*free)(struct model *m);
    double (*forward_flops)(const struct model_config *c); // per image
} model_extension;

// What the objective asks of the model (objectives/<name>/ configure_model fills it; a zeroed
// request is a classifier on every token with full attention).
typedef struct model_request {
    // The head: 0 = a classifier
    // Linear(d, num_classes) on the cls token (or the mean of all tokens without cls), logits
    // (B, num_classes); 1 = a linear head on every token, logits (B, T, N) with N outputs, one
    // per patch position (MP3's position head). head_name names its tensors ("head" when NULL):
    // a later stage that changes the head starts it fresh.
    int token_head;
    const char *head_name;
    int token_outputs;         // token_head: outputs per token (0 = N, the positions; GVP's pixel head: C·p·p)
    int query_stream;          // 1: GVP's two-stream model (N query tokens after the content tokens, see above);
                               // needs a pe.kind with reference_table and context_tokens = T
    int context_tokens;        // > 0: size the arena for masked attention with this many key tokens
                               // (cls included) at max_batch; 0: full attention only
    int ref_tokens;            // > 0: the position encoding (a kind with reference_table) is added only to
                               // this many patch tokens per image, drawn anew in every forward at
                               // (rng.seed, RNG_REFERENCE, rng.epoch, rng.step, rng.index + image): MP3's
                               // reference points (speech variant); 0: to every token
    int keep_tokens;           // > 0: MAE's encoder: the blocks see this many tokens per image (cls + the kept
                               // patches, model_keep) when model_set_keep asks; block activations are sized
                               // for them (a full forward fits model_batch_capacity(m, m->T) images)
    const model_extension *extension; // a sub-model (MAE's decoder; objectives/mae/decoder.h), or NULL
    int decoder_depth, decoder_dim; // > 0: MAE's light decoder (objectives/mae/decoder.h): blocks of width decoder_dim
                               // (heads and mlp_ratio as the encoder's) after the token head (decoder_embed)
    int proj_outputs;          // > 0: SimCLR's projection (objectives/simclr/projection.h): ReLU, then Linear(num_classes,
                               // proj_outputs) after the classifier head (num_classes = simclr.hidden_dim)
    int head_bottleneck, head_prototypes; // > 0: DINO's head after the classifier (objectives/dino/head.h): bottleneck width, prototypes K
} model_request;

#define MODEL_OWN_BYTES 32 // the largest encoding's or backbone's own settings (each asserts its struct fits)

typedef struct model_config {
    const char *arch;          // model.arch: a name of BACKBONE_KINDS (models/backbone.h); NULL = "vit"
    const char *pe_kind;       // pe.kind: a name of POSENC_KINDS (models/posenc/encoding.h); NULL = "none"
    int channels, image_size;  // input (B, channels, image_size, image_size): the size the position
                               // tables (abs, relbias) are built for
    int max_image_size;        // largest input size of any forward (arena sizing); 0 = image_size
    int features;              // > 0: the input is a sequence (B, L, features) of feature vectors (audio:
                               // frames × MFCCs), one token per frame, L = image_size (the "size" of
                               // every size key is then a frame count); channels and patch must be 1.
                               // 0: images
    int vocab;                 // > 0: the input is a sequence (B, L) of token ids (int32 in the images
                               // input's storage; text: bytes and [MASK]), one token each, embedded by a
                               // learned table (vocab, d) ("token_embed.weight", trunc normal 0.02,
                               // decayed) in place of the linear embedding; L = image_size; channels and
                               // patch must be 1 and features 0. 0: no token ids
    int patch, dim, depth, heads, mlp_ratio;
    int cls;                   // 1: prepend a learned cls token and classify from it
    float frame_seconds;       // sequence input: seconds between frames (1D cape's positions); 0 for images
    float content_scale;       // pe.content_scale: the embedded content (B, N, d) is multiplied by this
                               // before any encoding is added (0 or 1 = unscaled; sqrt_d: sqrt(dim))
    int num_classes;           // classifier outputs (ignored with request.token_head)
    float drop_path;           // stochastic depth of the last block (linear in depth from 0)
    float dropout;             // dropout after the embedding and on each residual branch
    int embed_init;            // model.embed_init: how the patch / frame projection starts (MODEL_EMBED_INIT_*)
    int trunc_normal;          // model.trunc_normal: where the trunc-normal(0.02) inits are cut (MODEL_TRUNC_*)
    int linear_init;           // model.linear_init: how Linear weights start (MODEL_LINEAR_INIT_*)
    int bf16_activations;      // train.activations=bf16: the blocks store the activations that feed their
                               // matrix products in bf16 (backbones with bf16_activations; needs
                               // train.precision=bf16, which the trainer checks)
    int recompute_gelu;        // train.recompute=gelu (needs bf16_activations): the blocks keep no GELU output;
                               // one shared buffer holds it, written in the forward and recomputed from the
                               // stored hidden in the backward (the same values: the run is unchanged)
    model_request request;     // what the objective asks of the model (above)
    // The chosen encoding's own settings (pe.cape_*, pe.rope_*): filled by its read_keys alone,
    // read by its own file through POSENC_OWN (models/posenc/encoding.h).
    _Alignas(8) unsigned char pe_own[MODEL_OWN_BYTES];
    // The chosen backbone's own settings (model.sgu_*, model.tiny_attn_dim): filled by its
    // read_keys alone, read by its own file through BACKBONE_OWN (models/backbone.h).
    _Alignas(8) unsigned char arch_own[MODEL_OWN_BYTES];
} model_config;

// model.linear_init, the initialisation of every Linear layer's weight (blocks, heads, decoder;
// not the patch projection: model.embed_init): TIMM trunc-normal std 0.02 (timm's ViT, DeiT,
// DINO; cut by model.trunc_normal), XAVIER Xavier-uniform U(±√(6/(fan_in + fan_out))) (MAE's
// code initialises every nn.Linear so). Biases stay 0 either way.
enum { MODEL_LINEAR_INIT_TIMM = 0, MODEL_LINEAR_INIT_XAVIER };
#define MODEL_LINEAR_INIT_CHOICES "timm|xavier"
int model_linear_init_parse(const char *name); // -1 when not one of MODEL_LINEAR_INIT_CHOICES

// model.embed_init, the initialisation of the patch (or speech frame) projection Linear(fan_in, d),
// fan_in = channels·p·p or the features per frame (docs/methods.md "Initialisation"):
//   TIMM       timm / DeiT: PyTorch's default for the Conv2d / Linear, weight and bias ~
//              U(±1/√fan_in); embedded content RMS ≈ 0.58·RMS(input) per channel for any fan_in
//   XAVIER     MAE: weight Xavier-uniform U(±√(6/(fan_in + d))) on the flattened projection; the
//              bias keeps PyTorch's default U(±1/√fan_in) (MAE re-initialises only the weight)
//   NORMAL002  posbench's earlier rule: weight trunc-normal std 0.02, bias 0 (reproduces those runs
//              bit for bit; at fan_in 16 the content is ~7× smaller than timm's)
// Token tables (text), cls, query and mask tokens and the learned position tables keep their
// papers' inits whatever this says.
enum { MODEL_EMBED_INIT_TIMM = 0, MODEL_EMBED_INIT_XAVIER, MODEL_EMBED_INIT_NORMAL002 };
#define MODEL_EMBED_INIT_CHOICES "timm|xavier|normal002"
int model_embed_init_parse(const char *name); // -1 when not one of MODEL_EMBED_INIT_CHOICES

// model.trunc_normal, where every trunc-normal std 0.02 initialisation (the blocks' and heads'
// Linear weights, the abs table, cls / mask / query tokens, normal002's patch weight) is cut:
//   TIMM  timm's trunc_normal_(std=.02) with its default bounds ±2 in absolute units (±100 std):
//         in effect N(0, 0.02²), the reference implementation's rule (a zeroed config's value)
//   STD2  ±2 std, posbench's rule before the init audit: a narrower distribution (std 0.0176);
//         reproduces those runs bit for bit and under their old run ids
enum { MODEL_TRUNC_TIMM = 0, MODEL_TRUNC_STD2 };
#define MODEL_TRUNC_CHOICES "timm|std2"
int model_trunc_normal_parse(const char *name); // -1 when not one of MODEL_TRUNC_CHOICES
float model_trunc_normal_cut(const model_config *c); // the cut in units of std (100 or 2)


// 1: the input is a sequence (feature vectors or token ids: a 1 × L grid), 0: images.
static inline int model_config_is_sequence(const model_config *c) { return c->features > 0 || c->vocab > 0; }

// models/model_config.c: questions about a config, without a model.
// Returns a description of an impossible config, or NULL when the config is valid.
const char *model_config_error(const model_config *cfg);
// Returns why `size` cannot be a model input (naming `key`, e.g. "eval.resolutions"), or NULL.
const char *model_resolution_error(const model_config *cfg, int size, const char *key);
// Rows and columns of the token grid of a config at `size` (images: size/patch each; sequences:
// 1 and size).
void model_grid_at(const model_config *cfg, int size, int *rows, int *cols);
// Forward FLOPs per image (multiply-add = 2) at cfg->image_size with M key tokens (M = T: full
// attention), for benchmarks and results; a training step is ~3x.
double model_forward_flops_masked(const model_config *cfg, int M);
double model_forward_flops(const model_config *cfg);

// model.arch into c, then backbone_read_own (the backbone's own keys; models/backbone.h's table).
void backbone_read_keys(const key_reader *r, model_config *c);
// The own keys of c's backbone (its read_keys) into c->arch_own, zeroed first (c->vocab must be
// set: gMLP's Toeplitz form follows the input).
void backbone_read_own(const key_reader *r, model_config *c);
// The largest input size (max_image_size, at least image_size), and the values per embedded token
// (a patch's pixels, or a frame's features).
int model_max_size(const model_config *c);
int model_token_inputs(const model_config *c);
