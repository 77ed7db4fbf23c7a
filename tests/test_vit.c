// tests/test_vit.c — whole-model checks of the ViT (model.c with backbones/vit.c): the tensor
// declarations (named pointers, initialisation kinds, model.arch), sequence inputs (speech:
// one token per frame; every 1D encoding's gradients, other lengths, MP3 on frames; refusals), finite-difference gradients of every
// parameter tensor of a 2-block ViT (with and without cls / position table / relbias /
// sin1d / sin2d / CAPE / RoPE / dropout and drop path; MP3: masked attention with k/v of the
// context only and the position head, and MP3's reference tokens), reference-token draws and
// equivalences, a masked-attention model's full-attention forward, the PyTorch oracle (writes
// a tensorfile and runs tests/torch_oracle.py with Debian's /usr/bin/python3; abs, none,
// relbias, sin1d, sin2d, RoPE 2D and 1D; the MP3 cases' torch model gathers k/v from the
// context as the paper's pseudo code does, and adds abs / sin2d on the reference tokens by a
// mask), and a tiny ViT overfitting 64 Fashion-MNIST images. MP3 under train.activations=bf16
// (the compact bf16 q and context k|v): every parameter gradient within a bf16 tolerance of the
// same model with fp32 activations (both under MATMUL_BF16), so a backward that projected a
// stale LN1 context or dropped a row's dLN1 shows.
// Gradient tolerance for the whole model: eps 3e-3, |err| <= 5e-4 + 3e-2·|g|, 8 entries
// per tensor (the loss is a long fp32 composite, so the floor is above the per-op checks').
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/optimizer.h"
#include "../core/rng.h"
#include "../core/tensorfile.h"
#include "../datasets/dataset.h"
#include "../models/posenc/tables.h"
#include "../models/model.h"
#include "../models/posenc/rope.h"
#include "../models/backbones/gmlp.h"
#include "../objectives/mp3/mp3.h"
#include "../objectives/supervised/supervised.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    model *m;
    supervised *obj;
    int32_t *labels;
    int B, training;
    mp3 *pos; // non-NULL: MP3 position loss (the model's context is already set)
} model_ctx;

// Fixed: dropout masks, CAPE positions and reference tokens are identical on every call.
static const rng_addr model_loss_rng = {.seed = 5, .epoch = 1, .step = 2};

static double model_loss(void *p) {
    model_ctx *c = p;
    const float *logits = model_forward(c->m, c->B, c->training, model_loss_rng);
    return c->pos ? mp3_forward(c->pos, logits, c->B) : supervised_forward(c->obj, logits, c->labels, c->B);
}

static void model_grads(model_ctx *c) {
    model *m = c->m;
    model_loss(c);
    m->ops->zero(m->grad, m->params.total);
    model_zero_act_grads(m);
    if (c->pos) mp3_backward(c->pos, model_dlogits(m), c->B);
    else supervised_backward(c->obj, model_dlogits(m), c->labels, c->B);
    model_backward(m, c->B);
}

// MP3 models: a context of cfg->request.context_tokens tokens (cls + patches) per image from the
// objective's sampler; returns the objective (caller frees) or NULL for other models.
static mp3 *mp3_setup(model *m, int B) {
    if (!m->cfg.request.token_head) return NULL;
    mp3 *pos = xmalloc(sizeof *pos, "mp3");
    mp3_create(pos, &ops_cpu, B, m->N, m->t0);
    int Mp = m->cfg.request.context_tokens - m->t0;
    mp3_sample_context(model_context(m), B, m->N, m->t0, Mp, 9, 0, 0, 0);
    model_set_context(m, m->cfg.request.context_tokens);
    return pos;
}

static void mp3_teardown(mp3 *pos) {
    if (!pos) return;
    mp3_free(pos);
    free(pos);
}

// size > 0: the forward runs at that image size (cfg.max_image_size must allow it).
static void gradcheck_model_at(const char *label, model_config cfg, int training, int size) {
    model m;
    model_create(&m, &cfg, &ops_cpu, 3, 11);
    if (size > 0) model_set_resolution(&m, size);
    test_model_perturb(&m, 0.1f, 40);
    supervised obj;
    supervised_create(&obj, &ops_cpu, 3, cfg.num_classes, 0.1f);
    int32_t labels[3];
    test_model_fill_batch(&m, labels, 3, 41);
    model_ctx c = {&m, &obj, labels, 3, training, mp3_setup(&m, 3)};
    model_grads(&c);
    gradcheck_tol tol = {3e-3, 5e-4, 3e-2, 8};
    test_model_gradcheck_params(label, &m, &c, model_loss, tol);
    mp3_teardown(c.pos);
    supervised_free(&obj);
    model_free(&m);
}

static void gradcheck_model(const char *label, model_config cfg, int training) { gradcheck_model_at(label, cfg, training, 0); }

