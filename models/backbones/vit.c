// models/backbones/vit.c — model.arch=vit: the Transformer's blocks (docs/methods.md "ViT
// backbone"): pre-LN x += DropPath(Dropout(Attn(LN(x)))), x += DropPath(Dropout(MLP(LN(x)))),
// MLP = fc2(GELU(fc1)), the attention multi-head with the position encoding's hooks on q/k
// (rope) and on the scores (relbias).
// MP3's masked attention: with a context of M < T key tokens per image, queries come from all
// T tokens but keys and values are computed for the M context tokens only, so the qkv
// projection costs T·d² + 2·M·d² and attention T×M. In a model built with context_tokens, each
// block's qkv activation keeps only q (B, T, C) followed by k|v (B, M, 2C) of the context (no
// gradient of its own); the (B, T, 3C) layout the attention op reads is one buffer shared by
// every block (mask_qkv, with the shared gradient), re-packed from the block's q and k|v in
// the backward. LN1 of the context tokens (B, M, C) is also shared (re-gathered in the
// backward), and so are the gradients of q and k|v (gradient only). A full-attention forward
// of such a model (B <= model_batch_capacity(m, T), so 3·B·T·C <= the block's T·C + 2·M·C
// floats per arena image) stores its whole qkv in the block's activation and its gradient in
// the shared one.
// Activation gradients: block l's are dead once its backward is done, so the blocks share one
// set sized like one block's (vit_state.grads), and the block's input/output gradient (res2)
// ping-pongs between two buffers: block l's output gradient is dres[l % 2], its input gradient
// (block l - 1's output gradient) dres[(l - 1) % 2]. model_zero_act_grads_batch clears the set
// before the backward like every activation gradient an op adds to (vit_declare_acts lists those
// it skips); between blocks the backward clears again what block l + 1 added to, except the
// gradient it passed down.
// train.activations=bf16 (model_config.bf16_activations, under train.precision=bf16): the
// activations that feed a matrix product are stored bf16 by the op that writes them — LN1 and
// LN2 (residual_layernorm_forward_bf16, the second fused with the first residual add), the
// attention output as proj reads it, the MLP hidden and the GELU output — and read so by
// linear_forward_bf16; proj's output is bf16 too (the fused residual + LN2 reads it). qkv is
// stored bf16 by its projection and read so by attention_forward_bf16, which writes the bf16
// output proj reads (bf16_attention); with an encoding that reaches into attention (RoPE rotates
// q/k in the fp32 qkv, relbias adds learned fp32 scores) qkv stays fp32, the fp32 attention op
// runs, and its output is rounded once for proj (attn16). The residual stream, LayerNorm
// statistics, fc2's output, losses and parameter gradients stay fp32. Gradients of the bf16
// tensors (LN1, LN2, the hidden, GELU; qkv and the attention output with bf16_attention) are bf16
// and written by the op that produces them (linear_backward_bf16, gelu_backward_bf16,
// attention_backward_bf16), and so is the fp32 attention output's (proj's GRAD_WRITE), so neither
// the step nor the backward clears them. Dropout keeps fp32 activations
// (vit_config_error refuses it with bf16). Masked attention (MP3) under bf16 activations, with an
// encoding that stays out of attention and no query stream (compact_attention): the compact
// layout. Each block's qkv activation is bf16: q (B, T, C) from LN1 with the weight's rows [0, C),
// then k|v (B, M, 2C) of the M context tokens only, from LN1's context rows (gathered as bf16 into
// the shared buffer) with rows [C, 3C) (all T rows when M = T: a full-attention forward), and
// attention_kv_forward_bf16 reads them as they are (no packed (B, T, 3C) buffer, no kv_index) and
// writes the bf16 output proj reads. On the same values this is the fp32 masked attention's result
// rounded once (core/ops_list.h), so the forward's bits are those of the fp32 attention on q and
// k|v stored fp32. The backward writes dq and dk|v bf16 into the block gradient's qkv (the same
// layout); the k|v product's dLN1 of the context rows (fp32, shared) is scattered into the fp32
// dLN1, q's product adds to every row, and the sum is rounded once into the bf16 dLN1 (written). The
// fp32 dLN1 lives in proj's output gradient, dead once proj's backward has read it. With RoPE,
// relbias or GVP's query stream, q and the context's k|v stay fp32 (the projections read the bf16
// LN1 and its bf16 context rows), the fp32 attention runs on the packed qkv and its output is
// rounded once for proj (attn16); LN1's gradient is summed in fp32 in the shared qkv gradient
// (dead once unpacked) and rounded once.
// train.recompute=gelu (model_config.recompute_gelu, under bf16 activations): no block keeps its
// GELU output. One shared bf16 (B, T, hd) buffer (vit_state.gelu_shared) is written by
// gelu_forward_bf16 for fc2 in each block's forward and rewritten from the block's stored bf16
// hidden before fc2's backward needs it, as llm.c's recompute: the same op on the same input, so
// the same bits, for (depth - 1)·B·T·hd bf16 values less arena and one more GELU per block.
#include "../model.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    float *norm1_w, *norm1_b;  // (d)
    float *qkv_w, *qkv_b;      // (3d, d), (3d): rows [0, d) q, [d, 2d) k, [2d, 3d) v
    float *proj_w, *proj_b;    // (d, d), (d)
    float *norm2_w, *norm2_b;  // (d)
    float *fc1_w, *fc1_b;      // (hd, d), (hd)
    float *fc2_w, *fc2_b;      // (d, hd), (d)
} vit_block_weights;

// A block's activations (B, T, ...) and, with the same type, their gradients (NULL where a
// tensor has none, and for the dropout tensors without dropout; block_grads).
typedef struct {
    float *ln1, *ln1_mean, *ln1_rstd;   // (B, T, d), (B, T), (B, T)
    float *qkv;                         // (B, T, 3d); masked model: q (B, T, d) then k|v (B, M, 2d)
    float *probs;                       // the attention backward's saved state: the CPU's (B, H, T, M)
                                        // probabilities, CUDA's (B, H, T) row log-sum-exp
    float *attn;                        // (B, T, d) attention output (heads concatenated); bf16 with bf16_attention
    float *attn16;                      // bf16 activations with fp32 attention: (B, T, d) bf16, the output as proj reads it
    float *proj, *proj_drop, *proj_mask; // (B, T, d) projection, after dropout, dropout mask
    float *res1;                        // (B, T, d) x + branch 1
    float *ln2, *ln2_mean, *ln2_rstd;
    float *fc1, *gelu;                  // (B, T, hd)
    float *fc2, *fc2_drop, *fc2_mask;   // (B, T, d)
    float *res2;                        // (B, T, d) the block's output
    float *keep1, *keep2;               // (B) drop-path scales of the two branches
} vit_block_acts;

