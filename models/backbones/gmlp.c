// models/backbones/gmlp.c — model.arch=gmlp and amlp (docs/methods.md "gMLP / aMLP";
// docs/gmlp.md): attention-free blocks whose token mixing is a
// spatial gating unit (SGU). Block on x (B, T, d), e = mlp_ratio·d / 2:
//   ln = LN(x); u = GELU(ln·U_u + b_u), v = GELU(ln·U_v + b_v)      (B, T, e) each
//   f(v) = W·LN(v) + b along tokens, W (T, T), b (T)                 (B, T, e)
//   amlp: f(v) += proj(TinyAttn(ln)), a single head of width model.tiny_attn_dim
//   s = u ⊙ f(v); out = x + DropPath(Dropout(s·V + b_V))             (B, T, d)
// W starts near zero (U(-1e-3/n, 1e-3/n)) and b at one, so each block starts as a plain FFN.
// The tokens W mixes are all T of the grid, cls included (its row and column of W are learned
// like any other). model.sgu_toeplitz (gmlp_settings.toeplitz): W(i, j) = w[i - j] over the token
// index (1: 2T-1 entries) or over the patch grid's 2D offset (2: (2g-1)² entries plus
// cls -> patch, patch -> cls and cls -> cls, the relbias layout of models/posenc/tables.h);
// the dense W is gathered from w each forward (ops->bias_gather) and its gradient scattered
// back.
// Other resolutions: W is tied to the token grid it was built for (T0 tokens). At another grid
// (T tokens) the dense W is resampled, W' = R_q · W · R_kᵀ, where R_q (T, T0) is bilinear on
// the (h, w) patch grid (torch's align_corners=False weights; cls kept as is) for the query
// side and R_k the same rescaled by N0/N for the key side (so a row of W' sums about what a
// row of W does), i.e. bilinear on the (h, w, h, w) view; b' = R_q · b. Both are products
// with the linear op, so gradients flow (UniViT can train through them). The Toeplitz form
// reads the offsets it has and clips the rest to the table's edge (b resampled as above).
// At the built grid W is used as is: the same bits as a model that never changed size.
// SGU ablations (gMLP Table 3; gmlp_settings additive / no_split / no_norm, all 0 =
// the paper's SGU): additive gating s = u + f(v) instead of u ⊙ f(v); no split: one Z =
// GELU(LN(x)·U) of the whole width e = mlp_ratio·d is both u and v (s = Z ⊙ f(Z) or Z + f(Z), the
// table's unsplit rows; proj_out then reads e = mlp_ratio·d channels); no norm: f(v) = W·v + b
// without the LayerNorm on v (and without its parameters).
// What the blocks cannot do (config_error): MP3 (W is position-specific, so position
// prediction would be trivial) and encodings that act on attention (rope, relbias).
// Activation gradients: as in vit.c, the blocks share one set sized like one block's
// (gmlp_state.grads), and the block output gradient ping-pongs between dout[0] and dout[1]
// (block l's in dout[l % 2]); the backward clears between blocks what block l + 1 wrote,
// except the gradient it passed down.
#include "gmlp.h"
#include "../model.h"
#include "../posenc/tables.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    float *norm_w, *norm_b;           // (d)
    float *in_w, *in_b;               // (2e, d), (2e): rows [0, e) give u, rows [e, 2e) give v
    float *sgu_norm_w, *sgu_norm_b;   // (e)
    float *spatial_w;                 // dense (T0, T0), or the Toeplitz table (K)
    float *spatial_b;                 // (T0)
    float *attn_qkv_w, *attn_qkv_b;   // amlp: (3a, d), (3a)
    float *attn_proj_w, *attn_proj_b; // amlp: (e, a), (e)
    float *out_w, *out_b;             // (d, e), (d)
} gmlp_block_weights;

typedef struct {
    float *ln, *ln_mean, *ln_rstd;    // (B, T, d), (B, T), (B, T)
    float *u_pre, *v_pre;             // (B, T, e) channel projections
    float *u, *v;                     // (B, T, e) after GELU
    float *vn, *vn_mean, *vn_rstd;    // (B, T, e) LN(v), (B, T), (B, T)
    float *W;                         // (T, T) the W of this grid (Toeplitz or resampled), else NULL
    float *W_keys;                    // (T, T0) R_k · Wᵀ, the first resampling product (dense only)
    float *bias;                      // (T) the resampled b (models with room for other grids)
    float *fv;                        // (B, T, e) W·vn + b
    float *qkv, *probs, *attn;        // amlp: (B, T, 3a), (B, 1, T, T), (B, T, a)
    float *attn_proj, *gate;          // amlp: (B, T, e) the projected attention, fv + attn_proj
    float *s;                         // (B, T, e) u ⊙ (fv or gate)
    float *y, *y_drop, *y_mask;       // (B, T, d) the branch, after dropout, its mask
    float *out;                       // (B, T, d) the block's output
    float *keep;                      // (B) drop-path scales
} gmlp_block_acts;