static void test_model_gradients(void) {
    model_config base = {.channels = 1, .image_size = 8, .patch = 4, .dim = 16, .depth = 2, .heads = 2,
                       .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 5};
    gradcheck_model("vit[cls,abs]", base, 0);
    model_config nocls = base;
    nocls.cls = 0;
    nocls.pe_kind = "none";
    nocls.channels = 2;
    gradcheck_model("vit[meanpool,nope]", nocls, 0);
    model_config drop = base;
    drop.dropout = 0.1f;
    drop.drop_path = 0.5f;
    gradcheck_model("vit[dropout,droppath]", drop, 1);
    model_config rel = base;
    rel.pe_kind = "relbias";
    gradcheck_model("vit[cls,relbias]", rel, 0);
    model_config masked = base; // 4 patches + cls; context = cls + 2 patches
    masked.pe_kind = "none";
    masked.request.token_head = 1, masked.request.head_name = "pos_head";
    masked.request.context_tokens = 3;
    gradcheck_model("vit[mp3,masked]", masked, 0);
    model_config masked_rope = masked; // the shared qkv is re-packed and re-rotated in the backward
    test_model_set_pe(&masked_rope, "rope", "pe.rope_dims=2", NULL);
    gradcheck_model("vit[mp3,masked,rope2d]", masked_rope, 0);
    // 3 blocks: the blocks' one set of activation gradients is cleared between blocks and the
    // output gradient's ping-pong pair is used in both directions.
    model_config deep = drop;
    deep.depth = 3, deep.pe_kind = "relbias";
    gradcheck_model("vit[3 blocks,relbias,dropout,droppath]", deep, 1);
    model_config deep_masked = masked;
    deep_masked.depth = 3;
    gradcheck_model("vit[3 blocks,mp3,masked]", deep_masked, 0);
    // Position encodings (docs/methods.md): fixed tables need no gradient of their own but must
    // pass the token gradient through; rope rotates q/k in every block.
    model_config sin1d = base, sin2d = base, cape = base, rope2 = base, rope1 = base;
    sin1d.pe_kind = "sin1d";
    gradcheck_model("vit[cls,sin1d]", sin1d, 0);
    sin2d.pe_kind = "sin2d";
    gradcheck_model("vit[cls,sin2d]", sin2d, 0);
    // training: positions drawn from the fixed rng of model_loss (the keys' defaults: 0.5, -1, 1.4)
    test_model_set_pe(&cape, "cape", NULL);
    gradcheck_model("vit[cls,cape,training]", cape, 1);
    cape.content_scale = sqrtf((float)cape.dim); // pe.content_scale=sqrt_d
    gradcheck_model("vit[cls,cape,training,content sqrt_d]", cape, 1);
    test_model_set_pe(&rope2, "rope", "pe.rope_dims=2", NULL); // head size 8: 2 pairs per axis
    gradcheck_model("vit[cls,rope2d]", rope2, 0);
    test_model_set_pe(&rope1, "rope", "pe.rope_dims=1", NULL), rope1.cls = 0;
    gradcheck_model("vit[meanpool,rope1d]", rope1, 0);
    // At another resolution (8 px tables, forward at 12 px): abs through the bicubic resize
    // (and its cls row), relbias with offsets clipped to the 2x2 grid's table, rope on 3x3.
    model_config abs12 = base, rel12 = rel, rope12 = rope2;
    abs12.max_image_size = rel12.max_image_size = rope12.max_image_size = 12;
    gradcheck_model_at("vit[cls,abs,8px table at 12px]", abs12, 0, 12);
    gradcheck_model_at("vit[cls,relbias,8px table at 12px]", rel12, 0, 12);
    gradcheck_model_at("vit[cls,rope2d,12px]", rope12, 0, 12);
    // MP3 reference tokens (speech variant): 2 of the 4 patches per image keep the encoding;
    // with 3 images some table rows are drawn by several images (their gradients accumulate).
    model_config ref_abs = masked, ref_sin1d = masked, ref_sin2d = masked, ref_abs12 = base;
    ref_abs.pe_kind = "abs", ref_sin1d.pe_kind = "sin1d", ref_sin2d.pe_kind = "sin2d";
    ref_abs.request.ref_tokens = ref_sin1d.request.ref_tokens = ref_sin2d.request.ref_tokens = 2;
    gradcheck_model("vit[mp3,masked,2 reference tokens,abs]", ref_abs, 0);
    gradcheck_model("vit[mp3,masked,2 reference tokens,sin1d]", ref_sin1d, 0);
    gradcheck_model("vit[mp3,masked,2 reference tokens,sin2d]", ref_sin2d, 0);
    ref_abs12.request.ref_tokens = 3, ref_abs12.max_image_size = 12; // the resized table's rows
    gradcheck_model_at("vit[cls,abs,3 reference tokens,8px table at 12px]", ref_abs12, 0, 12);
    // Sequences (speech: frames x features, one token per frame): 5 frames of 3 features, every
    // 1D encoding, the abs table resized to 7 frames, relbias clipped to its 1 x 5 table, and
    // MP3 on frames with masked attention and sin1d reference frames.
    model_config seq = {.channels = 1, .image_size = 5, .features = 3, .patch = 1, .dim = 16, .depth = 2, .heads = 2,
                        .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 4, .max_image_size = 7};
    const char *seq_kinds[] = {"none", "abs", "sin1d", "relbias", "rope"};
    for (int k = 0; k < 5; k++) {
        model_config q = seq;
        test_model_set_pe(&q, seq_kinds[k], "pe.rope_dims=1", NULL);
        char label[64];
        snprintf(label, sizeof label, "sequence[cls,%s]", seq_kinds[k]);
        gradcheck_model(label, q, 0);
        snprintf(label, sizeof label, "sequence[cls,%s,5 frames at 7]", seq_kinds[k]);
        gradcheck_model_at(label, q, 0, 7);
    }
    // 1D CAPE (positions in seconds) with its training draws (fixed by model_loss_rng), at 5 and 7 frames.
    model_config seq_cape = seq;
    seq_cape.frame_seconds = 0.01f; // the keys' defaults: time shift 60 s, local shift -1, scale 1.4
    test_model_set_pe(&seq_cape, "cape", NULL);
    gradcheck_model("sequence[cls,cape1d,training draws]", seq_cape, 1);
    gradcheck_model_at("sequence[cls,cape1d,training draws,5 frames at 7]", seq_cape, 1, 7);
    model_config seq_mp3 = seq;
    seq_mp3.pe_kind = "sin1d", seq_mp3.request.token_head = 1, seq_mp3.request.head_name = "pos_head";
    seq_mp3.request.context_tokens = 4, seq_mp3.request.ref_tokens = 2, seq_mp3.max_image_size = 0;
    gradcheck_model("sequence[mp3,masked,2 reference frames,sin1d]", seq_mp3, 0);
}

