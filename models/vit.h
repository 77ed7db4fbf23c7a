// models/vit.h — the Vision Transformer backbone (METHODS.md "ViT backbone").
// Patches p×p -> linear to d; optional cls token; a position encoding (METHODS.md "Position
// encodings"): none | abs (learned table, cls has its own row) | sin1d | sin2d (CAPE eq. 3-4)
// | cape (sin2d with training-time augmentation of the positions) | relbias (2D relative bias
// per layer and head, with cls entries) | rope (rotary q/k, 1D or 2D axial; cls not rotated);
// pre-LN blocks x += Attn(LN(x)), x += MLP(LN(x)); final LN; classifier on cls (or the mean of
// all tokens without cls), or, for MP3 pretraining, a position head Linear(d, N) on every token.
// Resolution: the model is built for image_size (the abs table and the relbias table have that
// grid) and takes any size up to max_image_size that the patch divides (vit_set_resolution):
// abs is resized bicubically to the new grid (cls row kept; differentiable, so UniViT can train
// through it), relbias offsets beyond the table are clipped to its edge, sin1d/sin2d/cape/rope
// are computed for the new grid.
// Reference tokens (cfg.ref_tokens = R > 0, MP3's speech variant): only R random patch tokens
// per image (and cls, which keeps its own row as always) get the position encoding; the rest
// carry none.
// MP3's masked attention: with a context of M < T key tokens per image (vit_context), queries
// come from all T tokens but keys and values are computed for the M context tokens only, so
// the qkv projection costs T·d² + 2·M·d² and attention T×M.
// Position encodings are modules behind models/posenc/encoding.h (cfg.pe_kind names one);
// this file calls their hooks and has no per-kind code.
// Memory: parameters, gradients, activations and inputs are declared in tensor tables and
// live in backend arenas allocated once through ops->alloc (vit_create, sized for max_batch
// images of max_image_size). What the host prepares (images, MP3 contexts, reference tokens,
// CAPE positions, the tables of the current grid) is written into one host staging buffer
// with the inputs' layout (vit_images, vit_context, ...) and uploaded by vit_forward (per-step
// inputs) or vit_set_resolution (grid tables); the host reads results back only through
// explicit downloads. Forward and backward call the op backend in explicit reverse order.
#pragma once
#include "../core/ops.h"
#include "../core/tensor.h"
#include "posenc/encoding.h"

#define VIT_MAX_ACTS 2048

typedef struct vit_config {
    int channels, image_size;  // input (B, channels, image_size, image_size): the size the position
                               // tables (abs, relbias) are built for
    int max_image_size;        // largest input size of any forward (arena sizing); 0 = image_size
    int patch, dim, depth, heads, mlp_ratio;
    int cls;                   // 1: prepend a learned cls token and classify from it
    const char *pe_kind;       // pe.kind: a name of POSENC_KINDS (models/posenc/encoding.h); NULL = "none"
    float cape_global_shift;   // cape, training only: per-image shift bound (positions span [-1, 1])
    float cape_local_shift;    //   per-token shift bound; < 0: 1/grid side (the paper's 1/N)
    float cape_scale;          //   per-image scale bound lambda_max (1 = no scaling)
    int rope_dims;             // rope: 1 (row-major patch index) or 2 (axial: columns, rows)
    float rope_base;           //   base of the frequencies; 0 = posenc_rope_default_base(rope_dims)
    int num_classes;           // classifier outputs (ignored with token_head)
    // The head, chosen by the objective (objectives/<name>/ configure_model): 0 = a classifier
    // Linear(d, num_classes) on the cls token (or the mean of all tokens without cls), logits
    // (B, num_classes); 1 = a linear head on every token, logits (B, T, N) with N outputs, one
    // per patch position (MP3's position head). head_name names its tensors ("head" when NULL):
    // a later stage that changes the head starts it fresh.
    int token_head;
    const char *head_name;
    int context_tokens;        // > 0: size the arena for masked attention with this many key tokens
                               // (cls included) at max_batch; 0: full attention only
    int ref_tokens;            // > 0: the position encoding (a kind with reference_table) is added only to
                               // this many patch tokens per image, drawn anew in every forward at
                               // (rng.seed, RNG_REFERENCE, rng.epoch, rng.step, rng.index + image): MP3's
                               // reference points (speech variant); 0: to every token
    float drop_path;           // stochastic depth of the last block (linear in depth from 0)
    float dropout;             // dropout after the embedding and on each residual branch
} vit_config;