typedef struct {
    vit_block_weights *weights, *weight_grads; // per block
    vit_block_acts *acts;                       // per block
    vit_block_acts grads;  // the one set of block activation gradients every block uses (res2: dres)
    float *dres[2];        // (B, T, d) the ping-pong pair of block output gradients (dres[1]: depth > 1)
    // Masked attention (models built with context_tokens), shared by every block: the packed
    // (B, T, 3C) qkv and its gradient, LN1 of the context (B, M, C) and its gradient, the
    // gradients of q (B, T, C) and of k|v (B, M, 2C). NULL otherwise.
    float *mask_qkv, *mask_dqkv, *mask_ln1_ctx, *mask_dln1_ctx, *mask_dq, *mask_dkv;
    // Per block (B, H, T, M) attention probabilities, allocated only while the model keeps them
    // (model_keep_attention_probs: the attention statistics of a finished run), else NULL.
    float **kept_probs;
    float *gelu_shared; // train.recompute=gelu: (B, T, hd) bf16, the GELU output of the block at hand; else NULL
} vit_state;

static vit_state *state(const model *m) { return m->arch_state; }

// train.activations=bf16: a bf16 tensor of n elements per image takes ⌈n/2⌉ floats per image of
// the tensor tables (images first, so a smaller batch is a prefix), its pointer read as bfloat16.
static size_t bf16_floats(size_t images, size_t per_image) { return images * ((per_image + 1) / 2); }
static bfloat16 *b16(float *p) { return (bfloat16 *)p; }

// train.activations=bf16 with an encoding that stays out of attention and without masked
// attention (the model is not built with context_tokens): qkv (B, T, 3d), the attention output
// (B, T, d) and their gradients are stored bf16 and the bf16 attention ops run.
static int bf16_attention(const model *m) {
    return m->cfg.bf16_activations && !posenc_in_attention(m->pe) && m->cfg.request.context_tokens == 0;
}

// train.activations=bf16 in a model built with context_tokens (MP3), an encoding that stays out of
// attention and no query stream (GVP's group masks): the compact bf16 layout of q and the context's
// k|v, read by attention_kv_forward_bf16 (see the header).
static int compact_attention(const model *m) {
    return m->cfg.bf16_activations && !posenc_in_attention(m->pe) && m->cfg.request.context_tokens > 0 &&
           !m->cfg.request.query_stream;
}

// The options (ATTN_USES_*) the blocks' attention descs may use (block_attention, the encoding's
// bias), known from the configuration alone: declared when their saved state is sized.
static unsigned block_attention_uses(const model *m) {
    unsigned uses = 0;
    if (m->cfg.request.context_tokens > 0 && !compact_attention(m)) uses |= ATTN_USES_KEY_SUBSET; // MP3's context
    if (m->cfg.request.query_stream) uses |= ATTN_USES_GROUP_MASK;                                 // GVP's streams
    if (m->pe->bias_forward) uses |= ATTN_USES_BIAS;                                               // relbias
    return uses;
}

static void vit_declare_params(model *m) {
    vit_state *s = state(m);
    const model_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    int d = c->dim, hd = c->mlp_ratio * c->dim;
    s->weights = xcalloc((size_t)c->depth, sizeof *s->weights, "vit block weights");
    s->weight_grads = xcalloc((size_t)c->depth, sizeof *s->weight_grads, "vit block weight gradients");
    for (int l = 0; l < c->depth; l++) {
        vit_block_weights *w = &s->weights[l], *dw = &s->weight_grads[l];
#define P(field, suffix, init, decay, d0, d1)                   \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    model_add_param(m, name, init, decay, d0, d1, &w->field, &dw->field)
        P(norm1_w, "norm1.weight", INIT_ONE, 0, d, 0);
        P(norm1_b, "norm1.bias", INIT_ZERO, 0, d, 0);
        P(qkv_w, "attn.qkv.weight", INIT_LINEAR, 1, 3 * d, d);
        P(qkv_b, "attn.qkv.bias", INIT_ZERO, 0, 3 * d, 0);
        P(proj_w, "attn.proj.weight", INIT_LINEAR, 1, d, d);
        P(proj_b, "attn.proj.bias", INIT_ZERO, 0, d, 0);
        if (m->pe->declare_block_params) m->pe->declare_block_params(m, l);
        P(norm2_w, "norm2.weight", INIT_ONE, 0, d, 0);
        P(norm2_b, "norm2.bias", INIT_ZERO, 0, d, 0);
        P(fc1_w, "mlp.fc1.weight", INIT_LINEAR, 1, hd, d);
        P(fc1_b, "mlp.fc1.bias", INIT_ZERO, 0, hd, 0);
        P(fc2_w, "mlp.fc2.weight", INIT_LINEAR, 1, d, hd);
        P(fc2_b, "mlp.fc2.bias", INIT_ZERO, 0, d, 0);
#undef P
    }
}

