// tests/test_attention_views.c — the lecture's views on hand-built inputs with known answers
// (objectives/attention_views.h, objectives/key_pca.h):
//   - a hand-built last-block attention pattern (uniform, one patch, half on the cls key) gives
//     the expected [CLS] maps;
//   - blank patches of hand-built 8-bit images (the darkest non-black value 1/255 counts as
//     foreground) and the images back in pixel units;
//   - the foreground share of each head's [CLS] attention and its mean over heads;
//   - key PCA against NumPy (tests/key_pca_reference.py: eigh and svd on the same matrix;
//     components up to sign, the sign rule, projections, variance shares), bitwise repeatable,
//     fewer than three dimensions, and the min-max RGB mapping.
#include "testing.h"
#include "../core/common.h"
#include "../objectives/attention_views.h"
#include "../objectives/key_pca.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { B = 2, H = 3, G = 3, P = G * G, T0 = 1, T = T0 + P, PATCH = 3, S = G * PATCH };

// The last block's probabilities (B, H, T, T): the cls row per head as named below, every
// other row uniform (they must not be read).
static void attention_pattern(float *probs) {
    for (size_t i = 0; i < (size_t)B * H * T * T; i++) probs[i] = 1.0f / T;
    for (int b = 0; b < B; b++) {
        float *h1 = probs + ((size_t)b * H + 1) * T * T, *h2 = probs + ((size_t)b * H + 2) * T * T;
        for (int j = 0; j < T; j++) h1[j] = h2[j] = 0.0f;
        h1[T0 + 4] = 1.0f;                                       // head 1: all on patch 4 (the centre)
        h2[0] = 0.5f, h2[T0 + 0] = 0.25f, h2[T0 + 7] = 0.25f;   // head 2: half on cls itself, patches 0 and 7
    }
}

static void test_cls_maps(const float *probs, float *cls) {
    views_cls_attention(probs, B, H, T, T0, cls);
    int ok = 1;
    for (int b = 0; b < B; b++)
        for (int j = 0; j < P; j++) {
            const float *c = cls + (size_t)b * H * P;
            ok &= c[j] == 1.0f / T;                                     // head 0: uniform, cls key left out
            ok &= c[P + j] == (j == 4 ? 1.0f : 0.0f);                   // head 1
            ok &= c[2 * P + j] == (j == 0 || j == 7 ? 0.25f : 0.0f);    // head 2
        }
    test_check("cls attention: the cls query's row per head, patches only", ok, "head 2 image 1: %g %g %g", cls[(size_t)(H + 2) * P],
               cls[(size_t)(H + 2) * P + 7], cls[(size_t)(H + 2) * P + 4]);
}

// Image 0: black but a 255 pixel in patch 0 and a 1 (the darkest non-black value) in patch 4;
// image 1: black but 128 in patches 7 and 8. Normalised as datasets/batch.c does.
static void test_foreground(const float *cls) {
    const float mean[1] = {0.2860f}, std[1] = {0.3530f};
    unsigned char raw[B][S][S];
    memset(raw, 0, sizeof raw);
    raw[0][1][2] = 255, raw[0][4][4] = 1, raw[1][7][3] = 128, raw[1][8][8] = 128;
    float images[B * S * S], pixels[B * S * S], mask[B * P];
    for (int b = 0; b < B; b++)
        for (int y = 0; y < S; y++)
            for (int x = 0; x < S; x++) images[(b * S + y) * S + x] = ((float)raw[b][y][x] / 255.0f - mean[0]) / std[0];
    double share = views_foreground_mask(images, B, 1, S, PATCH, mean, std, pixels, mask);
    int ok = fabs(share - 4.0 / 18.0) < 1e-12;
    for (int j = 0; j < P; j++) {
        ok &= mask[j] == (j == 0 || j == 4 ? 1.0f : 0.0f);
        ok &= mask[P + j] == (j == 7 || j == 8 ? 1.0f : 0.0f);
    }
    test_check("foreground mask: a patch with one pixel >= 1/255 is non-blank, all-black ones blank", ok,
               "share %.6f (want 4/18); image 0 patches 0 %g 4 %g 1 %g", share, mask[0], mask[4], mask[1]);
    double worst = 0.0;
    for (int i = 0; i < B * S * S; i++) worst = fmax(worst, fabs(pixels[i] - ((const unsigned char *)raw)[i] / 255.0));
    test_check("images back in pixel units (0 black, 1 white)", worst < 1e-6, "max |pixel - raw/255| %.3g", worst);
    float per_head[H];
    double mean_share = views_foreground_share(cls, mask, B, H, P, per_head);
    // head 0 (uniform): 2/9 on both images; head 1 (centre): 1 and 0; head 2: 0.25 of 0.5 on patch
    // 0 (image 0) and on patch 7 (image 1): 0.5 each.
    double want[H] = {2.0 / 9.0, 0.5, 0.5}, want_mean = (2.0 / 9.0 + 0.5 + 0.5) / 3.0;
    int ok2 = fabs(mean_share - want_mean) < 1e-7;
    for (int h = 0; h < H; h++) ok2 &= fabs(per_head[h] - want[h]) < 1e-7;
    test_check("foreground share of the [CLS] attention: per head (mass on patches renormalised) and mean", ok2,
               "per head %.6f %.6f %.6f (want %.6f 0.5 0.5), mean %.6f (want %.6f)", per_head[0], per_head[1], per_head[2], want[0],
               mean_share, want_mean);
}