typedef struct {
    gmlp_block_weights *weights, *weight_grads; // per block
    gmlp_block_acts *acts;                       // per block
    gmlp_block_acts grads; // the one set of block activation gradients every block uses (out: dout)
    float *dout[2];        // (B, T, d) the ping-pong pair of block output gradients (dout[1]: depth > 1)
    int attn_dim;          // amlp's tiny attention width; 0 for gmlp
    int toeplitz_entries;  // K of the Toeplitz table; 0 for a dense W
    // Inputs, present when the model has room for other grids: R_q, R_k (T_max, T0) of the
    // current grid; with Toeplitz W the (T_max, T_max) table index (ints).
    float *rows, *rows_host, *cols, *cols_host, *index, *index_host;
} gmlp_state;

static gmlp_state *state(const model *m) { return m->arch_state; }
_Static_assert(sizeof(gmlp_settings) <= MODEL_OWN_BYTES, "gmlp's settings must fit model_config.arch_own");
static const gmlp_settings *sgu(const model_config *c) { return BACKBONE_OWN(c, const gmlp_settings); }
// Width of u, v and the gate: half of mlp_ratio·d when split (the paper's SGU), all of it otherwise.
static int half_width(const model_config *c) { return sgu(c)->no_split ? c->mlp_ratio * c->dim : c->mlp_ratio * c->dim / 2; }

// Entries of the Toeplitz table for the training grid (T0 tokens, rows0 × cols0 patches).
static int toeplitz_entries(const model_config *c, int rows0, int cols0, int t0) {
    if (sgu(c)->toeplitz == 1) return 2 * (rows0 * cols0 + t0) - 1;
    if (sgu(c)->toeplitz == 2) return posenc_relbias_entries(rows0, cols0, t0);
    return 0;
}

// The encodings the spatial gating unit can use: those that act on the tokens, not inside attention.
static int sgu_pe_ok(const posenc_kind *pe) { return !posenc_in_attention(pe); }

static const char *sgu_config_error(const model_config *c, const char *arch) {
    static char msg[512];
    const posenc_kind *pe = posenc_find(c->pe_kind ? c->pe_kind : "none");
    if (c->request.context_tokens > 0) { // MP3's masked attention over a context
        snprintf(msg, sizeof msg, "model.arch=%s cannot be pretrained with objective.name=mp3: its spatial weights W are "
                 "position-specific, so a gMLP already knows each token's position and position prediction would be "
                 "trivial (valid with %s: objective.name=supervised)", arch, arch);
        return msg;
    }
    if (pe && !sgu_pe_ok(pe)) {
        char valid[160];
        snprintf(msg, sizeof msg, "pe.kind=%s acts on attention (%s), which model.arch=%s's spatial gating unit does not "
                 "have (valid with %s: %s)", c->pe_kind, pe->qk_forward ? "rotates q and k" : "a bias on the attention scores",
                 arch, arch, posenc_names_where(sgu_pe_ok, valid, sizeof valid));
        return msg;
    }
    if (!sgu(c)->no_split && (c->mlp_ratio * c->dim) % 2 != 0) {
        snprintf(msg, sizeof msg, "model.arch=%s splits the model.mlp_ratio*model.dim = %d channels into u and v halves: "
                 "the product must be even", arch, c->mlp_ratio * c->dim);
        return msg;
    }
    if (sgu(c)->toeplitz < 0 || sgu(c)->toeplitz > 2) return "model.sgu_toeplitz: internal: 0, 1 (1D) or 2 (2D) expected";
    if (model_config_is_sequence(c) && sgu(c)->toeplitz == 0 && c->max_image_size > c->image_size) {
        snprintf(msg, sizeof msg, "model.arch=%s: the dense spatial weights are resampled on a 2D grid; a sequence model "
                 "runs only at its training length %d (or use model.sgu_toeplitz=true)", arch, c->image_size);
        return msg;
    }
    return NULL;
}

static const char *gmlp_config_error(const model_config *c) { return sgu_config_error(c, "gmlp"); }
static const char *amlp_config_error(const model_config *c) {
    const char *why = sgu_config_error(c, "amlp");
    if (why) return why;
    if (sgu(c)->tiny_attn_dim < 1) return "model.tiny_attn_dim must be >= 1 with model.arch=amlp (the paper: 64)";
    return NULL;
}