// Sequence inputs: what they refuse (2D encodings, 2D RoPE, patches), and a sequence model
// equals an image model whose patches are the frames (1 x F "images" cut into 1 x F patches
// are not square, so the equivalence is checked against the linear embedding directly).
// model_zero_act_grads_batch: a backward of B images after clearing only the batch-major
// gradients' first B images (NaN left in the rest) gives bitwise the gradients of a full
// clear, for a model whose arenas hold 8 images of up to 12 px (the eval.batch case) and
// trains 3 at 8 px and at 12 px (there a clear of 2 images would leave NaN that is read), with dropout, relbias and MP3's masked
// blocks, and gMLP / aMLP blocks (dense W resampled, Toeplitz W, tiny attention).
static void zero_batch_case(const char *label, model_config cfg, int size) {
    model m;
    cfg.max_image_size = 12;
    if (cfg.bf16_activations) ops_cpu.set_matmul_precision(MATMUL_BF16);
    model_create(&m, &cfg, &ops_cpu, 8, 11);
    model_set_resolution(&m, size);
    test_model_perturb(&m, 0.1f, 40);
    supervised obj;
    supervised_create(&obj, &ops_cpu, 8, cfg.num_classes, 0.1f);
    int32_t labels[3];
    test_model_fill_batch(&m, labels, 3, 41);
    model_ctx c = {&m, &obj, labels, 3, 1, mp3_setup(&m, 3)};
    model_grads(&c); // the reference: every activation gradient cleared
    float *want = xmalloc(m.params.total * sizeof(float), "reference gradients");
    memcpy(want, m.grad, m.params.total * sizeof(float));
    for (size_t i = 0; i < m.act_grads.total; i++) m.dact[i] = NAN;
    model_loss(&c);
    m.ops->zero(m.grad, m.params.total);
    model_zero_act_grads_batch(&m, 3);
    if (c.pos) mp3_backward(c.pos, model_dlogits(&m), 3);
    else supervised_backward(&obj, model_dlogits(&m), labels, 3);
    model_backward(&m, 3);
    size_t left = 0, partial = 0, written = 0;
    for (size_t i = 0; i < m.act_grads.total; i++) left += isnan(m.dact[i]);
    for (int i = 0; i < m.act_grads.count; i++) partial += m.act_grads.items[i].batch_major > 0;
    for (int i = 0; i < m.act_grads.count; i++) written += m.act_grads.items[i].written;
    // masked blocks and bf16 activations have gradients the step leaves to their writers (NaN here)
    int want_written = cfg.bf16_activations || cfg.request.context_tokens > 0;
    test_check(label,
               memcmp(want, m.grad, m.params.total * sizeof(float)) == 0 && left > 0 && partial > 0 &&
                   (written > 0) == want_written,
               "gradients %s; %zu of %zu floats left uncleared, %zu batch-major buffers, %zu not cleared (written)",
               memcmp(want, m.grad, m.params.total * sizeof(float)) ? "differ" : "equal", left, m.act_grads.total, partial,
               written);
    ops_cpu.set_matmul_precision(MATMUL_FP32);
    free(want);
    mp3_teardown(c.pos);
    supervised_free(&obj);
    model_free(&m);
}

static void test_zero_batch(void) {
    model_config base = {.channels = 1, .image_size = 8, .patch = 4, .dim = 16, .depth = 3, .heads = 2, .mlp_ratio = 2,
                         .cls = 1, .pe_kind = "relbias", .num_classes = 5, .dropout = 0.1f, .drop_path = 0.2f};
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (relbias, dropout, 8 px of 12)", base, 8);
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (relbias, dropout, 12 px of 12)", base, 12);
    model_config masked = base;
    masked.pe_kind = "none", masked.dropout = 0, masked.drop_path = 0;
    masked.request.token_head = 1, masked.request.head_name = "pos_head";
    masked.request.context_tokens = 3;
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (MP3 masked blocks)", masked, 8);
    // bf16 activations: the written gradients (bf16, the fp32 attention output's GRAD_WRITE) are
    // never cleared, NaN until their writer; the compact layout, bf16 attention, fp32 attention (relbias)
    model_config lp = masked;
    lp.bf16_activations = 1;
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (MP3, bf16 activations, compact)", lp, 8);
    lp.pe_kind = "relbias";
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (MP3, bf16 activations, relbias)", lp, 8);
    lp = base;
    lp.dropout = 0, lp.bf16_activations = 1;
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (bf16 activations, relbias)", lp, 12);
    lp.pe_kind = "abs";
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (bf16 activations and attention)", lp, 8);
    // gMLP's per-image buffers are batch-major, its spatial W and b (resampled or Toeplitz) are not.
    model_config gmlp = base;
    gmlp.arch = "gmlp", gmlp.pe_kind = "none";
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (gMLP, W resampled, 8 px of 12)", gmlp, 8);
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (gMLP, 12 px of 12)", gmlp, 12);
    model_config amlp = gmlp;
    amlp.arch = "amlp", *BACKBONE_OWN(&amlp, gmlp_settings) = (gmlp_settings){.toeplitz = 1, .tiny_attn_dim = 8};
    zero_batch_case("activation gradients cleared for the training batch only: same gradients (aMLP, Toeplitz, 8 px of 12)", amlp, 8);
}

static void test_sequence_config(void) {
    model_config seq = {.channels = 1, .image_size = 10, .features = 4, .patch = 1, .dim = 8, .depth = 1, .heads = 2,
                        .mlp_ratio = 2, .cls = 1, .pe_kind = "sin2d", .num_classes = 3};
    const char *why = model_config_error(&seq);
    test_check("sequence: sin2d refused (2D positions)", why && strstr(why, "pe.kind=sin2d encodes 2D image positions"),
               "%s", why ? why : "(accepted)");
    seq.frame_seconds = 0.01f, test_model_set_pe(&seq, "cape", NULL);
    why = model_config_error(&seq);
    test_check("sequence: cape accepted (1D CAPE, positions in seconds)", why == NULL, "%s", why ? why : "");
    test_model_set_pe(&seq, "rope", "pe.rope_dims=2", NULL);
    why = model_config_error(&seq);
    test_check("sequence: 2D RoPE refused", why && strstr(why, "pe.rope_dims=1"), "%s", why ? why : "(accepted)");
    test_model_set_pe(&seq, "rope", "pe.rope_dims=1", NULL), seq.patch = 2;
    why = model_config_error(&seq);
    test_check("sequence: patches other than one frame refused", why && strstr(why, "model.patch must be 1"), "%s",
               why ? why : "(accepted)");
    seq.patch = 1;
    model_config two_stream = seq;
    two_stream.pe_kind = "sin1d", two_stream.request.query_stream = 1, two_stream.request.token_head = 1, two_stream.request.context_tokens = 11;
    why = model_config_error(&two_stream);
    test_check("sequence: GVP's two streams refused (they predict image patches)", why && strstr(why, "objective.name=gvp"),
               "%s", why ? why : "(accepted)");
    model m;
    model_create(&m, &seq, &ops_cpu, 2, 5);
    test_check("sequence: one token per frame, a 1 x L grid", m.N == 10 && m.T == 11 && m.rows == 1 && m.cols == 10 &&
               m.grid == 0 && model_forward_flops(&seq) > 0, "N %d T %d rows %d cols %d", m.N, m.T, m.rows, m.cols);
    model_free(&m);
}

// train.recompute=gelu recomputes the bf16 GELU output: a model config with it but fp32
// activations is refused, naming both keys and what is valid; with bf16 activations it is accepted.
static void test_recompute_config(void) {
    model_config c = {.channels = 1, .image_size = 8, .patch = 4, .dim = 8, .depth = 2, .heads = 2, .mlp_ratio = 2,
                      .cls = 1, .pe_kind = "abs", .num_classes = 3, .recompute_gelu = 1};
    const char *why = model_config_error(&c);
    test_check("model config: train.recompute=gelu without bf16 activations refused",
               why && strstr(why, "train.recompute=gelu") && strstr(why, "train.activations=bf16") && strstr(why, "valid"),
               "%s", why ? why : "(accepted)");
    c.bf16_activations = 1;
    why = model_config_error(&c);
    test_check("model config: train.recompute=gelu with bf16 activations accepted", why == NULL, "%s", why ? why : "");
}