typedef struct {
    int norm1_w, norm1_b, qkv_w, qkv_b, proj_w, proj_b;
    int norm2_w, norm2_b, fc1_w, fc1_b, fc2_w, fc2_b;
} vit_block_params; // indices into the parameter table

typedef struct {
    int ln1, ln1_mean, ln1_rstd, qkv, att, attn, proj, proj_drop, proj_mask, res1;
    int ln2, ln2_mean, ln2_rstd, fc1, gelu, fc2, fc2_drop, fc2_mask, res2, keep1, keep2;
    // proj_drop/fc2_drop/..._mask are -1 without dropout (the branch is then proj/fc2 itself)
} vit_block_acts; // indices into the activation table

typedef struct vit {
    vit_config cfg;
    const posenc_kind *pe;         // the position encoding's hooks
    void *pe_state;                // its own tensor indices (models/posenc/<kind>.c)
    const ops_backend *ops;
    int max_batch, t0;             // t0 = cls ? 1 : 0
    int image_size, grid, N, T;    // current input size (vit_set_resolution): patches N = grid²,
                                   // tokens T = N + t0
    int grid0, T0;                 // grid and tokens at cfg.image_size (the abs / relbias tables)
    int T_max, N_max, grid_max;    // at cfg.max_image_size (arena sizing)
    int M_alloc;                   // key tokens the M-sized activations were sized for
    int M;                         // key tokens of the next forward: T = full attention,
                                   // < T = the first M entries per image of vit_context

    tensor_table params;           // drives layout of params, grads and optimizer moments
    float *param, *grad;           // backend arenas (params->total floats each)
    int patch_w, patch_b, cls_token, norm_w, norm_b, head_w, head_b;
    vit_block_params *blocks;

    tensor_table acts;             // activations for max_batch
    tensor_table act_grads;        // gradients of the activations that receive one
    int grad_slot[VIT_MAX_ACTS];   // acts index -> act_grads index, -1 when it has no gradient
    float *act, *dact;             // backend arenas
    int a_patches, a_embed, a_x0, a_x0_drop, a_x0_mask, a_final, a_final_mean, a_final_rstd,
        a_feat, a_logits;
    // Inputs: what the host prepares, laid out once in `inputs`; `staging` is the host copy
    // (written by the host), `input` the backend copy (read by the ops).
    tensor_table inputs;
    float *input, *staging;
    int in_images;                 // (B, channels, S, S)
    int in_cls_index;              // (B) token index 0 of every image (the cls gather), zeros
    int in_context;                // masked attention: (B, M) key tokens per image (ints)
    int in_ref_index;              // ref_tokens: (B, t0 + R) token indices: cls, then the references (ints)
    int a_ref_rows;                //   (B, t0 + R, d) the encoding rows added to them
    int *ref_scratch;              //   (N_max) ints for drawing the references (host)
    // Masked (MP3) attention, in a model built with context_tokens (-1 otherwise): each
    // block's qkv activation keeps only q (B, T, C) followed by k|v (B, M, 2C) of the context
    // (no gradient of its own); the (B, T, 3C) layout the attention op reads is one buffer
    // shared by every block (a_mask_qkv, with the shared gradient), re-packed from the block's
    // q and k|v in the backward. LN1 of the context tokens (B, M, C) is also shared (re-gathered
    // in the backward), and so are the gradients of q and k|v (a_mask_q, a_mask_kv: gradient
    // only). A full-attention forward of such a model (B <= vit_batch_capacity(m, T), so
    // 3·B·T·C <= the block's T·C + 2·M·C floats per arena image) stores its whole qkv in the
    // block's activation and its gradient in the shared one.
    int a_mask_qkv, a_mask_q, a_mask_ln1_ctx, a_mask_kv;
    vit_block_acts *block_acts;
    int training_dropout;          // the last forward applied dropout (backward must undo it)
} vit;