static void declare_params(model *m, int attn_dim) {
    gmlp_state *s = state(m);
    const model_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    int d = c->dim, e = half_width(c), T0 = m->T0;
    s->attn_dim = attn_dim;
    s->toeplitz_entries = toeplitz_entries(c, m->rows0, m->cols0, m->t0);
    s->weights = xcalloc((size_t)c->depth, sizeof *s->weights, "gmlp block weights");
    s->weight_grads = xcalloc((size_t)c->depth, sizeof *s->weight_grads, "gmlp block weight gradients");
    for (int l = 0; l < c->depth; l++) {
        gmlp_block_weights *w = &s->weights[l], *dw = &s->weight_grads[l];
#define P(field, suffix, init, decay, d0, d1)                   \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    model_add_param(m, name, init, decay, d0, d1, &w->field, &dw->field)
        P(norm_w, "norm.weight", INIT_ONE, 0, d, 0);
        P(norm_b, "norm.bias", INIT_ZERO, 0, d, 0);
        int in_rows = sgu(c)->no_split ? e : 2 * e; // u | v halves, or the one Z
        P(in_w, "proj_in.weight", INIT_LINEAR, 1, in_rows, d);
        P(in_b, "proj_in.bias", INIT_ZERO, 0, in_rows, 0);
        if (!sgu(c)->no_norm) {
            P(sgu_norm_w, "sgu.norm.weight", INIT_ONE, 0, e, 0);
            P(sgu_norm_b, "sgu.norm.bias", INIT_ZERO, 0, e, 0);
        }
        if (s->toeplitz_entries) {
            P(spatial_w, "sgu.spatial.toeplitz", INIT_NEAR_ZERO, 1, s->toeplitz_entries, 0);
        } else {
            P(spatial_w, "sgu.spatial.weight", INIT_NEAR_ZERO, 1, T0, T0);
        }
        P(spatial_b, "sgu.spatial.bias", INIT_ONE, 0, T0, 0);
        if (attn_dim > 0) {
            P(attn_qkv_w, "tiny_attn.qkv.weight", INIT_LINEAR, 1, 3 * attn_dim, d);
            P(attn_qkv_b, "tiny_attn.qkv.bias", INIT_ZERO, 0, 3 * attn_dim, 0);
            P(attn_proj_w, "tiny_attn.proj.weight", INIT_LINEAR, 1, e, attn_dim);
            P(attn_proj_b, "tiny_attn.proj.bias", INIT_ZERO, 0, e, 0);
        }
        P(out_w, "proj_out.weight", INIT_LINEAR, 1, d, e);
        P(out_b, "proj_out.bias", INIT_ZERO, 0, d, 0);
#undef P
    }
}
static void gmlp_declare_params(model *m) { declare_params(m, 0); }
static void amlp_declare_params(model *m) { declare_params(m, sgu(&m->cfg)->tiny_attn_dim); }

// Room for other grids: any model of more than one patch can be set to a smaller size than it
// was built for (model_set_resolution takes any multiple of the patch up to the largest), so the
// resampling buffers exist whenever a grid other than the built one can: not only when a larger
// size is planned (a model evaluated only at smaller sizes wrote past them before).
static int resamples(const model *m) { return m->T_max != m->T0 || m->rows0 * m->cols0 > 1; }