// A model built for masked attention keeps per block only q and the context's k|v and packs
// them into one shared qkv; a full-attention forward of it (evaluation at test eta 0, at the
// batch its arena allows) must still give exactly the logits of an ordinary model.
static void test_masked_model_full_attention(void) {
    model_config plain = {.channels = 1, .image_size = 16, .patch = 4, .dim = 16, .depth = 2, .heads = 2,
                        .mlp_ratio = 2, .cls = 1, .pe_kind = "none", .num_classes = 5, .request.token_head = 1, .request.head_name = "pos_head"};
    model_config masked = plain;
    masked.request.context_tokens = 9; // cls + 8 of 16 patches
    model a, b;
    model_create(&a, &masked, &ops_cpu, 8, 11);
    model_create(&b, &plain, &ops_cpu, 8, 11);
    test_model_perturb(&a, 0.1f, 60);
    memcpy(b.param, a.param, a.params.total * sizeof(float));
    int B = model_batch_capacity(&a, a.T); // 8 * 9 / 17 = 4
    int32_t labels[8];
    test_model_fill_batch(&a, labels, B, 61);
    memcpy(model_images(&b), model_images(&a), (size_t)B * 16 * 16 * sizeof(float));
    const float *la = model_forward(&a, B, 0, (rng_addr){0}), *lb = model_forward(&b, B, 0, (rng_addr){0});
    test_check("masked-attention model, full attention at its batch capacity = ordinary model", B == 4 &&
               memcmp(la, lb, (size_t)B * a.T * a.N * sizeof(float)) == 0, "%d images, logits bit-identical", B);
    model_free(&a);
    model_free(&b);
}

// Floats of the activation-gradient arena of cfg at `depth` blocks (4 images); counts the
// gradients named for one block ("blocks.<l>.") into *per_block.
static size_t act_grad_floats(model_config cfg, int depth, int *per_block, size_t *pair) {
    model m;
    cfg.depth = depth;
    model_create(&m, &cfg, &ops_cpu, 4, 3);
    size_t total = m.act_grads.total;
    for (int i = 0; i < m.act_grads.count; i++) {
        const char *name = m.act_grads.items[i].name;
        *per_block += !strncmp(name, "blocks.", 7) && name[7] >= '0' && name[7] <= '9';
    }
    size_t n = (size_t)4 * model_tokens_max(&m) * cfg.dim; // one (B, T, d) block output gradient
    *pair = (n + 15) / 16 * 16;                              // with its 64-byte alignment
    model_free(&m);
    return total;
}

// The blocks hold one set of activation gradients, sized like one block's, and a ping-pong
// pair of output gradients: the arena is the same at 2 and 5 blocks, one (B, T, d) buffer
// more than at 1 block, and no gradient belongs to a block index. (Per-block gradients
// would add a whole block's set per block.) relbias is left out: its per-layer bias gradient
// (H, T, T) is the encoding's, one per block by design, and does not grow with the batch.
static void test_shared_block_grads(void) {
    model_config vit = {.channels = 1, .image_size = 8, .patch = 4, .dim = 16, .heads = 2, .mlp_ratio = 2, .cls = 1,
                        .pe_kind = "abs", .num_classes = 5, .dropout = 0.1f, .max_image_size = 12};
    model_config masked = vit;
    masked.pe_kind = "none", masked.dropout = 0, masked.request.token_head = 1, masked.request.head_name = "pos_head", masked.request.context_tokens = 3;
    model_config gmlp = vit;
    gmlp.arch = "gmlp", gmlp.pe_kind = "none"; // W resampled (room for 12 px), dropout
    model_config amlp = gmlp;
    amlp.arch = "amlp", amlp.dropout = 0;
    *BACKBONE_OWN(&amlp, gmlp_settings) = (gmlp_settings){.toeplitz = 1, .tiny_attn_dim = 8};
    const struct { const char *label; model_config cfg; } cases[] = {
        {"vit (abs, dropout)", vit}, {"vit (MP3 masked)", masked}, {"gmlp (W resampled, dropout)", gmlp},
        {"amlp (Toeplitz)", amlp}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int per_block = 0;
        size_t pair = 0, n1 = act_grad_floats(cases[i].cfg, 1, &per_block, &pair);
        size_t n2 = act_grad_floats(cases[i].cfg, 2, &per_block, &pair), n5 = act_grad_floats(cases[i].cfg, 5, &per_block, &pair);
        char label[160];
        snprintf(label, sizeof label, "model: the blocks share one set of activation gradients, %s", cases[i].label);
        test_check(label, n2 == n1 + pair && n5 == n2 && per_block == 0,
                   "act-grad floats %zu at 1 block, %zu at 2, %zu at 5 (want %zu, %zu); %d gradients named for a block",
                   n1, n2, n5, n1 + pair, n1 + pair, per_block);
    }
}

// The tensor declarations: every named pointer points at its table entry in the arenas
// (parameters, gradients, activations and their gradients, backend and host inputs), every
// parameter starts as its declaration says (ones, zeros, or trunc normal std 0.02 within 2
// std), and model.arch names a backbone.
static void test_declarations(void) {
    model_config cfg = {.channels = 1, .image_size = 8, .patch = 4, .dim = 8, .depth = 2, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = "relbias", .num_classes = 3, .embed_init = MODEL_EMBED_INIT_NORMAL002,
                        .trunc_normal = MODEL_TRUNC_STD2}; // every trunc-normal value within ±0.04
    model m;
    model_create(&m, &cfg, &ops_cpu, 2, 3);
    const tensor_table *p = &m.params;
    int head = tensor_table_find(p, "head.weight"), rel = tensor_table_find(p, "blocks.1.attn.rel_bias");
    int logits = tensor_table_find(&m.acts, "logits"), images = tensor_table_find(&m.inputs, "images");
    int dlogits = tensor_table_find(&m.act_grads, "logits");
    int bound = head >= 0 && rel >= 0 && logits >= 0 && images >= 0 && dlogits >= 0 &&
                m.weights.head_w == m.param + p->items[head].offset && m.weight_grads.head_w == m.grad + p->items[head].offset &&
                m.activations.logits == m.act + m.acts.items[logits].offset &&
                m.activation_grads.logits == m.dact + m.act_grads.items[dlogits].offset &&
                m.batch.images == m.input + m.inputs.items[images].offset &&
                m.batch_host.images == m.staging + m.inputs.items[images].offset &&
                m.activation_grads.patches == NULL && m.batch.context == NULL;
    test_check("model: named pointers bind to their table entries", bound, "head.weight, logits, images, no context");
    int ones = 0, zeros = 0, normal = 0, bad = 0;
    for (int i = 0; i < p->count; i++) {
        const tensor_info *info = &p->items[i];
        const float *v = m.param + info->offset;
        double sq = 0;
        for (size_t k = 0; k < info->numel; k++) {
            if (info->init == INIT_ONE) bad += v[k] != 1.0f;
            else if (info->init == INIT_ZERO) bad += v[k] != 0.0f;
            else bad += !(fabsf(v[k]) <= 0.04f);
            sq += (double)v[k] * v[k];
        }
        ones += info->init == INIT_ONE;
        zeros += info->init == INIT_ZERO;
        normal += (info->init == INIT_TRUNC_NORMAL || info->init == INIT_LINEAR) && sq > 0;
        int is_bias = strstr(info->name, ".bias") != NULL || strstr(info->name, "rel_bias") != NULL;
        bad += is_bias != (info->init == INIT_ZERO);
    }
    // ones: norm1, norm2 per block + the final norm; zeros: 6 biases + rel_bias per block, patch, final norm and head bias
    test_check("model: every parameter starts as declared", !bad && ones == 5 && zeros == 17 && normal == p->count - 22,
               "%d ones, %d zeros, %d trunc normal, %d wrong values", ones, zeros, normal, bad);
    model_free(&m);
    model_config other = cfg;
    other.arch = "transformer";
    const char *why = model_config_error(&other);
    test_check("model: an unknown model.arch is refused naming the valid ones", why && strstr(why, "model.arch=transformer") &&
               strstr(why, BACKBONE_CHOICES), "%s", why ? why : "(accepted)");
}

