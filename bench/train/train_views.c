// bench/train/train_views.c — the lecture's views of a finished ViT (docs/views.md), recorded
// under /views by every image run whatever its objective: the last block's [CLS] -> patch
// attention per head for a fixed set of test images, the share of that attention on non-blank
// patches, and per block the PCA of the attention keys of every patch of those images mapped to
// RGB. One evaluation pass through the backend (model_forward on the run's device, results read
// back with ops->download), full attention over every token (MP3's context, MAE's kept tokens
// and GVP's query stream off: the model as a finetuned or probed run sees images); the
// statistics are computed on the host (objectives/attention_views.h, objectives/key_pca.h).
// The images: the first eval.view_images test images (rows 0..N-1 of the evaluation split
// after data.test_limit), no augmentation, at the training size: the same images in every run
// of the same data. Called by train.c's finish_file after record_attention.
#include "train_data.h"
#include "../../core/common.h"
#include "../../objectives/attention_views.h"
#include "../../objectives/key_pca.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Why a run has no views at all ("" when it has them).
static const char *views_absent(const run *r) {
    const model *m = &r->model;
    if (r->test.vocab > 0 || r->test.audio || m->grid <= 0) return "the input is not an image (text or speech): the views are of image patches";
    if (!model_has_attention(m)) return "the blocks have no attention (model.arch without attention, e.g. gmlp, amlp): no [CLS] attention and no keys";
    return "";
}

// The model back to full attention over every token of the content stream.
static void full_attention(model *m) {
    if (m->cfg.request.keep_tokens > 0) model_set_keep(m, 0);
    if (m->cfg.request.query_stream) model_set_streams(m, 0, ATTN_MASK_NONE);
    model_set_context(m, m->T);
}