static void gmlp_declare_acts(model *m) {
    gmlp_state *s = state(m);
    const model_config *c = &m->cfg;
    char name[TENSOR_NAME_MAX];
    // Sized for the largest input: every (B, T, ...) activation of a smaller one is a prefix.
    size_t B = (size_t)m->max_batch, T = (size_t)m->T_max, T0 = (size_t)m->T0, d = (size_t)c->dim;
    size_t e = (size_t)half_width(c), a = (size_t)s->attn_dim, BT = B * T;
    int toeplitz = s->toeplitz_entries > 0, resample = resamples(m);
    if (resample) {
        model_add_input(m, "sgu.rows", T * T0, &s->rows, &s->rows_host);
        if (!toeplitz) model_add_input(m, "sgu.cols", T * T0, &s->cols, &s->cols_host);
    }
    if (toeplitz) model_add_input(m, "sgu.index", T * T, &s->index, &s->index_host);
    s->acts = xcalloc((size_t)c->depth, sizeof *s->acts, "gmlp block activations");
    gmlp_block_acts *g = &s->grads;
    for (int l = 0; l < c->depth; l++) {
        gmlp_block_acts *ac = &s->acts[l];
        // Each block's activation; block 0 also declares the one shared gradient ("blocks.<name>"),
        // images first (G) or whole (G_WHOLE: W and b, one per block, not per image).
#define A(field, suffix, n)                                     \
    snprintf(name, sizeof name, "blocks.%d.%s", l, suffix);     \
    model_add_act(m, name, n, &ac->field, NULL)
#define G(field, suffix, n)                                     \
    A(field, suffix, n);                                        \
    if (l == 0) model_add_batch_grad_only(m, "blocks." suffix, n, &g->field)
#define G_WHOLE(field, suffix, n)                               \
    A(field, suffix, n);                                        \
    if (l == 0) model_add_grad_only(m, "blocks." suffix, n, &g->field)
        G(ln, "norm", BT * d);
        A(ln_mean, "norm.mean", BT);
        A(ln_rstd, "norm.rstd", BT);
        G(u_pre, "proj_in.u", BT * e);
        G(u, "gelu.u", BT * e);
        if (!sgu(c)->no_split) { // without the split, v is u
            G(v_pre, "proj_in.v", BT * e);
            G(v, "gelu.v", BT * e);
        }
        if (!sgu(c)->no_norm) {
            G(vn, "sgu.norm", BT * e);
            A(vn_mean, "sgu.norm.mean", BT);
            A(vn_rstd, "sgu.norm.rstd", BT);
        }
        if (toeplitz || resample) {
            G_WHOLE(W, "sgu.spatial.W", T * T);
        }
        if (!toeplitz && resample) {
            G_WHOLE(W_keys, "sgu.spatial.W_keys", T * T0);
        }
        if (resample) {
            G_WHOLE(bias, "sgu.spatial.b", T);
        }
        G(fv, "sgu.spatial", BT * e);
        if (a > 0) {
            G(qkv, "tiny_attn.qkv", BT * 3 * a);
            A(probs, "tiny_attn.state", m->ops->attention_state_floats(B, 1, T, T, a, 0)); // no option (tiny_attention)
            G(attn, "tiny_attn.out", BT * a);
            G(attn_proj, "tiny_attn.proj", BT * e);
            G(gate, "sgu.gate", BT * e);
        }
        G(s, "sgu.out", BT * e);
        G(y, "proj_out", BT * d);
        if (c->dropout > 0) {
            G(y_drop, "proj_out.dropout", BT * d);
            A(y_mask, "proj_out.dropout_mask", BT * d);
        }
        A(out, "residual", BT * d);
        A(keep, "drop_path", B);
#undef A
#undef G
#undef G_WHOLE
    }
    model_add_batch_grad_only(m, "blocks.residual.even", BT * d, &s->dout[0]);
    if (c->depth > 1) model_add_batch_grad_only(m, "blocks.residual.odd", BT * d, &s->dout[1]);
}

static void gmlp_free(model *m) {
    gmlp_state *s = state(m);
    free(s->weights);
    free(s->weight_grads);
    free(s->acts);
}

// torch's bilinear weights (align_corners=False, no antialias): w (out, in), rows sum to 1.
static void bilinear_weights(double *w, int out, int in) {
    memset(w, 0, (size_t)out * in * sizeof *w);
    double scale = (double)in / out;
    for (int o = 0; o < out; o++) {
        double src = (o + 0.5) * scale - 0.5;
        if (src < 0) src = 0;
        int i0 = (int)floor(src);
        if (i0 > in - 1) i0 = in - 1;
        int i1 = i0 < in - 1 ? i0 + 1 : i0;
        double lambda = src - i0;
        w[(size_t)o * in + i0] += 1.0 - lambda;
        w[(size_t)o * in + i1] += lambda;
    }
}

// R (T, T0) from the built grid (g0 a side) to the current one (g): cls rows and columns the
// identity, patch (r', c') <- (r, c) with weight wy[r', r]·wx[c', c]·patch_scale.
static void resampling_matrix(float *R, int g, int g0, int t0, double patch_scale) {
    int T = t0 + g * g, T0 = t0 + g0 * g0;
    double *w = xmalloc((size_t)g * g0 * sizeof *w, "bilinear weights");
    bilinear_weights(w, g, g0);
    memset(R, 0, (size_t)T * T0 * sizeof *R);
    for (int t = 0; t < t0; t++) R[(size_t)t * T0 + t] = 1.0f;
    for (int n = 0; n < g * g; n++)
        for (int k = 0; k < g0 * g0; k++) {
            double v = w[(size_t)(n / g) * g0 + k / g0] * w[(size_t)(n % g) * g0 + k % g0] * patch_scale;
            R[(size_t)(t0 + n) * T0 + t0 + k] = (float)v;
        }
    free(w);
}