static void vit_declare_acts(model *m) {
    vit_state *s = state(m);
    const model_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    // Sized for the largest input: every (B, T, ...) activation of a smaller one is a prefix.
    size_t B = (size_t)m->max_batch, T = (size_t)model_tokens_max(m), d = (size_t)c->dim;
    size_t BT = B * T, BTd = BT * d, hd = (size_t)c->mlp_ratio * d, BM = B * (size_t)m->M_alloc;
    int masked = c->request.context_tokens > 0, lp = c->bf16_activations, lp_attn = bf16_attention(m);
    int compact = compact_attention(m);
    size_t Td = T * d, Thd = T * hd;
    // (B, T, d) and (B, T, hd) tensors: fp32, or bf16 where lp says so
    size_t BTd_lp = lp ? bf16_floats(B, Td) : BTd, BThd_lp = lp ? bf16_floats(B, Thd) : BT * hd;
    // qkv and the attention output: bf16 with bf16_attention; compact_attention: q (B, T, d) then
    // k|v (B, M, 2d) in bf16 (d even), the output bf16
    size_t BT3d_at = lp_attn ? bf16_floats(B, 3 * Td) : 3 * BTd, BTd_at = lp_attn || compact ? BTd_lp : BTd;
    size_t qkv_compact = (BTd + 2 * BM * d) / 2;
    s->acts = xcalloc((size_t)c->depth, sizeof *s->acts, "vit block activations");
    for (int l = 0; l < c->depth; l++) {
        vit_block_acts *a = &s->acts[l];
#define A(field, suffix, n)                                     \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    model_add_act(m, name, n, &a->field, NULL)
        A(ln1, "norm1", BTd_lp);
        A(ln1_mean, "norm1.mean", BT);
        A(ln1_rstd, "norm1.rstd", BT);
        // masked: q (B, T, C) then k|v (B, M, 2C) (see above), bf16 with compact_attention
        A(qkv, "qkv", compact ? qkv_compact : masked ? BTd + 2 * BM * d : BT3d_at);
        A(probs, "attn.state", m->ops->attention_state_floats(B, c->heads, T, m->M_alloc, c->dim, block_attention_uses(m)));
        A(attn, "attn.out", BTd_at);
        if (lp && !lp_attn && !compact) {
            A(attn16, "attn.out.bf16", BTd_lp);
        }
        A(proj, "attn.proj", BTd_lp);
        A(res1, "residual1", BTd);
        A(ln2, "norm2", BTd_lp);
        A(ln2_mean, "norm2.mean", BT);
        A(ln2_rstd, "norm2.rstd", BT);
        A(fc1, "mlp.fc1", BThd_lp);
        if (!c->recompute_gelu) {
            A(gelu, "mlp.gelu", BThd_lp);
        }
        A(fc2, "mlp.fc2", BTd);
        A(res2, "residual2", BTd);
        A(keep1, "drop_path1", B);
        A(keep2, "drop_path2", B);
        if (c->dropout > 0) {
            A(proj_drop, "attn.proj.dropout", BTd);
            A(proj_mask, "attn.proj.dropout_mask", BTd);
            A(fc2_drop, "mlp.fc2.dropout", BTd);
            A(fc2_mask, "mlp.fc2.dropout_mask", BTd);
        }
#undef A
    }
    // The blocks' one set of activation gradients, every (B, T, ...) images first. The masked
    // model's qkv gradient is the shared mask_dqkv below, or (compact_attention) dq then dk|v in bf16.
    vit_block_acts *g = &s->grads;
#define G(field, suffix, n) model_add_batch_grad_only(m, "blocks." suffix, n, &g->field)
    G(ln1, "norm1", BTd_lp);
    if (!masked) G(qkv, "qkv", BT3d_at);
    if (compact) G(qkv, "qkv", qkv_compact);
    G(attn, "attn.out", BTd_at);
    G(proj, "attn.proj", BTd);
    G(res1, "residual1", BTd);
    G(ln2, "norm2", BTd_lp);
    G(fc1, "mlp.fc1", BThd_lp);
    G(gelu, "mlp.gelu", BThd_lp);
    G(fc2, "mlp.fc2", BTd);
    if (c->dropout > 0) {
        G(proj_drop, "attn.proj.dropout", BTd);
        G(fc2_drop, "mlp.fc2.dropout", BTd);
    }
#undef G
    if (c->recompute_gelu) model_add_batch_act(m, "blocks.mlp.gelu.shared", BThd_lp, &s->gelu_shared, NULL);
    model_add_batch_grad_only(m, "blocks.residual2.even", BTd, &s->dres[0]);
    if (c->depth > 1) model_add_batch_grad_only(m, "blocks.residual2.odd", BTd, &s->dres[1]);
    if (masked) { // compact_attention has no packed (B, T, 3C) qkv, nor its q and k|v gradients
        if (!compact) model_add_act(m, "attn.qkv", 3 * BTd, &s->mask_qkv, &s->mask_dqkv);
        if (!compact) model_add_grad_only(m, "attn.q", BTd, &s->mask_dq);
        // LN1 of the context: bf16 (d even: vit_config_error) with bf16 activations; its gradient fp32
        model_add_act(m, "norm1.context", lp ? BM * d / 2 : BM * d, &s->mask_ln1_ctx, NULL);
        model_add_grad_only(m, "norm1.context", BM * d, &s->mask_dln1_ctx);
        if (!compact) model_add_grad_only(m, "attn.kv", BM * 2 * d, &s->mask_dkv);
    }
    // What the step's clearing (model_zero_act_grads_batch) leaves alone, as every backward writes
    // it, or clears it where it uses it, before anything adds to it:
    //  - every path: the masked model's shared gradients (attn.qkv, attn.q, attn.kv, norm1.context:
    //    each block's backward clears them before using them, or writes them: the context's dLN1
    //    under bf16 activations, linear_backward_bf16's GRAD_WRITE).
    //  - bf16 activations: the bf16 gradients of LN1, LN2, the hidden and the GELU output (written
    //    by linear_backward_bf16 / gelu_backward_bf16 / to_bf16), the attention output's (bf16, or
    //    fp32 from proj's GRAD_WRITE) and, with bf16 attention or the compact layout, qkv's.
    // Cleared each step, as their first writer adds to them: the residual stream's gradients
    // (residual1, residual2 even / odd), proj's and fc2's outputs (residual_backward adds), every
    // fp32-path block gradient (linear_backward, gelu_backward, attention_backward, layernorm_backward
    // all add), and qkv's with fp32 attention (attention_backward adds).
    if (masked) {
        static const char *const shared[] = {"attn.qkv", "attn.q", "attn.kv"};
        for (int k = 0; k < 3; k++)
            if (!compact) model_grad_written(m, shared[k]);
        model_grad_written(m, "norm1.context");
    }
    if (lp) {
        static const char *const written[] = {"blocks.norm1", "blocks.attn.out", "blocks.norm2", "blocks.mlp.fc1",
                                              "blocks.mlp.gelu"};
        for (int k = 0; k < 5; k++) model_grad_written(m, written[k]);
        if (lp_attn || compact) model_grad_written(m, "blocks.qkv");
    }
}

// Allocates (on) or frees (off) the per-block probability buffers that forwards fill while the
// model keeps its attention probabilities; training never has them.
static void vit_keep_attention_probs(model *m, int on) {
    vit_state *s = state(m);
    int L = m->cfg.depth;
    if (on && !s->kept_probs) {
        size_t n = (size_t)m->max_batch * m->cfg.heads * model_tokens_max(m) * m->M_alloc;
        s->kept_probs = xcalloc((size_t)L, sizeof *s->kept_probs, "kept attention probabilities");
        for (int l = 0; l < L; l++) s->kept_probs[l] = m->ops->alloc(n * sizeof(float), "kept attention probabilities");
    } else if (!on && s->kept_probs) {
        for (int l = 0; l < L; l++) m->ops->free(s->kept_probs[l]);
        free(s->kept_probs);
        s->kept_probs = NULL;
    }
}