// For the position-encoding modules (models/posenc/*.c): declare a parameter (d1 = 0: 1-D),
// an activation (with_grad: it also gets a gradient buffer), or a staging input of n floats
// (or ints), and reach them; vit_upload_input copies the first n floats of an input from the
// staging buffer to the backend.
int vit_add_param(vit *m, const char *name, int decay, int d0, int d1);
int vit_add_act(vit *m, const char *name, size_t n, int with_grad);
int vit_add_input(vit *m, const char *name, size_t n);
float *vit_param(const vit *m, int index);
float *vit_grad(const vit *m, int index);
float *vit_act(const vit *m, int index);
float *vit_dact(const vit *m, int index);
float *vit_input(const vit *m, int index);   // backend copy
float *vit_staged(const vit *m, int index);  // host copy
void vit_upload_input(vit *m, int index, size_t n);

// Validates the config (dies with exit 2 naming the key on impossible combinations) and
// allocates every arena. Parameters are initialised from (seed, RNG_INIT, tensor index).
void vit_create(vit *m, const vit_config *cfg, const ops_backend *ops, int max_batch, uint32_t seed);
void vit_free(vit *m);
void vit_init_params(vit *m, uint32_t seed);

// Returns a description of an impossible config, or NULL when the config is valid.
const char *vit_config_error(const vit_config *cfg);

// Sets the input size of the next forwards (size % patch == 0, size <= max_image_size; full
// attention only): grid, N, T and every position table follow. Dies with a bad-input error
// naming the size otherwise. vit_create starts at cfg.image_size.
void vit_set_resolution(vit *m, int size);
// Returns why `size` cannot be a ViT input (naming `key`, e.g. "eval.resolutions"), or NULL.
const char *vit_resolution_error(const vit_config *cfg, int size, const char *key);

// Forward pass for B <= max_batch images (B, channels, S, S), S = m->image_size, written by the
// host into the staging input vit_images(m) (uploaded here, with the context, the reference
// tokens and the encoding's draws). training=1 enables dropout and drop path drawn at `rng`
// (purpose and index are set per call site) and CAPE's position augmentation drawn at
// (rng.seed, RNG_POSENC, rng.epoch, rng.step, image); reference tokens (cfg.ref_tokens) are
// drawn at (rng.seed, RNG_REFERENCE, rng.epoch, rng.step, rng.index + image) in every
// forward, training or not (an evaluation passes its first image's index as rng.index, so
// its draws do not depend on how the test set is split into batches). Returns the logits
// (backend memory).
float *vit_images(vit *m);
const float *vit_forward(vit *m, int B, int training, rng_addr rng);
// Backward from dlogits (B, num_classes), which the caller wrote into vit_dlogits(m) after
// zeroing the activation gradients with vit_zero_act_grads. Parameter gradients accumulate.
float *vit_dlogits(vit *m);
// The last forward's reference tokens (B, vit_reference_width(m)): cls first when there is
// one, then the references; NULL (width 0) without cfg.ref_tokens.
const int *vit_reference_tokens(const vit *m);
int vit_reference_width(const vit *m);
void vit_zero_act_grads(vit *m);
void vit_backward(vit *m, int B);

// Context for masked attention: (B, M) token indices per image (cls, when present, should be
// among them; no repeats), written by the caller before vit_forward. vit_set_context(m, M):
// M = m->T restores full attention. vit_batch_capacity: the largest batch a forward with M
// key tokens fits in the arena (M-sized activations were sized for max_batch × M_alloc).
int *vit_context(vit *m);
void vit_set_context(vit *m, int M);
int vit_batch_capacity(const vit *m, int M);
// The token features after block `layer` (0-based) of the last forward: (B, T, d), backend memory.
const float *vit_block_output(const vit *m, int layer);

// Forward FLOPs per image (multiply-add = 2) at cfg->image_size with M key tokens (M = T: full
// attention), for benchmarks and results; a training step is ~3x.
double vit_forward_flops_masked(const vit_config *cfg, int M);
double vit_forward_flops(const vit_config *cfg);
// Bytes of the activation and activation-gradient arenas.
size_t vit_activation_bytes(const vit *m);