// The Toeplitz index of the current grid: 1D over the token index, offsets clipped to the
// table's ±(T0 - 1); 2D the relbias index (offsets clipped to the built grid's).
static void toeplitz_index(int *index, const model *m) {
    int T = m->T, T0 = m->T0;
    if (sgu(&m->cfg)->toeplitz == 2) {
        posenc_relbias_index(index, m->rows, m->cols, m->rows0, m->cols0, m->t0);
        return;
    }
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            int off = i - j;
            if (off > T0 - 1) off = T0 - 1;
            if (off < -(T0 - 1)) off = -(T0 - 1);
            index[(size_t)i * T + j] = off + T0 - 1;
        }
}

static void gmlp_set_grid(model *m) {
    gmlp_state *s = state(m);
    int T = m->T, T0 = m->T0;
    if (s->index_host) {
        toeplitz_index((int *)s->index_host, m);
        model_upload(m, s->index_host, (size_t)T * T);
    }
    if (s->rows_host && T != T0) {
        resampling_matrix(s->rows_host, m->grid, m->grid0, m->t0, 1.0);
        model_upload(m, s->rows_host, (size_t)T * T0);
        if (s->cols_host) {
            double scale = (double)(m->grid0 * m->grid0) / (double)(m->grid * m->grid);
            resampling_matrix(s->cols_host, m->grid, m->grid0, m->t0, scale);
            model_upload(m, s->cols_host, (size_t)T * T0);
        }
    }
}

// The W (T, T) and b (T) of this grid: the parameters themselves at the built grid (dense),
// gathered from the Toeplitz table, or resampled.
static const float *spatial_W(const model *m, const gmlp_block_weights *w, const gmlp_block_acts *a) {
    return state(m)->toeplitz_entries || m->T != m->T0 ? a->W : w->spatial_w;
}
static const float *spatial_b(const model *m, const gmlp_block_weights *w, const gmlp_block_acts *a) {
    return m->T != m->T0 ? a->bias : w->spatial_b;
}

static void spatial_forward(model *m, const gmlp_block_weights *w, const gmlp_block_acts *a) {
    const ops_backend *ops = m->ops;
    gmlp_state *s = state(m);
    int T = m->T, T0 = m->T0;
    if (s->toeplitz_entries)
        ops->bias_gather_forward(a->W, w->spatial_w, (const int *)s->index, 1, T * T, s->toeplitz_entries);
    else if (T != T0) {
        ops->linear_forward(a->W_keys, s->cols, w->spatial_w, NULL, T, T0, T0); // R_k · Wᵀ (T, T0)
        ops->linear_forward(a->W, s->rows, a->W_keys, NULL, T, T0, T);          // R_q · W · R_kᵀ (T, T)
    }
    if (T != T0) ops->linear_forward(a->bias, s->rows, w->spatial_b, NULL, T, T0, 1); // R_q · b (T)
}

// From the gradients of this grid's W and b (already in a's gradients) to the parameters.
static void spatial_backward(model *m, const gmlp_block_weights *w, const gmlp_block_weights *dw,
                             const gmlp_block_acts *a, const gmlp_block_acts *da) {
    const ops_backend *ops = m->ops;
    gmlp_state *s = state(m);
    int T = m->T, T0 = m->T0;
    if (s->toeplitz_entries)
        ops->bias_gather_backward(dw->spatial_w, da->W, (const int *)s->index, 1, T * T, s->toeplitz_entries);
    else if (T != T0) {
        ops->linear_backward(NULL, da->W_keys, NULL, da->W, s->rows, a->W_keys, T, T0, T);
        ops->linear_backward(NULL, dw->spatial_w, NULL, da->W_keys, s->cols, w->spatial_w, T, T0, T0);
    }
    if (T != T0) ops->linear_backward(NULL, dw->spatial_b, NULL, da->bias, s->rows, w->spatial_b, T, T0, 1);
}

static attention_desc tiny_attention(const model *m, int B) {
    return (attention_desc){.B = B, .T = m->T, .C = state(m)->attn_dim, .H = 1, .M = m->T};
}