// The bf16 GELU output (B, T, hd) fc2 reads in block a's forward and backward: the block's own, or
// with train.recompute=gelu the shared buffer (written by the caller for the block at hand).
static bfloat16 *block_gelu(const model *m, const vit_block_acts *a) {
    return b16(m->cfg.recompute_gelu ? state(m)->gelu_shared : a->gelu);
}

static void vit_free(model *m) {
    vit_state *s = state(m);
    vit_keep_attention_probs(m, 0);
    free(s->weights);
    free(s->weight_grads);
    free(s->acts);
}

// Block l's activation gradients: the shared set, with l's output gradient of the ping-pong pair.
static vit_block_acts block_grads(const vit_state *s, int l) {
    vit_block_acts da = s->grads;
    da.res2 = s->dres[l % 2];
    return da;
}

// Before block l's backward (l < depth - 1): clears the shared gradients block l + 1 wrote,
// the first B images' (B, T, ...) each, except l's output gradient (block l + 1's input
// gradient, which it wrote); and l's input gradient dres[(l - 1) % 2] (block l + 1's output
// gradient) when l > 0. The masked model's shared buffers are cleared where they are used. With
// bf16 activations the bf16 gradients (LN1, LN2, hidden, GELU; qkv with bf16_attention or
// compact_attention) and the attention output's (bf16, or fp32 written by proj's backward) are
// written, never accumulated: they are left as they are.
static void clear_block_grads(model *m, int l, int B) {
    const vit_state *s = state(m);
    const vit_block_acts *g = &s->grads;
    int lp = m->cfg.bf16_activations, lp_attn = bf16_attention(m) || compact_attention(m);
    float *const grads[] = {lp ? NULL : g->ln1,  lp_attn ? NULL : g->qkv,  lp ? NULL : g->attn,
                            g->proj,             g->res1,                 lp ? NULL : g->ln2,
                            lp ? NULL : g->fc1,  lp ? NULL : g->gelu,     g->fc2,
                            g->proj_drop,        g->fc2_drop,             l > 0 ? s->dres[(l - 1) % 2] : NULL};
    model_zero_act_grads_of(m, grads, (int)(sizeof grads / sizeof *grads), B);
}

static int masked_attention(const model *m) { return m->M < model_tokens(m); }

static attention_desc block_attention(const model *m, int B) {
    attention_desc d = {.B = B, .T = model_tokens(m), .C = m->cfg.dim, .H = m->cfg.heads, .M = m->M,
                        .keep_probs = state(m)->kept_probs != NULL};
    if (masked_attention(m) && !compact_attention(m)) d.kv_index = (const int *)m->batch.context; // compact: k|v rows are the keys
    if (m->mask_mode != ATTN_MASK_NONE) d.group = (const int *)m->batch.groups, d.mask_mode = m->mask_mode; // GVP
    if (attention_desc_uses(&d) & ~block_attention_uses(m)) // its saved state was sized without that option
        die_fail("internal: a block's attention uses options %#x its state was not sized for (%#x)", attention_desc_uses(&d),
                 block_attention_uses(m));
    return d;
}

// The (B, T, 3C) qkv the attention of a block reads: the block's own, or (masked attention)
// the shared one packed from the block's q and k|v.
static float *block_qkv(const model *m, const vit_block_acts *a) {
    return masked_attention(m) ? state(m)->mask_qkv : a->qkv;
}
// Its gradient: the block's own in a model without masked attention, else the shared one.
static float *block_dqkv(const model *m, const vit_block_acts *da) {
    return state(m)->mask_dqkv ? state(m)->mask_dqkv : da->qkv;
}

// Masked attention: packs a block's q (B, T, C) and context k|v (B, M, 2C), kept in its qkv
// activation, into the shared (B, T, 3C) buffer, rotated by RoPE when the model has it.
static void qkv_pack(model *m, const vit_block_acts *a, int B) {
    vit_state *s = state(m);
    int d = m->cfg.dim, T = model_tokens(m);
    const float *q = a->qkv, *kv = q + (size_t)B * T * d;
    m->ops->qkv_pack_forward(s->mask_qkv, q, kv, (const int *)m->batch.context, B, T, m->M, d);
    if (m->pe->qk_forward) m->pe->qk_forward(m, s->mask_qkv, B);
}

// Masked attention: gathers LN1 of a block's context tokens (B, M, C) into the shared buffer. Under
// bf16 activations LN1 is bf16 (B, T, C) with C even, so a token's row is C / 2 floats of the tensor
// table and the gather copies C / 2 floats per row: the bf16 values, bit for bit.
static void gather_ln1_context(model *m, const vit_block_acts *a, int B) {
    int row_floats = m->cfg.bf16_activations ? m->cfg.dim / 2 : m->cfg.dim;
    m->ops->gather_tokens_forward(state(m)->mask_ln1_ctx, a->ln1, (const int *)m->batch.context, B, model_tokens(m), m->M,
                                  row_floats);
}

// qkv of a block: one projection of all tokens, or (masked) q of all tokens and k|v of the
// context tokens only, kept per block (T·C + 2·M·C floats per image) and packed into the
// shared (B, T, 3C) layout the attention op reads; RoPE applied.
static void qkv_forward(model *m, const vit_block_weights *w, const vit_block_acts *a, int B) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, T = model_tokens(m), M = m->M, BT = B * T;
    if (!masked_attention(m)) {
        if (m->cfg.bf16_activations) ops->linear_forward_bf16(a->qkv, NULL, b16(a->ln1), w->qkv_w, w->qkv_b, BT, d, 3 * d);
        else ops->linear_forward(a->qkv, a->ln1, w->qkv_w, w->qkv_b, BT, d, 3 * d);
        if (m->pe->qk_forward) m->pe->qk_forward(m, a->qkv, B);
        return;
    }
    vit_state *s = state(m);
    float *q = a->qkv, *kv = q + (size_t)BT * d;
    gather_ln1_context(m, a, B);
    if (m->cfg.bf16_activations) { // q and k|v fp32, from the bf16 LN1 and its bf16 context rows
        ops->linear_forward_bf16(q, NULL, b16(a->ln1), w->qkv_w, w->qkv_b, BT, d, d);
        ops->linear_forward_bf16(kv, NULL, b16(s->mask_ln1_ctx), w->qkv_w + (size_t)d * d, w->qkv_b + d, B * M, d, 2 * d);
    } else {
        ops->linear_forward(q, a->ln1, w->qkv_w, w->qkv_b, BT, d, d);
        ops->linear_forward(kv, s->mask_ln1_ctx, w->qkv_w + (size_t)d * d, w->qkv_b + d, B * M, d, 2 * d);
    }
    qkv_pack(m, a, B);
}

