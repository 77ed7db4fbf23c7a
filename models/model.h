// models/model.h — a model as named steps: embed -> position -> blocks -> head
// (docs/methods.md "ViT backbone"). This interface owns the steps every backbone shares and the
// memory (implemented by model.c, model_tables.c, model_views.c; a config alone: model_config.h);
// the blocks are a backbone module (models/backbones/<arch>.c, behind models/backbone.h,
// chosen by cfg.arch = `model.arch`), the position encoding a posenc module
// (models/posenc/<kind>.c, behind models/posenc/encoding.h, cfg.pe_kind = `pe.kind`). This
// file has no per-arch and no per-kind code.
// Embed: patches p×p -> linear to d; or, for a sequence input (cfg.features > 0: audio frames ×
// MFCCs), each feature vector -> linear to d, one token per frame; or, for token ids (cfg.vocab
// > 0: text bytes), a row of a learned embedding table per token; optional cls token. Position: none | abs (learned table,
// cls has its own row) | sin1d | sin2d (CAPE eq. 3-4) | cape (sin2d with training-time
// augmentation of the positions) | relbias (2D relative bias per layer and head, with cls
// entries) | rope (rotary q/k, 1D or 2D axial; cls not rotated). Blocks: the backbone's
// (vit: pre-LN x += Attn(LN(x)), x += MLP(LN(x))). Head: final LN, then a classifier on cls
// (or the mean of all tokens without cls), or, for MP3 pretraining, a position head
// Linear(d, N) on every token (the objective chooses: token_head, head_name).
// Resolution: the model is built for image_size (the abs table and the relbias table have that
// grid) and takes any size up to max_image_size that the patch divides (model_set_resolution):
// abs is resized bicubically to the new grid (cls row kept; differentiable, so UniViT can train
// through it), relbias offsets beyond the table are clipped to its edge, sin1d/sin2d/cape/rope
// are computed for the new grid.
// Reference tokens (cfg.request.ref_tokens = R > 0, MP3's speech variant): only R random patch tokens
// per image (and cls, which keeps its own row as always) get the position encoding; the rest
// carry none.
// MP3's masked attention (backbones that support it): with a context of M < T key tokens per
// image (model_context), queries come from all T tokens but keys and values are computed for
// the M context tokens only.
// GVP's two streams (cfg.request.query_stream, backbones with masked attention): after the T content
// tokens the blocks see N query tokens, query token n = a learned vector + the position
// encoding's row of patch n (the kind's reference_table), through the same blocks and weights;
// keys and values come from the content tokens only (masked attention whose context is the T
// content tokens), and group ids (model_groups, model_set_streams) decide who sees whom.
// MAE (cfg.request.keep_tokens, cfg.request.decoder_depth; objectives/mae/decoder.h): the blocks see only the kept
// tokens of each image (model_keep, model_set_keep), gathered after the position encoding, and
// their activations are sized for them; a light decoder (a second stack of the backbone's
// blocks, declared into this model's tables under "decoder.") rebuilds every token.
// Memory: parameters, gradients, activations and inputs are declared once in tensor tables
// (name, shape, and for parameters how they start and whether they decay) and live in backend
// arenas allocated once through ops->alloc (model_create, sized for max_batch images of
// max_image_size). A declaration binds named pointers (llm.c style: m->weights.patch_w and
// m->weight_grads.patch_w, a block's w->qkv_w) that point into the arenas once they exist.
// What the host prepares (images, MP3 contexts, reference tokens, CAPE positions, the tables of
// the current grid) is written into one host staging buffer with the inputs' layout
// (model_images, model_context, ...) and uploaded by model_forward (per-step inputs) or
// model_set_resolution (grid tables); the host reads results back only through explicit
// downloads. Forward and backward call the op backend in explicit reverse order.
#pragma once
#include "../core/ops.h"
#include "../core/tensor.h"
#include "backbone.h"
#include "posenc/encoding.h"

#include "api/model_config.h"
#include "api/model_view.h"

enum { MODEL_KEPT_SIZES = 2 }; // model_keep_resolution: the most sizes a model keeps