static const float *gmlp_forward(model *m, const float *x, int B, int training, float dropout, rng_addr rng) {
    const ops_backend *ops = m->ops;
    const gmlp_state *s = state(m);
    const model_config *c = &m->cfg;
    int d = c->dim, e = half_width(c), a_dim = s->attn_dim, T = m->T, BT = B * T;
    size_t BTe = (size_t)BT * e;
    for (int l = 0; l < c->depth; l++) {
        const gmlp_block_weights *w = &s->weights[l];
        const gmlp_block_acts *a = &s->acts[l];
        float dp = training && c->depth > 1 ? c->drop_path * (float)l / (float)(c->depth - 1)
                                            : (training ? c->drop_path : 0.0f);
        model_drop_path_scales(m, a->keep, B, dp, rng, 2 * l);

        ops->layernorm_forward(a->ln, a->ln_mean, a->ln_rstd, x, w->norm_w, w->norm_b, BT, d);
        ops->linear_forward(a->u_pre, a->ln, w->in_w, w->in_b, BT, d, e);
        ops->gelu_forward(a->u, a->u_pre, BTe);
        const float *v = a->u; // no split: Z is u and v
        if (!sgu(c)->no_split) {
            ops->linear_forward(a->v_pre, a->ln, w->in_w + (size_t)e * d, w->in_b + e, BT, d, e);
            ops->gelu_forward(a->v, a->v_pre, BTe);
            v = a->v;
        }
        const float *mixed = v; // what W mixes: LN(v), or v without the norm
        if (!sgu(c)->no_norm) {
            ops->layernorm_forward(a->vn, a->vn_mean, a->vn_rstd, v, w->sgu_norm_w, w->sgu_norm_b, BT, e);
            mixed = a->vn;
        }
        spatial_forward(m, w, a);
        ops->token_mix_forward(a->fv, mixed, spatial_W(m, w, a), spatial_b(m, w, a), B, T, e);
        const float *gate = a->fv;
        if (a_dim > 0) {
            attention_desc ad = tiny_attention(m, B);
            ops->linear_forward(a->qkv, a->ln, w->attn_qkv_w, w->attn_qkv_b, BT, d, 3 * a_dim);
            ops->attention_forward(a->attn, a->probs, a->qkv, &ad);
            ops->linear_forward(a->attn_proj, a->attn, w->attn_proj_w, w->attn_proj_b, BT, a_dim, e);
            ops->residual_forward(a->gate, a->fv, a->attn_proj, NULL, B, (size_t)T * e);
            gate = a->gate;
        }
        if (sgu(c)->additive) ops->residual_forward(a->s, a->u, gate, NULL, B, (size_t)T * e); // u + f(v)
        else ops->gate_forward(a->s, a->u, gate, BTe);                                       // u ⊙ f(v)
        ops->linear_forward(a->y, a->s, w->out_w, w->out_b, BT, e, d);
        const float *branch = a->y;
        if (dropout > 0.0f && a->y_drop) {
            model_dropout_forward(m, a->y_drop, a->y_mask, a->y, B, (size_t)T * d, dropout, rng, 1 + 2 * l);
            branch = a->y_drop;
        }
        ops->residual_forward(a->out, x, branch, a->keep, B, (size_t)T * d);
        x = a->out;
    }
    return x;
}

static float *gmlp_output_grad(model *m) { return state(m)->dout[(m->cfg.depth - 1) % 2]; }

// Block l's activation gradients: the shared set, with l's output gradient of the ping-pong pair.
static gmlp_block_acts block_grads(const gmlp_state *s, int l) {
    gmlp_block_acts da = s->grads;
    da.out = s->dout[l % 2];
    return da;
}

// Before block l's backward (l < depth - 1): clears the shared gradients block l + 1 wrote
// (the first B images' (B, T, ...) each; the grid's W, W_keys and b whole) except l's output
// gradient, and l's input gradient dout[(l - 1) % 2] when l > 0.
static void clear_block_grads(model *m, int l, int B) {
    const gmlp_state *s = state(m);
    const gmlp_block_acts *g = &s->grads;
    float *const grads[] = {g->ln, g->u_pre, g->u, g->v_pre, g->v, g->vn, g->W, g->W_keys, g->bias, g->fv, g->qkv, g->attn,
                            g->attn_proj, g->gate, g->s, g->y, g->y_drop, l > 0 ? s->dout[(l - 1) % 2] : NULL};
    model_zero_act_grads_of(m, grads, (int)(sizeof grads / sizeof *grads), B);
}