static void qkv_backward(model *m, const vit_block_weights *w, const vit_block_weights *dw, const vit_block_acts *a,
                         const vit_block_acts *da, int B) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, T = model_tokens(m), M = m->M, BT = B * T;
    if (!masked_attention(m)) {
        if (m->cfg.bf16_activations) // dLN1 written (bf16)
            ops->linear_backward_bf16(NULL, b16(da->ln1), dw->qkv_w, dw->qkv_b, block_dqkv(m, da), NULL, b16(a->ln1), w->qkv_w,
                                      BT, d, 3 * d, GRAD_WRITE);
        else ops->linear_backward(da->ln1, dw->qkv_w, dw->qkv_b, block_dqkv(m, da), a->ln1, w->qkv_w, BT, d, 3 * d);
        return;
    }
    vit_state *s = state(m);
    const int *ctx = (const int *)m->batch.context;
    // The shared transients: the forward's values belong to the last block, and their
    // gradients accumulate, so re-gather this block's LN1 context and zero the gradients that
    // are added to (the bf16 projections' backwards write the context's dLN1 and dLN1).
    gather_ln1_context(m, a, B);
    ops->zero(s->mask_dq, (size_t)BT * d);
    ops->zero(s->mask_dkv, (size_t)B * M * 2 * d);
    ops->qkv_pack_backward(s->mask_dq, s->mask_dkv, block_dqkv(m, da), ctx, B, T, M, d);
    if (!m->cfg.bf16_activations) {
        ops->zero(s->mask_dln1_ctx, (size_t)B * M * d);
        ops->linear_backward(s->mask_dln1_ctx, dw->qkv_w + (size_t)d * d, dw->qkv_b + d, s->mask_dkv, s->mask_ln1_ctx,
                             w->qkv_w + (size_t)d * d, B * M, d, 2 * d);
        ops->gather_tokens_backward(da->ln1, s->mask_dln1_ctx, ctx, B, T, M, d);
        ops->linear_backward(da->ln1, dw->qkv_w, dw->qkv_b, s->mask_dq, a->ln1, w->qkv_w, BT, d, d);
        return;
    }
    // bf16 LN1: its gradient summed in fp32 in the shared qkv gradient (B, T, 3C), dead once
    // unpacked into dq and dk|v, then rounded once into the bf16 dLN1 (written, not accumulated).
    // The context rows' k|v product is written into the shared buffer and scattered onto zeros,
    // q's product added: that order of the sums (sgemm adds its product to what the rows hold, so
    // writing q's first and adding the context's after would change the bits; see
    // compact_attention_backward).
    float *dln1 = block_dqkv(m, da);
    ops->linear_backward_bf16(s->mask_dln1_ctx, NULL, dw->qkv_w + (size_t)d * d, dw->qkv_b + d, s->mask_dkv, NULL,
                              b16(s->mask_ln1_ctx), w->qkv_w + (size_t)d * d, B * M, d, 2 * d, GRAD_WRITE);
    ops->zero(dln1, (size_t)BT * d);
    ops->gather_tokens_backward(dln1, s->mask_dln1_ctx, ctx, B, T, M, d);
    ops->linear_backward_bf16(dln1, NULL, dw->qkv_w, dw->qkv_b, s->mask_dq, NULL, b16(a->ln1), w->qkv_w, BT, d, d,
                              GRAD_ACCUMULATE);
    ops->to_bf16(b16(da->ln1), dln1, (size_t)BT * d);
}

// compact_attention's forward of block a (see the header): q16 (B, T, C) = bf16(LN1 · Wqᵀ + bq),
// kv16 (B, M, 2C) = bf16(LN1's context rows · Wkvᵀ + bkv) (all rows when M = T), then the attention
// on them into the bf16 attn (B, T, C).
static void compact_attention_forward(model *m, const vit_block_weights *w, const vit_block_acts *a, int B, float *probs,
                                      const attention_desc *ad) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, T = model_tokens(m), M = m->M, BT = B * T;
    bfloat16 *q16 = b16(a->qkv), *kv16 = q16 + (size_t)BT * d;
    const bfloat16 *ctx_ln1 = b16(a->ln1);
    if (masked_attention(m)) {
        gather_ln1_context(m, a, B);
        ctx_ln1 = b16(state(m)->mask_ln1_ctx);
    }
    ops->linear_forward_bf16(NULL, q16, b16(a->ln1), w->qkv_w, w->qkv_b, BT, d, d);
    ops->linear_forward_bf16(NULL, kv16, ctx_ln1, w->qkv_w + (size_t)d * d, w->qkv_b + d, B * M, d, 2 * d);
    ops->attention_kv_forward_bf16(b16(a->attn), probs, q16, kv16, ad);
}