// Attention memory: a block's saved attention state is what the backend asks for
// (ops->attention_state_floats), so a backend that keeps only a row log-sum-exp (CUDA) gets a
// (B, H, T) buffer instead of (B, H, T, M) — checked with the CPU backend's table and that one
// entry changed (sizes only: no forward runs); the kept probabilities exist only between
// model_keep_attention_probs(1) and (0), and equal the training forward's state on the CPU.
static size_t lse_state_floats(int B, int H, int T, int M, int C, unsigned uses) {
    (void)M, (void)C, (void)uses;
    return (size_t)B * H * T;
}
static void test_attention_memory(void) {
    model_config cfg = {.channels = 1, .image_size = 16, .patch = 4, .dim = 16, .depth = 3, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .pe_kind = "abs", .num_classes = 3};
    ops_backend lse_ops = ops_cpu;
    lse_ops.attention_state_floats = lse_state_floats;
    model full, lse;
    model_create(&full, &cfg, &ops_cpu, 4, 3);
    model_create(&lse, &cfg, &lse_ops, 4, 3);
    int state = tensor_table_find(&lse.acts, "blocks.0.attn.state");
    size_t T = 17, saved = (size_t)cfg.depth * 4 * cfg.heads * T * (T - 1);
    size_t diff = full.acts.total - lse.acts.total;
    test_check("model: the attention state is sized by the backend (B·H·T·M on the CPU, B·H·T for a log-sum-exp backend)",
               state >= 0 && lse.acts.items[state].numel == 4 * 2 * T && diff == saved,
               "blocks.0.attn.state %zu floats, %zu fewer floats in all (expected %zu)",
               state >= 0 ? lse.acts.items[state].numel : 0, diff, saved);
    model_free(&lse);
    int32_t labels[4];
    test_model_fill_batch(&full, labels, 4, 21);
    int none_before = model_attention_probs(&full, 0) == NULL;
    model_keep_attention_probs(&full, 1);
    model_forward(&full, 4, 0, (rng_addr){0});
    const float *kept = model_attention_probs(&full, 2);
    int same = kept != NULL;
    float *copy = xmalloc(4 * 2 * T * T * sizeof(float), "kept probs");
    if (same) memcpy(copy, kept, 4 * 2 * T * T * sizeof(float));
    model_keep_attention_probs(&full, 0);
    int none_after = model_attention_probs(&full, 2) == NULL;
    model_forward(&full, 4, 0, (rng_addr){0}); // the training-state buffer of the CPU holds the probabilities
    int state2 = tensor_table_find(&full.acts, "blocks.2.attn.state");
    same = same && state2 >= 0 && memcmp(copy, full.act + full.acts.items[state2].offset, 4 * 2 * T * T * sizeof(float)) == 0;
    test_check("model: kept attention probabilities only while kept, equal to the CPU's saved state",
               none_before && none_after && same, "NULL before %d, after %d; equal %d", none_before, none_after, same);
    free(copy);
    model_free(&full);
}