// The embedding's and the head's parameters (and, with the same type, their gradients).
typedef struct {
    float *patch_w, *patch_b;  // (d, channels·p·p), (d); NULL with token ids (cfg.vocab)
    float *token_w;            // cfg.vocab: the token embedding (vocab, d), NULL otherwise
    float *cls_token;          // (d), NULL without cls
    float *query_token;        // query_stream: (d) GVP's learned query vector w, NULL otherwise
    float *norm_w, *norm_b;    // final LayerNorm (d)
    float *head_w, *head_b;    // (outputs, d), (outputs)
} model_weights;

// The embedding's and the head's activations (and, with the same type, their gradients; a
// pointer is NULL where the tensor does not exist or has no gradient).
typedef struct {
    float *patches;            // (B, N, channels·p·p)
    float *embed;              // (B, N, d) patch embedding
    float *ref_rows;           // ref_tokens: (B, t0 + R, d) the encoding rows added to them
    float *x0;                 // (B, T, d) tokens with their position encoding
    float *x0_drop, *x0_mask;  // dropout > 0: x0 after dropout, and its mask
    float *final, *final_mean, *final_rstd; // final LayerNorm (B, T, d), (B, T), (B, T)
    float *features;           // (B, d) the classifier's input
    float *logits;             // (B, num_classes), or (B, T + Tq, outputs) with token_head
    // query_stream: the two streams (B, T + N, d) the blocks read (content rows, then query
    // rows), the query rows' parts (B·N, d): copies of w and the encoding rows; query_rows is a
    // gradient buffer only.
    float *streams, *query_w_rows, *query_pe_rows, *query_rows;
    float *x_keep;             // keep_tokens: (B, keep, d) the kept tokens the blocks read
} model_activations;

// What the host prepares: in the backend arena (m->batch) and in the host staging buffer
// (m->batch_host), same layout.
typedef struct {
    float *images;             // (B, channels, S, S), or a sequence (B, L, features), or token ids (B, L) (ints)
    float *cls_index;          // (B) token index 0 of every image (the cls gather), zeros (ints)
    float *context;            // masked attention: (B, M) key tokens per image (ints), NULL otherwise
    float *ref_index;          // ref_tokens: (B, t0 + R) token indices: cls, then the references (ints)
    // query_stream (ints): (B, T + N) group ids of the two streams; (B, N) the query rows' token
    // indices T + n; (B·N) their encoding rows t0 + n; (B·N) zeros (copies of w)
    float *groups, *query_index, *query_pe_index, *query_w_index;
    float *keep_index;         // keep_tokens: (B, keep_tokens) the kept token indices per image (ints)
} model_batch;