// Its backward from the bf16 dattn: dq16 and dkv16 written into the block gradient's qkv, the
// weight's and bias's row slices += (k|v rows [C, 3C), q rows [0, C)), and the bf16 dLN1 written:
// fp32 sum in proj's output gradient (dead once proj's backward has read it) of the context rows'
// k|v product and every row's q product, rounded once. With M = T the k|v product writes every
// row (nothing cleared first) and q's adds. Masked, the context rows' k|v product is written into
// the shared fp32 buffer and scattered onto zeros, then q's product added: writing q's first and
// scattering onto it would save the clearing but change the bits (OpenBLAS's sgemm adds its
// product to the rows' values in its own steps: with C = 192 and more, c + P and P + c then
// differ in the last bit), so the clearing stays.
static void compact_attention_backward(model *m, const vit_block_weights *w, const vit_block_weights *dw,
                                       const vit_block_acts *a, const vit_block_acts *da, int B, const attention_desc *ad) {
    const ops_backend *ops = m->ops;
    const vit_state *s = state(m);
    int d = m->cfg.dim, T = model_tokens(m), M = m->M, BT = B * T;
    const bfloat16 *q16 = b16(a->qkv), *kv16 = q16 + (size_t)BT * d;
    bfloat16 *dq16 = b16(da->qkv), *dkv16 = dq16 + (size_t)BT * d;
    ops->attention_kv_backward_bf16(dq16, dkv16, b16(da->attn), q16, kv16, b16(a->attn), a->probs, ad);
    float *dln1 = da->proj;
    float *wkv = w->qkv_w + (size_t)d * d, *dwkv = dw->qkv_w + (size_t)d * d;
    if (masked_attention(m)) { // the shared context rows hold the last forward block's: this block's again
        gather_ln1_context(m, a, B);
        ops->linear_backward_bf16(s->mask_dln1_ctx, NULL, dwkv, dw->qkv_b + d, NULL, dkv16, b16(s->mask_ln1_ctx), wkv, B * M,
                                  d, 2 * d, GRAD_WRITE);
        ops->zero(dln1, (size_t)BT * d);
        ops->gather_tokens_backward(dln1, s->mask_dln1_ctx, (const int *)m->batch.context, B, T, M, d);
    } else {
        ops->linear_backward_bf16(dln1, NULL, dwkv, dw->qkv_b + d, NULL, dkv16, b16(a->ln1), wkv, BT, d, 2 * d, GRAD_WRITE);
    }
    ops->linear_backward_bf16(dln1, NULL, dw->qkv_w, dw->qkv_b, NULL, dq16, b16(a->ln1), w->qkv_w, BT, d, d, GRAD_ACCUMULATE);
    ops->to_bf16(b16(da->ln1), dln1, (size_t)BT * d);
}

// Applies dropout to a residual branch (B, per_image) when it is on; returns what the residual reads.
static const float *branch_output(model *m, float *out, float *dropped, float *mask, float p, int B, size_t per_image,
                                  rng_addr rng, uint32_t site_index) {
    if (p <= 0.0f || !dropped) return out;
    model_dropout_forward(m, dropped, mask, out, B, per_image, p, rng, site_index);
    return dropped;
}

// A block's forward under train.activations=bf16 (see the header): the same ops in the same order
// as vit_forward's fp32 block, on bf16 storage where a product reads it. No dropout (refused).
static void block_forward_bf16(model *m, const vit_block_weights *w, const vit_block_acts *a, const float *x, int B, int l,
                               attention_desc *ad) {
    const ops_backend *ops = m->ops;
    const vit_state *s = state(m);
    int d = m->cfg.dim, hd = m->cfg.mlp_ratio * m->cfg.dim, T = model_tokens(m), BT = B * T;
    ops->residual_layernorm_forward_bf16(NULL, b16(a->ln1), a->ln1_mean, a->ln1_rstd, x, NULL, NULL, w->norm1_w, w->norm1_b,
                                         B, T, d);
    float *probs = s->kept_probs ? s->kept_probs[l] : a->probs;
    bfloat16 *attn16; // the attention output as proj reads it
    if (bf16_attention(m)) { // qkv stored bf16 by its projection, read so by the attention
        ops->linear_forward_bf16(NULL, b16(a->qkv), b16(a->ln1), w->qkv_w, w->qkv_b, BT, d, 3 * d);
        attn16 = b16(a->attn);
        ops->attention_forward_bf16(attn16, probs, b16(a->qkv), ad);
    } else if (compact_attention(m)) { // q of every token, k|v of the context only, bf16 (header)
        attn16 = b16(a->attn);
        compact_attention_forward(m, w, a, B, probs, ad);
    } else { // the encoding's hooks act on the fp32 qkv and scores
        qkv_forward(m, w, a, B);
        if (m->pe->bias_forward) ad->bias = m->pe->bias_forward(m, l);
        ops->attention_forward(a->attn, probs, block_qkv(m, a), ad);
        attn16 = b16(a->attn16);
        ops->to_bf16(attn16, a->attn, (size_t)BT * d); // the attention's fp32 output, rounded once for proj
    }
    ops->linear_forward_bf16(NULL, b16(a->proj), attn16, w->proj_w, w->proj_b, BT, d, d);
    ops->residual_layernorm_forward_bf16(a->res1, b16(a->ln2), a->ln2_mean, a->ln2_rstd, x, b16(a->proj), a->keep1, w->norm2_w,
                                         w->norm2_b, B, T, d);
    ops->linear_forward_bf16(NULL, b16(a->fc1), b16(a->ln2), w->fc1_w, w->fc1_b, BT, d, hd);
    ops->gelu_forward_bf16(block_gelu(m, a), b16(a->fc1), (size_t)BT * hd);
    ops->linear_forward_bf16(a->fc2, NULL, block_gelu(m, a), w->fc2_w, w->fc2_b, BT, hd, d);
    ops->residual_forward(a->res2, a->res1, a->fc2, a->keep2, B, (size_t)T * d);
}

static const float *vit_forward(model *m, const float *x, int B, int training, float dropout, rng_addr rng) {
    const ops_backend *ops = m->ops;
    const vit_state *s = state(m);
    const model_config *c = &m->cfg;
    int d = c->dim, hd = c->mlp_ratio * c->dim, T = model_tokens(m), BT = B * T;
    attention_desc ad = block_attention(m, B);
    for (int l = 0; l < c->depth; l++) {
        const vit_block_weights *w = &s->weights[l];
        const vit_block_acts *a = &s->acts[l];
        float dp = training && c->depth > 1 ? c->drop_path * (float)l / (float)(c->depth - 1)
                                            : (training ? c->drop_path : 0.0f);
        model_drop_path_scales(m, a->keep1, B, dp, rng, 2 * l);
        model_drop_path_scales(m, a->keep2, B, dp, rng, 2 * l + 1);
        if (c->bf16_activations) {
            block_forward_bf16(m, w, a, x, B, l, &ad);
            x = a->res2;
            continue;
        }

        ops->layernorm_forward(a->ln1, a->ln1_mean, a->ln1_rstd, x, w->norm1_w, w->norm1_b, BT, d);
        qkv_forward(m, w, a, B);
        if (m->pe->bias_forward) ad.bias = m->pe->bias_forward(m, l);
        ops->attention_forward(a->attn, s->kept_probs ? s->kept_probs[l] : a->probs, block_qkv(m, a), &ad);
        ops->linear_forward(a->proj, a->attn, w->proj_w, w->proj_b, BT, d, d);
        const float *branch1 = branch_output(m, a->proj, a->proj_drop, a->proj_mask, dropout, B, (size_t)T * d, rng, 1 + 2 * l);
        ops->residual_forward(a->res1, x, branch1, a->keep1, B, (size_t)T * d);

        ops->layernorm_forward(a->ln2, a->ln2_mean, a->ln2_rstd, a->res1, w->norm2_w, w->norm2_b, BT, d);
        ops->linear_forward(a->fc1, a->ln2, w->fc1_w, w->fc1_b, BT, d, hd);
        ops->gelu_forward(a->gelu, a->fc1, (size_t)BT * hd);
        ops->linear_forward(a->fc2, a->gelu, w->fc2_w, w->fc2_b, BT, hd, d);
        const float *branch2 = branch_output(m, a->fc2, a->fc2_drop, a->fc2_mask, dropout, B, (size_t)T * d, rng, 2 + 2 * l);
        ops->residual_forward(a->res2, a->res1, branch2, a->keep2, B, (size_t)T * d);
        x = a->res2;
    }
    return x;
}