// Reference tokens: the draw (cls, then R distinct patch tokens per image, ascending, addressed
// by the rng, each patch equally likely), the tokens (x0 = patch embedding + the encoding row
// on cls and the references only), and with every patch a reference the model equals the
// ordinary one bit for bit.
static void test_reference_tokens(void) {
    const int N = 16, t0 = 1, R = 3, B = 4000;
    const int W = t0 + R; // cls first, then the R references
    int *ref = xmalloc((size_t)B * W * sizeof(int), "refs"), scratch[16], again[2 * (1 + 3)];
    posenc_reference_tokens(ref, B, N, t0, R, 7, 1, 2, 0, scratch);
    long count[16] = {0};
    int ordered = 1, images_differ = 0;
    for (int b = 0; b < B; b++) {
        const int *r = ref + (size_t)b * W;
        ordered &= r[0] == 0;
        for (int k = t0; k < W; k++) {
            ordered &= r[k] >= t0 && r[k] < N + t0 && (k == t0 || r[k] > r[k - 1]);
            if (r[k] >= t0 && r[k] < N + t0) count[r[k] - t0]++;
        }
        if (b > 0) images_differ |= memcmp(r, ref, W * sizeof(int)) != 0;
    }
    test_check("reference tokens: cls first, then distinct ascending patch tokens", ordered, "R=%d of N=%d", R, N);
    test_check("reference tokens: images draw different sets", images_differ, "%d images", B);
    double expect = (double)B * R / N, worst = 0.0;
    for (int n = 0; n < N; n++) worst = fmax(worst, fabs(count[n] - expect) / sqrt(expect));
    test_check("reference tokens: every patch equally likely", worst < 5.0, "worst |count - %.0f| = %.1f sd", expect, worst);
    posenc_reference_tokens(again, 2, N, t0, R, 7, 1, 2, 0, scratch);
    int same = memcmp(again, ref, sizeof again) == 0;
    posenc_reference_tokens(again, 2, N, t0, R, 7, 1, 2, 10, scratch); // images 10 and 11
    same &= memcmp(again, ref + 10 * W, sizeof again) == 0;
    posenc_reference_tokens(again, 2, N, t0, R, 7, 1, 3, 0, scratch);
    test_check("reference tokens: addressed by (seed, epoch, step, first index + image)",
               same && memcmp(again, ref, sizeof again) != 0, "same address same sets (any batch split), next step other sets");
    free(ref);

    model_config cfg = {.channels = 1, .image_size = 16, .patch = 4, .dim = 16, .depth = 2, .heads = 2,
                      .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 5, .request.ref_tokens = R};
    const char *kinds[3] = {"abs", "sin1d", "sin2d"};
    const char *names[3] = {"abs", "sin1d", "sin2d"};
    rng_addr rng = {.seed = 3, .epoch = 0, .step = 5};
    for (int k = 0; k < 3; k++) {
        model_config with_refs = cfg, all_refs = cfg, plain = cfg;
        with_refs.pe_kind = all_refs.pe_kind = plain.pe_kind = kinds[k];
        all_refs.request.ref_tokens = N, plain.request.ref_tokens = 0;
        model m, full, ordinary, none;
        model_create(&m, &with_refs, &ops_cpu, 3, 11);
        model_create(&full, &all_refs, &ops_cpu, 3, 11);
        model_create(&ordinary, &plain, &ops_cpu, 3, 11);
        model_config no_pe = plain;
        no_pe.pe_kind = "none";
        model_create(&none, &no_pe, &ops_cpu, 3, 11);
        model *models[4] = {&m, &full, &ordinary, &none};
        int32_t labels[3];
        for (int i = 0; i < 4; i++) {
            test_model_fill_batch(models[i], labels, 3, 50);
            test_model_perturb(models[i], 0.1f, 51);
            model_forward(models[i], 3, 1, rng);
        }
        // none's tokens have no encoding; ordinary's have it on every token.
        const float *x = m.activations.x0, *x_none = none.activations.x0, *x_all = ordinary.activations.x0;
        const int *r = model_reference_tokens(&m);
        int T = m.T, d = cfg.dim, ok = 1;
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < T; t++) {
                int is_ref = t == 0; // cls keeps its row
                for (int k2 = 0; k2 < R; k2++) is_ref |= r[b * (R + 1) + 1 + k2] == t;
                const float *want = (is_ref ? x_all : x_none) + ((size_t)b * T + t) * d;
                ok &= memcmp(x + ((size_t)b * T + t) * d, want, (size_t)d * sizeof(float)) == 0;
            }
        char name[96];
        snprintf(name, sizeof name, "reference tokens (%s): encoding on the %d references only", names[k], R);
        test_check(name, ok, "tokens compared with the no-encoding and every-token models");
        const float *a = full.activations.logits, *o = ordinary.activations.logits;
        snprintf(name, sizeof name, "reference tokens (%s): all %d patches references = ordinary model", names[k], N);
        test_check(name, memcmp(a, o, 3 * 5 * sizeof(float)) == 0, "logits bit-identical");
        for (int i = 0; i < 4; i++) model_free(models[i]);
    }
    model_config bad = cfg;
    test_model_set_pe(&bad, "rope", "pe.rope_dims=2", NULL);
    const char *why = model_config_error(&bad);
    test_check("reference tokens: rope refused", why && strstr(why, "abs, sin1d, sin2d"), "%s", why ? why : "(accepted)");
    bad = cfg;
    bad.request.ref_tokens = N + 1;
    why = model_config_error(&bad);
    test_check("reference tokens: more than N refused", why && strstr(why, "[0, 16]"), "%s", why ? why : "(accepted)");
}

// A model built for 8 px with room for 12 px gives the same logits at 8 px as a model
// built for 8 px only (the larger arena changes nothing), and abs resized to its own grid is
// the table itself.
static void test_resolution_roundtrip(void) {
    model_config c = {.channels = 1, .image_size = 8, .patch = 4, .dim = 16, .depth = 2, .heads = 2,
                    .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 5};
    model_config big = c;
    big.max_image_size = 16;
    model a, b;
    model_create(&a, &c, &ops_cpu, 2, 7);
    model_create(&b, &big, &ops_cpu, 2, 7);
    int32_t labels[2];
    test_model_fill_batch(&a, labels, 2, 3);
    model_set_resolution(&b, 16); // away and back: tables are rebuilt for 8 px
    model_set_resolution(&b, 8);
    test_model_fill_batch(&b, labels, 2, 3);
    const float *la = model_forward(&a, 2, 0, (rng_addr){0});
    float lb_copy[10], la_copy[10];
    memcpy(la_copy, la, sizeof la_copy);
    memcpy(lb_copy, model_forward(&b, 2, 0, (rng_addr){0}), sizeof lb_copy);
    test_check("vit: a model with room for 16 px gives identical logits at 8 px", !memcmp(la_copy, lb_copy, sizeof la_copy),
               "first logit %g vs %g", la_copy[0], lb_copy[0]);
    model_set_resolution(&b, 16);
    test_model_fill_batch(&b, labels, 2, 4);
    const float *l16 = model_forward(&b, 2, 0, (rng_addr){0});
    int finite = 1;
    for (int k = 0; k < 10; k++) finite &= isfinite(l16[k]);
    test_check("vit: forward at 16 px with an 8 px abs table (4x4 grid, 17 tokens)", finite && b.T == 17, "T=%d, finite %d", b.T, finite);
    model_free(&a);
    model_free(&b);
}

// ---------------------------------------------------------------- PyTorch oracle
static int pe_is(const model_config *c, const char *kind) { return c->pe_kind && strcmp(c->pe_kind, kind) == 0; }

#define scalar test_tf_scalar