typedef struct model {
    model_config cfg;
    const backbone_kind *arch;     // the blocks' hooks
    void *arch_state;              // their tensors (models/backbones/<arch>.c)
    const posenc_kind *pe;         // the position encoding's hooks
    void *pe_state;                // its tensors (models/posenc/<kind>.c)
    const ops_backend *ops;
    int max_batch, t0;             // t0 = cls ? 1 : 0
    int image_size, N, T;          // current input size (model_set_resolution) in pixels or frames:
                                   // N = rows·cols patches (frames), tokens T = N + t0
    int rows, cols;                // the token grid: images grid × grid, sequences 1 × L
    int grid;                      // images: the side of the grid (rows = cols); sequences: 0
    int rows0, cols0, grid0, T0;   // the same at cfg.image_size (the abs / relbias tables)
    int rows_max, cols_max, grid_max, T_max, N_max; // at cfg.max_image_size (arena sizing)
    int M_alloc;                   // key tokens the M-sized activations were sized for
    int M;                         // key tokens of the next forward: T = full attention,
                                   // < T = the first M entries per image of model_context
    int Tq, Tq_max;                // query tokens the blocks see after the content tokens (GVP: 0 or
                                   // N, model_set_streams), and the most (N_max with query_stream)
    int mask_mode;                 // ATTN_MASK_NONE, or LT / LE by the group ids of model_groups
    int keep;                      // tokens the blocks see in the next forwards (MAE, model_set_keep); 0 = all
    int keep_alloc;                // keep_tokens: tokens per image the block activations are sized for
    struct model *owner;           // a sub-model (MAE's decoder): its declarations go to the owner's
    const char *prefix;            //   tables, names prefixed with this
    void *extension_state;         // the extension's own (cfg.request.extension: MAE's decoder objectives/mae/decoder.c,
                                   // SimCLR's projection objectives/simclr/projection.c, DINO's head)

    // Layout: the tables decide the arenas (params also drives gradients, optimizer moments,
    // checkpoints and HDF5 names); `bindings` are the named pointers to fill once allocated.
    tensor_table params, acts, act_grads, inputs;
    float *param, *grad;           // backend arenas (params.total floats each)
    float *act, *dact;             // backend arenas (acts.total, act_grads.total floats)
    float *input;                  // backend arena (inputs.total floats)
    float *staging;                // host copy of the inputs (inputs.total floats)
    struct model_binding *bindings;
    int binding_count, binding_capacity;

    model_weights weights, weight_grads;
    model_activations activations, activation_grads;
    model_batch batch, batch_host;
    int *ref_scratch;              // ref_tokens: (N_max) ints for drawing the references (host)
    const float *blocks_out;       // the last forward's block output (B, T, d) (the backbone's)
    int training_dropout;          // the last forward applied dropout (backward must undo it)
    int upload_mark;               // > 0: the next forward records timing mark upload_mark once its inputs
                                   // are uploaded (ops timer_mark; posbench bench --breakdown), then
                                   // clears it (an objective with several forwards: its first); 0: none
    // model_measure_embedding: set, the next forward measures its embedding (then clears it)
    int measure_embedding;
    double content_rms, posenc_rms; // that forward's: RMS of the embedded content (B, N, d) and of
                                   // what the position encoding added to it (0: none added); NAN before
    // model_keep_resolution: the sizes kept and, per size, a backend copy of every input but the
    // images (inputs.total - images floats) as model_set_resolution left them at that size
    int kept_size[MODEL_KEPT_SIZES], kept_n;
    float *kept_inputs[MODEL_KEPT_SIZES];
    const float *images_from;      // model_images_from: the next forward's images (backend), or NULL
} model;

// Validates the config (dies with exit 2 naming the key on impossible combinations) and
// allocates every arena. Parameters are initialised from (seed, RNG_INIT, tensor index).
void model_create(model *m, const model_config *cfg, const ops_backend *ops, int max_batch, uint32_t seed);
// The first half of model_create: validates the config and fills the tensor tables (params, acts,
// act_grads, inputs: what each arena will hold, sized through ops, e.g. ops->attention_state_floats)
// without allocating any arena or binding any pointer; model_create is this, then the arenas.
// A declared model is only for reading its tables (posbench bench --arena-only) and model_free.
void model_declare(model *m, const model_config *cfg, const ops_backend *ops, int max_batch);
void model_free(model *m); // also of a model that was only declared
void model_init_params(model *m, uint32_t seed);

// Sets the input size of the next forwards (size % patch == 0, size <= max_image_size; full
// attention only): grid, N, T and every position table follow. Dies with a bad-input error
// naming the size otherwise. model_create starts at cfg.image_size.
void model_set_resolution(model *m, int size);
// Keeps what model_set_resolution(m, size) writes into the backend inputs (every encoding's and
// backbone's grid tables: all inputs but the images), copied once here into backend memory, so
// that every later model_set_resolution to `size` also restores them by a backend copy after its
// host work. A step replayed as a CUDA graph that switches sizes (DINO's local crops) then gets
// each size's tables: the host work (set_grid's tables and uploads from the one staging input)
// ran once, at the capture. At most MODEL_KEPT_SIZES sizes (none for a model only declared);
// the model stays at its size. The other inputs are restored as they were here too: every
// forward stages its own (images, context, references, kept tokens, drawn positions) after the
// switch. The copy also makes a switch immune to the host rewriting the staging before an
// earlier upload of it ran.
void model_keep_resolution(model *m, int size);
// The next forward copies its images (B inputs at the current size, backend memory) from
// `images` instead of uploading them from the staging input: a step whose views were staged in
// backend memory before it (DINO's local crops) reads no host memory for them inside it.
void model_images_from(model *m, const float *images);