static float *vit_output_grad(model *m) { return state(m)->dres[(m->cfg.depth - 1) % 2]; }

// Block l's attention backward from da->attn into its qkv gradient (the encoding's bias and q/k
// hooks), then the qkv projection's backward into da->ln1. The shared qkv of masked attention
// holds the last block's values and its gradient accumulates: this block's is re-packed and the
// gradient zeroed first.
static void attention_and_qkv_backward(model *m, const vit_block_weights *w, const vit_block_weights *dw,
                                       const vit_block_acts *a, const vit_block_acts *da, int B, int l, attention_desc *ad) {
    float *dqkv = block_dqkv(m, da);
    if (masked_attention(m)) qkv_pack(m, a, B);
    if (state(m)->mask_dqkv) m->ops->zero(dqkv, (size_t)B * model_tokens(m) * 3 * m->cfg.dim);
    if (m->pe->bias_forward) {
        ad->bias = m->pe->bias_saved(m, l);
        m->ops->attention_backward(dqkv, m->pe->bias_grad(m, l), m->pe->bias_scratch(m), da->attn, block_qkv(m, a), a->attn,
                                   a->probs, ad);
        m->pe->bias_backward(m, l);
    } else {
        m->ops->attention_backward(dqkv, NULL, NULL, da->attn, block_qkv(m, a), a->attn, a->probs, ad);
    }
    if (m->pe->qk_backward) m->pe->qk_backward(m, dqkv, B);
    qkv_backward(m, w, dw, a, da, B);
}

// A block's backward under train.activations=bf16: dx (B, T, d) += the block input's gradient. The
// bf16 gradients (GELU, hidden, LN2, LN1) are written by the op that produces them.
static void block_backward_bf16(model *m, const vit_block_weights *w, const vit_block_weights *dw, const vit_block_acts *a,
                                const vit_block_acts *da, const float *x, float *dx, int B, int l, attention_desc *ad) {
    const ops_backend *ops = m->ops;
    int d = m->cfg.dim, hd = m->cfg.mlp_ratio * m->cfg.dim, T = model_tokens(m), BT = B * T;
    // Branch 2.
    ops->residual_backward(da->res1, da->fc2, da->res2, a->keep2, B, (size_t)T * d);
    // train.recompute=gelu: the shared buffer holds the last forward block's GELU; this block's again
    if (m->cfg.recompute_gelu) ops->gelu_forward_bf16(block_gelu(m, a), b16(a->fc1), (size_t)BT * hd);
    ops->linear_backward_bf16(NULL, b16(da->gelu), dw->fc2_w, dw->fc2_b, da->fc2, NULL, block_gelu(m, a), w->fc2_w, BT, hd,
                              d, GRAD_WRITE);
    ops->gelu_backward_bf16(b16(da->fc1), b16(da->gelu), b16(a->fc1), (size_t)BT * hd);
    ops->linear_backward_bf16(NULL, b16(da->ln2), dw->fc1_w, dw->fc1_b, NULL, b16(da->fc1), b16(a->ln2), w->fc1_w, BT, d, hd,
                              GRAD_WRITE);
    ops->layernorm_backward_bf16(da->res1, dw->norm2_w, dw->norm2_b, b16(da->ln2), a->res1, w->norm2_w, a->ln2_mean,
                                 a->ln2_rstd, BT, d);
    // Branch 1: proj's output gradient is fp32 (the residual's), its input the rounded attention output.
    ops->residual_backward(dx, da->proj, da->res1, a->keep1, B, (size_t)T * d);
    if (bf16_attention(m)) { // dattn and dqkv bf16, each written by the op that produces it
        ops->linear_backward_bf16(NULL, b16(da->attn), dw->proj_w, dw->proj_b, da->proj, NULL, b16(a->attn), w->proj_w, BT, d, d,
                                  GRAD_WRITE);
        ops->attention_backward_bf16(b16(da->qkv), b16(da->attn), b16(a->qkv), b16(a->attn), a->probs, ad);
        ops->linear_backward_bf16(NULL, b16(da->ln1), dw->qkv_w, dw->qkv_b, NULL, b16(da->qkv), b16(a->ln1), w->qkv_w, BT, d,
                                  3 * d, GRAD_WRITE);
    } else if (compact_attention(m)) { // dattn, dq and dk|v bf16, written; dLN1 summed in fp32
        ops->linear_backward_bf16(NULL, b16(da->attn), dw->proj_w, dw->proj_b, da->proj, NULL, b16(a->attn), w->proj_w, BT, d, d,
                                  GRAD_WRITE);
        compact_attention_backward(m, w, dw, a, da, B, ad);
    } else { // dattn fp32, written (the fp32 attention's backward is its one reader)
        ops->linear_backward_bf16(da->attn, NULL, dw->proj_w, dw->proj_b, da->proj, NULL, b16(a->attn16), w->proj_w, BT, d, d,
                                  GRAD_WRITE);
        attention_and_qkv_backward(m, w, dw, a, da, B, l, ad);
    }
    ops->layernorm_backward_bf16(dx, dw->norm1_w, dw->norm1_b, b16(da->ln1), x, w->norm1_w, a->ln1_mean, a->ln1_rstd, BT, d);
}