static void oracle_case(const char *dir, const char *label, model_config cfg, int B, float smoothing) {
    model m;
    model_create(&m, &cfg, &ops_cpu, B, 3);
    test_model_perturb(&m, 0.1f, 50);
    supervised obj;
    supervised_create(&obj, &ops_cpu, B, cfg.num_classes, smoothing);
    int32_t *labels = xmalloc((size_t)B * sizeof(int32_t), "labels");
    test_model_fill_batch(&m, labels, B, 51);
    model_ctx c = {&m, &obj, labels, B, 0, mp3_setup(&m, B)};
    model_grads(&c);
    float loss = (float)model_loss(&c); // this forward's reference tokens (if any) are dumped

    tensorfile tf;
    tf_init(&tf);
    test_model_dump_shape(&tf, &cfg);
    scalar(&tf, "config.pos_abs", pe_is(&cfg, "abs"));
    scalar(&tf, "config.relbias", pe_is(&cfg, "relbias"));
    scalar(&tf, "config.sin1d", pe_is(&cfg, "sin1d"));
    scalar(&tf, "config.sin2d", pe_is(&cfg, "sin2d"));
    scalar(&tf, "config.rope", pe_is(&cfg, "rope") ? posenc_rope_settings_of(&cfg).dims : 0);
    scalar(&tf, "config.rope_base", pe_is(&cfg, "rope") ? posenc_rope_settings_of(&cfg).base : 0);
    scalar(&tf, "config.pos_head", cfg.request.token_head);
    if (cfg.features > 0) { // a sequence: frames x features, 1D CAPE at the evaluation positions
        scalar(&tf, "config.features", cfg.features);
        scalar(&tf, "config.cape1d", pe_is(&cfg, "cape"));
        if (pe_is(&cfg, "cape")) {
            float *t = xmalloc((size_t)B * m.N * sizeof(float), "cape positions");
            posenc_time_eval_positions(t, B, m.N, cfg.frame_seconds);
            int tdims[2] = {B, m.N};
            tf_add(&tf, "input.cape_t", TF_F32, 2, tdims, t);
            free(t); // tf_add copies
        }
    }
    if (cfg.content_scale != 0.0f && cfg.content_scale != 1.0f) scalar(&tf, "config.content_scale", cfg.content_scale);
    if (c.pos) {
        int cdims[2] = {B, cfg.request.context_tokens};
        tf_add(&tf, "input.context", TF_I32, 2, cdims, model_context(&m));
    }
    if (cfg.request.ref_tokens > 0) {
        int rdims[2] = {B, m.t0 + cfg.request.ref_tokens};
        tf_add(&tf, "input.refs", TF_I32, 2, rdims, model_reference_tokens(&m));
    }
    scalar(&tf, "config.num_classes", cfg.num_classes);
    scalar(&tf, "config.label_smoothing", smoothing);
    int idims[4] = {B, cfg.channels, cfg.image_size, cfg.image_size}, ldims[1] = {B};
    int sdims[3] = {B, cfg.image_size, cfg.features};
    if (cfg.features > 0) tf_add(&tf, "input.images", TF_F32, 3, sdims, model_images(&m));
    else tf_add(&tf, "input.images", TF_F32, 4, idims, model_images(&m));
    tf_add(&tf, "input.labels", TF_I32, 1, ldims, labels);
    char name[160];
    for (int i = 0; i < m.params.count; i++) {
        const tensor_info *info = &m.params.items[i];
        snprintf(name, sizeof name, "param.%s", info->name);
        tf_add(&tf, name, TF_F32, info->ndim, info->shape, m.param + info->offset);
        snprintf(name, sizeof name, "grad.%s", info->name);
        tf_add(&tf, name, TF_F32, info->ndim, info->shape, m.grad + info->offset);
    }
    int one[1] = {1}, lg[3] = {B, cfg.num_classes, 0}, plg[3] = {B, m.T, m.N};
    tf_add(&tf, "output.loss", TF_F32, 1, one, &loss);
    tf_add(&tf, "output.logits", TF_F32, c.pos ? 3 : 2, c.pos ? plg : lg, model_forward(&m, B, 0, model_loss_rng));
    test_python_check(dir, "tests/torch_oracle.py", "oracle", label, &tf);
    tf_free(&tf);
    free(labels);
    mp3_teardown(c.pos);
    supervised_free(&obj);
    model_free(&m);
}

static void test_torch_oracle(void) {
    char dir[] = "/tmp/posbench-oracle.XXXXXX";
    if (!test_torch_dir("oracle", dir)) return;
    model_config a = {.channels = 3, .image_size = 8, .patch = 2, .dim = 24, .depth = 2, .heads = 3,
                    .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 7};
    oracle_case(dir, "cls-abs", a, 4, 0.1f);
    model_config b = a;
    b.cls = 0;
    b.pe_kind = "none";
    b.channels = 1;
    b.patch = 4;
    b.image_size = 12;
    oracle_case(dir, "meanpool-nope", b, 5, 0.0f);
    model_config rel = a;
    rel.pe_kind = "relbias";
    oracle_case(dir, "cls-relbias", rel, 3, 0.1f);
    // Fixed and rotary encodings against an independent torch implementation of their
    // formulas (tests/torch_vit.py): sin1d and sin2d (cls), rope 2D axial (cls, head
    // size 8) and rope 1D (mean pool, given base).
    model_config sin = a;
    sin.pe_kind = "sin1d";
    oracle_case(dir, "cls-sin1d", sin, 3, 0.1f);
    sin.pe_kind = "sin2d";
    oracle_case(dir, "cls-sin2d", sin, 3, 0.1f);
    sin.content_scale = sqrtf((float)sin.dim); // pe.content_scale=sqrt_d
    oracle_case(dir, "cls-sin2d-content-sqrt-d", sin, 3, 0.1f);
    sin.content_scale = 0.0f;
    model_config rope = a;
    rope.heads = 3;
    test_model_set_pe(&rope, "rope", "pe.rope_dims=2", NULL);
    oracle_case(dir, "cls-rope2d", rope, 3, 0.1f);
    rope.cls = 0;
    test_model_set_pe(&rope, "rope", "pe.rope_dims=1", "pe.rope_base=50", NULL);
    oracle_case(dir, "meanpool-rope1d", rope, 3, 0.0f);
    model_config masked = a; // 16 patches + cls, eta 0.5: keys/values from cls + 8 patches
    masked.pe_kind = "none";
    masked.request.token_head = 1, masked.request.head_name = "pos_head";
    masked.request.context_tokens = 9;
    oracle_case(dir, "mp3-masked", masked, 3, 0.0f);
    model_config refs_abs = masked, refs_sin2d = masked; // MP3 reference points: 3 of 16 patches
    refs_abs.pe_kind = "abs", refs_sin2d.pe_kind = "sin2d";
    refs_abs.request.ref_tokens = refs_sin2d.request.ref_tokens = 3;
    oracle_case(dir, "mp3-refs-abs", refs_abs, 3, 0.0f);
    oracle_case(dir, "mp3-refs-sin2d", refs_sin2d, 3, 0.0f);
    // Sequences (speech: 9 frames of 5 features, one token per frame) with every 1D encoding:
    // the torch twin computes sin1d, relbias (1 x L), rope 1D and 1D CAPE (from the positions)
    // from their formulas.
    model_config seq = {.channels = 1, .image_size = 9, .features = 5, .patch = 1, .dim = 16, .depth = 2, .heads = 2,
                        .mlp_ratio = 2, .cls = 1, .num_classes = 4, .frame_seconds = 0.01f};
    const char *seq_kinds[] = {"none", "abs", "sin1d", "relbias", "rope", "cape"};
    for (int k = 0; k < 6; k++) {
        char label[64];
        test_model_set_pe(&seq, seq_kinds[k], "pe.rope_dims=1", NULL); // cape: the keys' defaults (60 s, -1, 1.4)
        snprintf(label, sizeof label, "sequence-%s", seq_kinds[k]);
        oracle_case(dir, label, seq, 3, 0.1f);
    }
    test_torch_dir_remove(dir); // runs the queued checks first
}