// Forward pass for B <= max_batch images (B, channels, S, S), S = m->image_size, written by the
// host into the staging input model_images(m) (uploaded here, with the context, the reference
// tokens and the encoding's draws). training=1 enables dropout and drop path drawn at `rng`
// (purpose and index are set per call site) and CAPE's position augmentation drawn at
// (rng.seed, RNG_POSENC, rng.epoch, rng.step, image); reference tokens (cfg.request.ref_tokens) are
// drawn at (rng.seed, RNG_REFERENCE, rng.epoch, rng.step, rng.index + image) in every
// forward, training or not (an evaluation passes its first image's index as rng.index, so
// its draws do not depend on how the test set is split into batches). Returns the logits
// (backend memory). model_images first waits until the previous forwards' uploads have read the
// staging (ops->upload_wait: a pinned staging is uploaded asynchronously), so the caller may
// write it; every writer of a step's staging inputs calls it before the step's writes.
float *model_images(model *m);
// For backbones: drop path's keep scales (B) of a forward's images, drawn at (rng.seed,
// RNG_DROPPATH, rng.epoch, rng.step, site_index), element first + b for image b where first =
// rng.index of a training forward (a train.accumulate micro-batch's first image; 0 otherwise):
// the scales the whole batch's forward would draw. keep holds max_batch floats.
void model_drop_path_scales(model *m, float *keep, int B, float p, rng_addr rng, uint32_t site_index);
// For backbones: dropout of a training forward's (B, per_image) tensor `in` into out and mask,
// drawn at (rng.seed, RNG_DROPOUT, rng.epoch, rng.step, site_index), element rng.index · per_image
// + e for element e (rng.index: a train.accumulate micro-batch's or a rank's first image, 0
// otherwise): each image gets the mask the whole batch's forward draws for it, so dropout is the
// same with train.accumulate=N, under mpirun -np N and in one whole-batch step.
void model_dropout_forward(model *m, float *out, float *mask, const float *in, int B, size_t per_image, float p,
                           rng_addr rng, uint32_t site_index);
// Floats (token ids for text) of one input in model_images at the current size.
size_t model_input_floats(const model *m);
const float *model_forward(model *m, int B, int training, rng_addr rng);
// Backward from dlogits (B, num_classes), which the caller wrote into model_dlogits(m) after
// zeroing the activation gradients with model_zero_act_grads. Parameter gradients accumulate.
float *model_dlogits(model *m);
// The last forward's reference tokens (B, model_reference_width(m)): cls first when there is
// one, then the references; NULL (width 0) without cfg.request.ref_tokens.
const int *model_reference_tokens(const model *m);
int model_reference_width(const model *m);
// Clears every activation gradient an op adds to: all but those marked model_grad_written.
void model_zero_act_grads(model *m);
// The same for a backward of batch B: a batch-major gradient (model_add_batch_act) is cleared
// for its first B images only, every other one whole; the same values as model_zero_act_grads
// wherever a backward of B images reads, without clearing eval.batch-sized arenas each step.
void model_zero_act_grads_batch(model *m, int B);
// The same for the act-grad tensors among grads[0..count) (NULLs skipped): a backbone clearing
// its shared block gradients between blocks (models/backbones/vit.c, gmlp.c), sizes from the table.
void model_zero_act_grads_of(model *m, float *const *grads, int count, int B);
// Marks the declared activation gradient `name` (this model's name for it) as one that every
// backward writes, or clears where it uses it, before any op adds to it (a backbone's bf16
// gradients, its shared transients): model_zero_act_grads(_batch) leave it as it is. Dies
// (internal) on a name with no gradient.
void model_grad_written(model *m, const char *name);
void model_backward(model *m, int B);