static void vit_backward(model *m, const float *x0, float *dx0, int B) {
    const ops_backend *ops = m->ops;
    const vit_state *s = state(m);
    const model_config *c = &m->cfg;
    int d = c->dim, hd = c->mlp_ratio * c->dim, T = model_tokens(m), BT = B * T;
    size_t BTd = (size_t)BT * d;
    int dropout = m->training_dropout;
    attention_desc ad = block_attention(m, B);
    for (int l = c->depth - 1; l >= 0; l--) {
        const vit_block_weights *w = &s->weights[l], *dw = &s->weight_grads[l];
        if (l < c->depth - 1) clear_block_grads(m, l, B);
        const vit_block_acts *a = &s->acts[l], grads = block_grads(s, l), *da = &grads;
        const float *x = l > 0 ? s->acts[l - 1].res2 : x0;
        float *dx = l > 0 ? s->dres[(l - 1) % 2] : dx0;
        if (c->bf16_activations) {
            block_backward_bf16(m, w, dw, a, da, x, dx, B, l, &ad);
            continue;
        }

        // Branch 2: the gradient arrives at the dropout output when dropout ran.
        ops->residual_backward(da->res1, dropout ? da->fc2_drop : da->fc2, da->res2, a->keep2, B, (size_t)T * d);
        if (dropout) ops->dropout_backward(da->fc2, da->fc2_drop, a->fc2_mask, BTd);
        ops->linear_backward(da->gelu, dw->fc2_w, dw->fc2_b, da->fc2, a->gelu, w->fc2_w, BT, hd, d);
        ops->gelu_backward(da->fc1, da->gelu, a->fc1, (size_t)BT * hd);
        ops->linear_backward(da->ln2, dw->fc1_w, dw->fc1_b, da->fc1, a->ln2, w->fc1_w, BT, d, hd);
        ops->layernorm_backward(da->res1, dw->norm2_w, dw->norm2_b, da->ln2, a->res1, w->norm2_w, a->ln2_mean, a->ln2_rstd, BT, d);

        // Branch 1.
        ops->residual_backward(dx, dropout ? da->proj_drop : da->proj, da->res1, a->keep1, B, (size_t)T * d);
        if (dropout) ops->dropout_backward(da->proj, da->proj_drop, a->proj_mask, BTd);
        ops->linear_backward(da->attn, dw->proj_w, dw->proj_b, da->proj, a->attn, w->proj_w, BT, d, d);
        attention_and_qkv_backward(m, w, dw, a, da, B, l, &ad);
        ops->layernorm_backward(dx, dw->norm1_w, dw->norm1_b, da->ln1, x, w->norm1_w, a->ln1_mean, a->ln1_rstd, BT, d);
    }
}

static const float *vit_block_output(const model *m, int layer) { return state(m)->acts[layer].res2; }
static const float *vit_attention_probs(const model *m, int layer) {
    const vit_state *s = state(m);
    return s->kept_probs ? s->kept_probs[layer] : NULL;
}

// The keys of a full-attention forward: channels [d, 2d) of the block's own (B, T, 3d) qkv, or with
// compact_attention its k|v (B, T, 2d) after q (B, T, d) (channels [0, d)).
static const void *vit_attention_keys(const model *m, int layer, int B, int *bf16, size_t *row_stride) {
    if (masked_attention(m)) return NULL;
    int d = m->cfg.dim, T = model_tokens(m);
    float *qkv = state(m)->acts[layer].qkv;
    if (compact_attention(m)) {
        *bf16 = 1, *row_stride = 2 * (size_t)d;
        return b16(qkv) + (size_t)B * T * d;
    }
    *bf16 = bf16_attention(m), *row_stride = 3 * (size_t)d;
    return *bf16 ? (const void *)(b16(qkv) + d) : (const void *)(qkv + d);
}

static double vit_block_flops(const model_config *c, int T, int M) {
    double d = c->dim, hd = (double)c->mlp_ratio * c->dim;
    return 2.0 * T * d * (d + d + 2 * hd) + 2.0 * M * d * 2 * d + 2.0 * 2.0 * T * M * d;
}

// The SGU ablation keys (models/backbones/gmlp.c's) configure gMLP's spatial gating unit, which
// these blocks do not have: read only to refuse them (arch_own).
typedef struct {
    int sgu_ablation; // 1: model.sgu_gating, sgu_split or sgu_norm is not the paper's SGU
} vit_settings;
_Static_assert(sizeof(vit_settings) <= MODEL_OWN_BYTES, "vit's settings must fit model_config.arch_own");

static void vit_read_keys(const key_reader *r, struct model_config *c) {
    BACKBONE_OWN(c, vit_settings)->sgu_ablation = strcmp(key_str(r, "model.sgu_gating"), "multiplicative") != 0 ||
                                                  !key_int(r, "model.sgu_split") || !key_int(r, "model.sgu_norm");
}

// train.activations=bf16 runs the blocks without dropout (the fp32 dropout ops are not written for
// bf16 storage); with masked attention, LN1's context rows are gathered as C / 2 floats (C even).
static const char *vit_config_error(const model_config *c) {
    if (BACKBONE_OWN(c, const vit_settings)->sgu_ablation)
        return "model.sgu_gating, model.sgu_split and model.sgu_norm configure the spatial gating unit of model.arch=gmlp "
               "and amlp; model.arch=vit has none (valid with vit: multiplicative, true, true)";
    if (c->bf16_activations && c->dropout > 0)
        return "train.activations=bf16 runs the blocks without dropout: model.dropout must be 0 (valid with model.dropout > 0: "
               "train.activations=fp32)";
    if (c->bf16_activations && c->request.context_tokens > 0 && c->dim % 2 != 0)
        return "train.activations=bf16 with masked attention (context-only keys, e.g. MP3) needs an even model.dim (valid "
               "with an odd model.dim: train.activations=fp32)";
    return NULL;
}

const backbone_kind backbone_vit = {
    .name = "vit",
    .description = "Transformer blocks: pre-LN multi-head attention and a GELU MLP",
    .config_error = vit_config_error,
    .read_keys = vit_read_keys,
    .crosscheck_ok = 1,
    .timm_vit = 1,
    .state_size = sizeof(vit_state),
    .declare_params = vit_declare_params,
    .declare_acts = vit_declare_acts,
    .free = vit_free,
    .forward = vit_forward,
    .output_grad = vit_output_grad,
    .backward = vit_backward,
    .block_output = vit_block_output,
    .attention_probs = vit_attention_probs,
    .keep_attention_probs = vit_keep_attention_probs,
    .attention_keys = vit_attention_keys,
    .masked_attention = 1,
    .bf16_activations = 1,
    .block_flops = vit_block_flops,
};