// ---------------------------------------------------------------- overfitting 64 images
static void test_overfit(void) {
    dataset ds;
    char err[1024];
    if (dataset_load(&ds, "fashion-mnist", &(dataset_options){.path = ""}, "train", err, sizeof err) != 0) {
        test_skip("overfit 64 images", "%s", err);
        return;
    }
    dataset_limit(&ds, 64);
    model_config cfg = {.channels = 1, .image_size = 28, .patch = 7, .dim = 64, .depth = 2, .heads = 4,
                      .mlp_ratio = 2, .cls = 1, .pe_kind = "abs", .num_classes = 10};
    model m;
    model_create(&m, &cfg, &ops_cpu, 64, 1);
    supervised obj;
    supervised_create(&obj, &ops_cpu, 64, 10, 0.0f);
    float *am = xmalloc_aligned(m.params.total * sizeof(float), "m"), *av = xmalloc_aligned(m.params.total * sizeof(float), "v");
    int idx[64];
    int32_t labels[64];
    for (int i = 0; i < 64; i++) idx[i] = i;
    optim_config oc = {.lr = 2e-3f, .min_lr = 2e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .clip = 1.0f,
                       .warmup_steps = 10, .total_steps = 200};
    double loss = 0;
    long top1 = 0, top5 = 0;
    int steps = 0;
    for (; steps < 200; steps++) {
        dataset_make_batch(&ds, idx, 64, NULL, 0, 0, 0, model_images(&m), labels);
        model_ctx c = {&m, &obj, labels, 64, 1, NULL};
        model_grads(&c);
        loss = obj.losses[0];
        optim_step(m.ops, &m.params, m.param, m.grad, am, av, &oc, steps, NULL);
        if (steps % 10 == 9) { // evaluation mode accuracy on the same 64 images
            top1 = top5 = 0;
            const float *logits = model_forward(&m, 64, 0, (rng_addr){0});
            supervised_count_topk(&obj, logits, labels, 64, &top1, &top5);
            if (top1 == 64) break;
        }
    }
    test_check("overfit 64 images to 100% training accuracy", top1 == 64, "top1 %ld/64 after %d steps (loss %.4f)",
               top1, steps + 1, loss);
    free(am);
    free(av);
    supervised_free(&obj);
    model_free(&m);
    dataset_free(&ds);
}

// MP3's masked model (17 tokens, 5 context tokens, depth 3) under MATMUL_BF16 with fp32 activations
// and with bf16 activations (compact bf16 q and k|v): the same weights and batch, one backward;
// each parameter tensor's gradient within 5% of its largest fp32 value. bf16 storage adds one
// rounding (2^-9 relative) per stored tensor; measured (worst over the tensors) below.
static void test_bf16_masked_gradients(void) {
    model_config cfg = {.channels = 1, .image_size = 16, .patch = 4, .dim = 32, .depth = 3, .heads = 2,
                        .mlp_ratio = 2, .cls = 1, .pe_kind = "none", .num_classes = 5};
    cfg.request.token_head = 1, cfg.request.head_name = "pos_head", cfg.request.context_tokens = 5;
    const int B = 4;
    float *g[2] = {NULL, NULL};
    size_t n = 0;
    tensor_table params;
    for (int lp = 0; lp < 2; lp++) {
        model_config c = cfg;
        c.bf16_activations = lp;
        model m;
        model_create(&m, &c, &ops_cpu, B, 11);
        test_model_perturb(&m, 0.1f, 40);
        int32_t labels[4];
        test_model_fill_batch(&m, labels, B, 41);
        ops_cpu.set_matmul_precision(MATMUL_BF16);
        model_ctx mc = {&m, NULL, labels, B, 0, mp3_setup(&m, B)};
        model_grads(&mc);
        ops_cpu.set_matmul_precision(MATMUL_FP32);
        n = m.params.total;
        g[lp] = xmalloc(n * sizeof(float), "gradients");
        memcpy(g[lp], m.grad, n * sizeof(float));
        if (lp == 0) { // the table (names, offsets), kept past the model
            params = m.params;
            params.items = xmalloc((size_t)params.count * sizeof *params.items, "param table");
            memcpy(params.items, m.params.items, (size_t)params.count * sizeof *params.items);
        }
        mp3_teardown(mc.pos);
        model_free(&m);
    }
    double worst = 0;
    const char *worst_name = "";
    int bad = 0, checked = 0;
    for (int i = 0; i < params.count; i++) {
        const tensor_info *t = &params.items[i];
        double largest = 0, diff = 0;
        for (size_t e = 0; e < t->numel; e++) {
            largest = fmax(largest, fabs(g[0][t->offset + e]));
            diff = fmax(diff, fabs((double)g[1][t->offset + e] - g[0][t->offset + e]));
        }
        if (largest == 0) continue;
        checked++;
        double rel = diff / largest;
        bad += !(rel <= 0.05);
        if (!(rel <= worst)) worst = rel, worst_name = t->name;
    }
    test_check("vit[mp3,masked] bf16 activations (compact q, k|v): every parameter gradient within 5% of its largest fp32-activation value",
               bad == 0 && checked > 10, "%d tensors checked, %d over; worst %.3g (%s)", checked, bad, worst, worst_name);
    free(params.items), free(g[0]), free(g[1]);
}

int main(int argc, char **argv) {
    posbench_set_threads(2);
    int only_oracle = argc > 1 && strcmp(argv[1], "--oracle") == 0;
    if (!only_oracle) test_model_gradients();
    test_zero_batch();
    if (!only_oracle) test_resolution_roundtrip();
    if (!only_oracle) test_reference_tokens();
    if (!only_oracle) test_masked_model_full_attention();
    if (!only_oracle) test_declarations();
    if (!only_oracle) test_shared_block_grads();
    if (!only_oracle) test_attention_memory();
    if (!only_oracle) test_sequence_config();
    if (!only_oracle) test_recompute_config();
    if (!only_oracle) test_bf16_masked_gradients();
    test_torch_oracle();
    if (!only_oracle) test_overfit();
    return test_exit_code();
}