// Anisotropic samples with well separated variances: X = U · diag(scale) · R with a mixing R.
static float *pca_samples(int n, int d) {
    float *u = test_rnd((size_t)n * d, -1.0f, 1.0f, 31), *mix = test_rnd((size_t)d * d, -1.0f, 1.0f, 32);
    float *X = xmalloc((size_t)n * d * sizeof(float), "PCA samples");
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d; c++) {
            double s = 0.5; // an offset: centring matters
            for (int k = 0; k < d; k++) s += u[(size_t)i * d + k] * (8.0 / (1 + 2 * k)) * mix[(size_t)k * d + c];
            X[(size_t)i * d + c] = (float)s;
        }
    free(u), free(mix);
    return X;
}

static void test_pca_reference(void) {
    int n = 60, d = 7;
    float *X = pca_samples(n, d), comp[KEY_PCA_COMPONENTS * 7], proj[60 * KEY_PCA_COMPONENTS];
    double var[KEY_PCA_COMPONENTS];
    char err[256];
    if (key_pca(X, n, d, comp, proj, var, err, sizeof err) != 0) {
        test_fail("key pca", "%s", err);
        free(X);
        return;
    }
    float comp2[KEY_PCA_COMPONENTS * 7], proj2[60 * KEY_PCA_COMPONENTS];
    double var2[KEY_PCA_COMPONENTS];
    key_pca(X, n, d, comp2, proj2, var2, err, sizeof err);
    test_check("key pca: bitwise the same on a second call", !memcmp(comp, comp2, sizeof comp) && !memcmp(proj, proj2, sizeof proj) &&
               !memcmp(var, var2, sizeof var), "components, projections and variance shares of two calls compared bytewise");
    if (system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") != 0) {
        test_skip("pca-ref", "Debian's /usr/bin/python3 has no numpy (package python3-numpy)");
        free(X);
        return;
    }
    char dir[] = "/tmp/posbench-pca.XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail("pca-ref", "cannot make a temporary directory");
        free(X);
        return;
    }
    tensorfile tf;
    tf_init(&tf);
    int xd[2] = {n, d}, cd[2] = {KEY_PCA_COMPONENTS, d}, pd[2] = {n, KEY_PCA_COMPONENTS}, vd[1] = {KEY_PCA_COMPONENTS};
    tf_add(&tf, "input.X", TF_F32, 2, xd, X);
    tf_add(&tf, "output.components", TF_F32, 2, cd, comp);
    tf_add(&tf, "output.proj", TF_F32, 2, pd, proj);
    tf_add(&tf, "output.variance", TF_F64, 1, vd, var);
    test_python_check(dir, "tests/key_pca_reference.py", "pca-ref", "60x7", &tf);
    tf_free(&tf);
    test_torch_dir_remove(dir); // runs the queued check first
    free(X);
}

static void test_pca_small_and_rgb(void) {
    // d = 2 < 3 components: the third is absent (zero), its colour channel mid grey
    float X[4 * 2] = {0, 0, 2, 1, 4, 2, 6, 3.5f}, comp[KEY_PCA_COMPONENTS * 2], proj[4 * KEY_PCA_COMPONENTS], rgb[4 * 3];
    double var[KEY_PCA_COMPONENTS];
    char err[256];
    int rc = key_pca(X, 4, 2, comp, proj, var, err, sizeof err);
    key_pca_rgb(proj, 4, rgb);
    int ok = rc == 0 && comp[4] == 0.0f && comp[5] == 0.0f && var[2] == 0.0 && fabs(var[0] + var[1] - 1.0) < 1e-12;
    for (int i = 0; i < 4; i++) ok &= proj[i * 3 + 2] == 0.0f && rgb[i * 3 + 2] == 0.5f;
    float lo = 1, hi = 0;
    for (int i = 0; i < 4; i++) lo = fminf(lo, rgb[i * 3]), hi = fmaxf(hi, rgb[i * 3]);
    ok &= lo == 0.0f && hi == 1.0f && rgb[0] == 0.0f && rgb[9] == 1.0f; // first component increasing along the rows
    test_check("key pca with 2 dimensions: third component zero, rgb min-max per component, constant -> 0.5", ok,
               "rc %d var %.3f %.3f %.3f; red %.3f..%.3f, first %.3f last %.3f", rc, var[0], var[1], var[2], lo, hi, rgb[0], rgb[9]);
    rc = key_pca(X, 0, 2, NULL, NULL, NULL, err, sizeof err);
    test_check("key pca refuses an empty sample set", rc == -1 && strstr(err, "0 samples"), "rc %d: %s", rc, err);
}

int main(void) {
    float *probs = xmalloc((size_t)B * H * T * T * sizeof(float), "probs"), *cls = xmalloc((size_t)B * H * P * sizeof(float), "cls maps");
    attention_pattern(probs);
    test_cls_maps(probs, cls);
    test_foreground(cls);
    free(probs), free(cls);
    test_pca_small_and_rgb();
    test_pca_reference();
    return test_exit_code();
}