// Context for masked attention: (B, M) token indices per image (cls, when present, should be
// among them; no repeats), written by the caller before model_forward. model_set_context(m, M):
// M = m->T restores full attention. model_batch_capacity: the largest batch a forward with M
// key tokens fits in the arena (M-sized activations were sized for max_batch × M_alloc).
int *model_context(model *m);
void model_set_context(model *m, int M);
int model_batch_capacity(const model *m, int M);
// Tokens the blocks see: the T content tokens, then Tq query tokens (GVP), and the most.
// With keep_tokens: the kept tokens while model_set_keep holds, and the arena's per-image size.
static inline int model_tokens(const model *m) { return m->keep > 0 ? m->keep : m->T + m->Tq; }
static inline int model_tokens_max(const model *m) { return m->keep_alloc > 0 ? m->keep_alloc : m->T_max + m->Tq_max; }
// MAE (cfg.request.keep_tokens = K): model_keep is the host staging (B, K) of each image's kept token
// indices (cls first when there is one, no repeats), written before model_forward;
// model_set_keep(m, K) makes the next forwards run the blocks, final norm and token head on
// those K tokens only (logits (B, K, outputs)); model_set_keep(m, 0) restores every token.
int *model_keep(model *m);
void model_set_keep(model *m, int keep);
// GVP (cfg.request.query_stream): query_stream 1 adds the N query tokens to the next forwards (0: the
// content stream alone, as a finetuned or probed model sees it); mask_mode ATTN_MASK_LE / LT
// applies the group ids the caller wrote into model_groups(m) ((B, T + Tq) ints per forward,
// content tokens first), ATTN_MASK_NONE full attention. Keys are always content tokens.
void model_set_streams(model *m, int query_stream, int mask_mode);
int *model_groups(model *m);
// The token features after block `layer` (0-based) of the last forward: (B, T, d), backend memory.
const float *model_block_output(const model *m, int layer);
// 1 when the blocks have attention probabilities to record (vit; not gmlp, amlp).
int model_has_attention(const model *m);
// on = 1: the following forwards also keep every block's attention probabilities
// (attention_desc.keep_probs; the CUDA backend then runs its materialising kernels) in buffers
// of (max_batch, H, T, M_alloc) per block allocated now; on = 0 frees them. Training needs only
// the backend's saved state (ops->attention_state_floats), never these: turn it on for a
// statistics forward and off after. Nothing for a backbone without attention.
void model_keep_attention_probs(model *m, int on);
// The attention probabilities of block `layer` in the last forward (B, H, T, M), backend
// memory, when that forward ran with the probabilities kept; else NULL.
const float *model_attention_probs(const model *m, int layer);
// The keys of block `layer` in the last forward (batch B), when it ran full attention over every
// token (model_set_context(m, m->T), no kept-token subset): image b's token t has its d key
// values, heads side by side as core/ops.h's attention reads them, after RoPE's rotation, at
// element (b·T + t)·*row_stride of the pointer returned; backend memory. NULL for a backbone
// without attention or after a masked forward. *bf16 = 1 when the values are stored bf16
// (core/bf16.h; train.activations=bf16), 0 for fp32.
const void *model_attention_keys(const model *m, int layer, int B, int *bf16, size_t *row_stride);
// The token-mixing weights (T, T) of block `layer` the last forward used (gMLP's spatial W),
// backend memory; NULL when the backbone has none.
const float *model_spatial_weights(const model *m, int layer);

// Bytes of the activation, activation-gradient and input arenas.
size_t model_activation_bytes(const model *m);
// Asks the next model_forward to measure its embedding: after it, m->content_rms is the RMS over
// every value of the embedded content (B, N, d) (after pe.content_scale) and m->posenc_rms that of
// what the position encoding added to the patch tokens (x0's patch rows minus the content: the
// table, the per-image sinusoid or CAPE draw, or MP3's reference points; 0 for encodings that act
// inside attention: relbias, rope, none). Reads both tensors back to the host once (sums in
// double, in index order: deterministic).
void model_measure_embedding(model *m);