static void gmlp_backward(model *m, const float *x0, float *dx0, int B) {
    const ops_backend *ops = m->ops;
    const gmlp_state *s = state(m);
    const model_config *c = &m->cfg;
    int d = c->dim, e = half_width(c), a_dim = s->attn_dim, T = m->T, BT = B * T;
    size_t BTe = (size_t)BT * e, BTd = (size_t)BT * d;
    int dropout = m->training_dropout;
    for (int l = c->depth - 1; l >= 0; l--) {
        const gmlp_block_weights *w = &s->weights[l], *dw = &s->weight_grads[l];
        if (l < c->depth - 1) clear_block_grads(m, l, B);
        const gmlp_block_acts *a = &s->acts[l], grads = block_grads(s, l), *da = &grads;
        const float *x = l > 0 ? s->acts[l - 1].out : x0;
        float *dx = l > 0 ? s->dout[(l - 1) % 2] : dx0;

        ops->residual_backward(dx, dropout ? da->y_drop : da->y, da->out, a->keep, B, (size_t)T * d);
        if (dropout) ops->dropout_backward(da->y, da->y_drop, a->y_mask, BTd);
        ops->linear_backward(da->s, dw->out_w, dw->out_b, da->y, a->s, w->out_w, BT, e, d);
        float *dgate = a_dim > 0 ? da->gate : da->fv;
        if (sgu(c)->additive) ops->residual_backward(da->u, dgate, da->s, NULL, B, (size_t)T * e);
        else ops->gate_backward(da->u, dgate, da->s, a->u, a_dim > 0 ? a->gate : a->fv, BTe);
        if (a_dim > 0) {
            attention_desc ad = tiny_attention(m, B);
            ops->residual_backward(da->fv, da->attn_proj, da->gate, NULL, B, (size_t)T * e);
            ops->linear_backward(da->attn, dw->attn_proj_w, dw->attn_proj_b, da->attn_proj, a->attn, w->attn_proj_w, BT, a_dim, e);
            ops->attention_backward(da->qkv, NULL, NULL, da->attn, a->qkv, a->attn, a->probs, &ad);
            ops->linear_backward(da->ln, dw->attn_qkv_w, dw->attn_qkv_b, da->qkv, a->ln, w->attn_qkv_w, BT, d, 3 * a_dim);
        }
        // Spatial projection: W and b of this grid get their gradient where the forward read them.
        const float *W = spatial_W(m, w, a);
        float *dW = W == w->spatial_w ? dw->spatial_w : da->W;
        float *db = m->T != m->T0 ? da->bias : dw->spatial_b;
        // Without the split, v's gradient joins u's (Z is both) before GELU's backward.
        const float *v = sgu(c)->no_split ? a->u : a->v;
        float *dv = sgu(c)->no_split ? da->u : da->v;
        ops->token_mix_backward(sgu(c)->no_norm ? dv : da->vn, dW, db, da->fv, sgu(c)->no_norm ? v : a->vn, W, B, T, e);
        spatial_backward(m, w, dw, a, da);
        if (!sgu(c)->no_norm)
            ops->layernorm_backward(dv, dw->sgu_norm_w, dw->sgu_norm_b, da->vn, v, w->sgu_norm_w, a->vn_mean, a->vn_rstd, BT, e);
        ops->gelu_backward(da->u_pre, da->u, a->u_pre, BTe);
        ops->linear_backward(da->ln, dw->in_w, dw->in_b, da->u_pre, a->ln, w->in_w, BT, d, e);
        if (!sgu(c)->no_split) {
            ops->gelu_backward(da->v_pre, da->v, a->v_pre, BTe);
            ops->linear_backward(da->ln, dw->in_w + (size_t)e * d, dw->in_b + e, da->v_pre, a->ln, w->in_w + (size_t)e * d, BT, d, e);
        }
        ops->layernorm_backward(dx, dw->norm_w, dw->norm_b, da->ln, x, w->norm_w, a->ln_mean, a->ln_rstd, BT, d);
    }
}

static const float *gmlp_block_output(const model *m, int layer) { return state(m)->acts[layer].out; }
static const float *gmlp_spatial_weights(const model *m, int layer) {
    return spatial_W(m, &state(m)->weights[layer], &state(m)->acts[layer]);
}

static double block_flops(const model_config *c, int T, int attn_dim) {
    double d = c->dim, e = half_width(c), a = attn_dim;
    double channels = 2.0 * T * d * (sgu(c)->no_split ? 1 : 2) * e + 2.0 * T * e * d; // proj_in, proj_out
    double spatial = 2.0 * T * T * e;                        // W · vn
    double tiny = attn_dim > 0 ? 2.0 * T * d * 3 * a + 2.0 * 2.0 * T * T * a + 2.0 * T * a * e : 0.0;
    return channels + spatial + tiny;
}
static double gmlp_block_flops(const model_config *c, int T, int M) { return block_flops(c, T, 0); }
static double amlp_block_flops(const model_config *c, int T, int M) { return block_flops(c, T, sgu(c)->tiny_attn_dim); }

// The hooks gMLP and aMLP share (aMLP differs in its parameters, its config check and FLOPs).
#define GMLP_SHARED_HOOKS                                                                          \
    .state_size = sizeof(gmlp_state), .declare_acts = gmlp_declare_acts, .free = gmlp_free,        \
    .set_grid = gmlp_set_grid, .forward = gmlp_forward, .output_grad = gmlp_output_grad,           \
    .backward = gmlp_backward, .block_output = gmlp_block_output, .spatial_weights = gmlp_spatial_weights,