void record_views(run *r) {
    model *m = &r->model;
    int want = r->trainer.view_images;
    if (want <= 0) return; // off: no /views group
    const char *absent = views_absent(r);
    if (absent[0]) {
        results_attr_str(r->res, "/views", "absent", absent);
        return;
    }
    double t_start = now_seconds();
    full_attention(m);
    int N = want < r->test.n ? want : r->test.n, L = m->cfg.depth, H = m->cfg.heads, d = m->cfg.dim, t0 = m->t0, T = m->T;
    int C = m->cfg.channels, S = m->image_size, p = m->cfg.patch, gh = m->rows, gw = m->cols, P = gh * gw;
    int chunk = model_batch_capacity(m, T); // MAE's and MP3's arenas are sized for fewer tokens
    if (chunk > N) chunk = N;
    size_t img = (size_t)C * S * S;
    float *pixels = xmalloc((size_t)N * img * sizeof(float), "view images");
    float *mask = xmalloc((size_t)N * P * sizeof(float), "view foreground masks");
    float *cls = t0 ? xmalloc((size_t)N * H * P * sizeof(float), "view cls attention") : NULL;
    float *keys = xmalloc((size_t)L * N * P * d * sizeof(float), "view keys"); // (L, N·P, d)
    float *probs = t0 ? xmalloc((size_t)chunk * H * T * T * sizeof(float), "last block attention (host)") : NULL;
    float *qkv = xmalloc((size_t)chunk * T * 3 * d * sizeof(float), "block keys (host)");
    bfloat16 *qkv16 = xmalloc((size_t)chunk * T * 3 * d * sizeof(bfloat16), "block bf16 keys (host)");
    int32_t *rows = xmalloc((size_t)N * sizeof(int32_t), "view image rows");
    if (t0) model_keep_attention_probs(m, 1);
    for (int start = 0; start < N; start += chunk) {
        int B = N - start < chunk ? N - start : chunk;
        for (int b = 0; b < B; b++) r->batch_index[b] = rows[start + b] = start + b;
        load_batch(r, &r->test, r->batch_index, B, NULL, 0, 0, r->train_size);
        views_foreground_mask(model_images(m), B, C, S, p, r->test.mean, r->test.std, pixels + start * img, mask + (size_t)start * P);
        model_forward(m, B, 0, (rng_addr){0});
        if (t0) {
            m->ops->download(probs, model_attention_probs(m, L - 1), (size_t)B * H * T * T * sizeof(float));
            views_cls_attention(probs, B, H, T, t0, cls + (size_t)start * H * P);
        }
        for (int l = 0; l < L; l++) {
            int stored_bf16;
            size_t stride; // elements from one token's keys to the next's (<= 3d)
            const void *k = model_attention_keys(m, l, B, &stored_bf16, &stride);
            if (!k) die_fail("internal: block %d kept no keys in the views' full-attention forward", l + 1);
            size_t nk = ((size_t)B * T - 1) * stride + d; // through the last token's keys
            if (stored_bf16) { // train.activations=bf16: widened exactly on the host
                m->ops->download(qkv16, k, nk * sizeof(bfloat16));
                for (size_t e = 0; e < nk; e++) qkv[e] = bf16_to_float(qkv16[e]);
            } else {
                m->ops->download(qkv, k, nk * sizeof(float));
            }
            for (int b = 0; b < B; b++) // the keys of the patch tokens
                for (int j = 0; j < P; j++)
                    memcpy(keys + (((size_t)l * N + start + b) * P + j) * d, qkv + ((size_t)b * T + t0 + j) * stride,
                           (size_t)d * sizeof(float));
        }
    }
    if (t0) model_keep_attention_probs(m, 0);
    long nonblank = 0;
    for (size_t k = 0; k < (size_t)N * P; k++) nonblank += mask[k] > 0.0f;
    int idims[1] = {N}, imdims[4] = {N, C, S, S}, mdims[3] = {N, gh, gw};
    results_dataset_i32(r->res, "/views/image_index", 1, idims, rows);
    results_dataset_f32(r->res, "/views/images", 4, imdims, pixels);
    results_dataset_f32(r->res, "/views/foreground_mask", 3, mdims, mask);
    results_attr_int(r->res, "/views", "images", N);
    results_attr_int(r->res, "/views", "patch", p);
    results_attr_str(r->res, "/views", "image_rule", "the first eval.view_images test images (rows 0..N-1 of the evaluation split after "
                     "data.test_limit; /views/image_index), no augmentation, at the training size; /views/images in pixel units "
                     "(0 black, 1 white)");
    results_attr_str(r->res, "/views", "foreground_rule", "a patch is non-blank when some pixel of it, in some channel, mapped back to the "
                     "0..255 scale of the stored 8-bit image ((x * std + mean) * 255 of the normalised input x), is >= 0.5, i.e. does "
                     "not round to the black background 0; /views/foreground_mask (N, gh, gw), 1 = non-blank");
    results_attr_double(r->res, "/views", "foreground_patches", (double)nonblank / ((double)N * P));
    if (t0) {
        float *share = xmalloc((size_t)H * sizeof(float), "foreground share per head");
        double mean = views_foreground_share(cls, mask, N, H, P, share);
        int cdims[4] = {N, H, gh, gw}, hdims[1] = {H};
        results_dataset_f32(r->res, "/views/cls_attention", 4, cdims, cls);
        results_dataset_f32(r->res, "/views/foreground_attention", 1, hdims, share);
        results_attr_double(r->res, "/views", "foreground_attention", mean);
        results_attr_double(r->res, "/final", "foreground_attention", mean);
        results_attr_str(r->res, "/views", "cls_rule", "cls_attention: probabilities of the [CLS] query to each patch key in the "
                         "last block, per head (the cls key's own left out); foreground_attention per head: mean over the images "
                         "of the share of that mass on non-blank patches; the attribute: its mean over heads");
        printf("views: [CLS] attention on non-blank patches %.4f (mean over %d heads and %d images; non-blank patches: %.4f)\n",
               mean, H, N, (double)nonblank / ((double)N * P));
        free(share);
    } else {
        results_attr_str(r->res, "/views", "absent", "cls_attention, foreground_attention: the model has no [CLS] token (model.cls=false)");
    }
    float *pca = xmalloc((size_t)L * N * P * 3 * sizeof(float), "key PCA colours"); // (L, N, gh, gw, 3)
    float *proj = xmalloc((size_t)N * P * KEY_PCA_COMPONENTS * sizeof(float), "key PCA projections");
    float *variance = xmalloc((size_t)L * KEY_PCA_COMPONENTS * sizeof(float), "key PCA variance shares");
    for (int l = 0; l < L; l++) {
        double var[KEY_PCA_COMPONENTS];
        char err[256];
        if (key_pca(keys + (size_t)l * N * P * d, N * P, d, NULL, proj, var, err, sizeof err) != 0) die_fail("%s", err);
        key_pca_rgb(proj, N * P, pca + (size_t)l * N * P * 3);
        for (int k = 0; k < KEY_PCA_COMPONENTS; k++) variance[l * KEY_PCA_COMPONENTS + k] = (float)var[k];
    }
    int pdims[5] = {L, N, gh, gw, 3}, vdims[2] = {L, KEY_PCA_COMPONENTS};
    results_dataset_f32(r->res, "/views/key_pca", 5, pdims, pca);
    results_dataset_f32(r->res, "/views/key_pca_variance", 2, vdims, variance);
    results_attr_str(r->res, "/views", "key_pca_rule", "per block, the attention keys (channels d..2d of q|k|v, every head, after RoPE "
                     "where used) of every patch of the N images, centred, projected on the first three principal components of "
                     "their covariance (LAPACK dsyevd; each component's largest-magnitude entry positive), each component min-max "
                     "scaled over those patches to [0, 1] as red, green, blue; key_pca_variance: each component's share of the variance");
    printf("views: /views of %d test images recorded in %.2f s (key PCA of %d blocks)\n", N, now_seconds() - t_start, L);
    free(pixels), free(mask), free(cls), free(keys), free(probs), free(qkv), free(qkv16), free(rows), free(pca), free(proj), free(variance);
}