// The spatial gating unit's keys (gmlp and amlp).
static const cfg_key sgu_keys[] = {
    {"model.sgu_gating", CFG_CHOICE, "multiplicative", 0, 0, "multiplicative|additive", 1, "gmlp/amlp SGU ablation (gMLP Table 3): multiplicative gating s = u * f(v) (the paper's SGU) or additive s = u + f(v)"},
    {"model.sgu_norm", CFG_BOOL, "true", 0, 1, NULL, 1, "gmlp/amlp SGU ablation: LayerNorm on v before the spatial projection (the paper's SGU); false: f(v) = W v + b"},
    {"model.sgu_split", CFG_BOOL, "true", 0, 1, NULL, 1, "gmlp/amlp SGU ablation: split GELU(LN(x) U) into u and v halves (the paper's SGU); false: one Z of width mlp_ratio*dim is both, s = Z * f(Z) (or Z + f(Z))"},
    {"model.sgu_toeplitz", CFG_BOOL, "false", 0, 1, NULL, 1, "gmlp/amlp: Toeplitz spatial weights W(i, j) = w[offset i - j] over the 2D patch offset (the paper's choice for MLM; at other sizes offsets beyond the table are clipped) instead of a dense n x n W (bilinearly resampled at other sizes)"},
    {NULL},
};

static const cfg_key amlp_keys[] = {
    {"model.sgu_gating", CFG_CHOICE, "multiplicative", 0, 0, "multiplicative|additive", 1, "gmlp/amlp SGU ablation (gMLP Table 3): multiplicative gating s = u * f(v) (the paper's SGU) or additive s = u + f(v)"},
    {"model.sgu_norm", CFG_BOOL, "true", 0, 1, NULL, 1, "gmlp/amlp SGU ablation: LayerNorm on v before the spatial projection (the paper's SGU); false: f(v) = W v + b"},
    {"model.sgu_split", CFG_BOOL, "true", 0, 1, NULL, 1, "gmlp/amlp SGU ablation: split GELU(LN(x) U) into u and v halves (the paper's SGU); false: one Z of width mlp_ratio*dim is both, s = Z * f(Z) (or Z + f(Z))"},
    {"model.sgu_toeplitz", CFG_BOOL, "false", 0, 1, NULL, 1, "gmlp/amlp: Toeplitz spatial weights W(i, j) = w[offset i - j] over the 2D patch offset (the paper's choice for MLM; at other sizes offsets beyond the table are clipped) instead of a dense n x n W (bilinearly resampled at other sizes)"},
    {"model.tiny_attn_dim", CFG_INT, "64", 1, 8192, NULL, 1, "amlp: width of the tiny single-head attention added to the spatial gating unit (the paper: 64)"},
    {NULL},
};

// model.sgu_*: Toeplitz W over the token index (1D, the paper's MLM form) for text, over the
// 2D patch offset for images; the gating ablations.
static void sgu_read_keys(const key_reader *r, struct model_config *c) {
    gmlp_settings *s = BACKBONE_OWN(c, gmlp_settings);
    s->toeplitz = !key_int(r, "model.sgu_toeplitz") ? 0 : c->vocab > 0 ? 1 : 2; // vocab: set before read_keys (token input)
    s->additive = !strcmp(key_str(r, "model.sgu_gating"), "additive");
    s->no_split = !key_int(r, "model.sgu_split");
    s->no_norm = !key_int(r, "model.sgu_norm");
}

static void amlp_read_keys(const key_reader *r, struct model_config *c) {
    sgu_read_keys(r, c);
    gmlp_settings *s = BACKBONE_OWN(c, gmlp_settings);
    s->tiny_attn_dim = (int)key_int(r, "model.tiny_attn_dim");
}

const backbone_kind backbone_gmlp = {
    .name = "gmlp",
    .description = "gMLP blocks: a spatial gating unit mixes tokens with learned position-specific weights, no attention",
    .config_error = gmlp_config_error,
    .keys = sgu_keys,
    .read_keys = sgu_read_keys,
    .pe_ok = sgu_pe_ok,
    .declare_params = gmlp_declare_params,
    GMLP_SHARED_HOOKS
    .block_flops = gmlp_block_flops,
    .torch_step_arch = 1,
};

const backbone_kind backbone_amlp = {
    .name = "amlp",
    .description = "aMLP blocks: gMLP with a tiny single-head attention (model.tiny_attn_dim) added to the spatial gating",
    .config_error = amlp_config_error,
    .keys = amlp_keys,
    .read_keys = amlp_read_keys,
    .pe_ok = sgu_pe_ok,
    .declare_params = amlp_declare_params,
    GMLP_SHARED_HOOKS
    .block_flops = amlp_block_flops,
    .torch_step_arch = 2,
};
