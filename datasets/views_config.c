// datasets/views_config.c — the SimCLR and DINO view presets and the check of a view_config
// against an image shape (datasets/views.h states each preset's numbers and its source).
#include "views.h"
#include "../core/common.h"
#include <math.h>
#include <string.h>

// The kernel SimCLR uses: 10% of the image side, made odd, at least 3.
static int blur_kernel_for(int size) {
    int k = (int)lround(0.1 * size);
    if (k % 2 == 0) k += 1;
    if (k < 3) k = 3;
    // reflect padding needs kernel/2 < size: small views take the largest kernel that fits
    while (k > 1 && k / 2 >= size) k -= 2;
    return k;
}

// The fields both methods share: crop ratio [3/4, 4/3] (torchvision's default), flip 0.5,
// blur sigma [0.1, 2]; nothing else on.
static void base(view_config *c, int size) {
    memset(c, 0, sizeof *c);
    c->size = size;
    c->scale[0] = 0.08f, c->scale[1] = 1.0f;
    c->ratio[0] = 3.0f / 4.0f, c->ratio[1] = 4.0f / 3.0f;
    c->hflip_p = 0.5f;
    c->brightness[0] = c->brightness[1] = 1.0f;
    c->contrast[0] = c->contrast[1] = 1.0f;
    c->saturation[0] = c->saturation[1] = 1.0f;
    c->hue[0] = c->hue[1] = 0.0f;
    c->blur_kernel = blur_kernel_for(size);
    c->blur_sigma[0] = 0.1f, c->blur_sigma[1] = 2.0f;
    c->solarize_threshold = 0.5f;
}

// torchvision ColorJitter._check_input of a number x: [max(0, 1 - x), 1 + x].
static void factor_range(float r[2], float x) {
    r[0] = 1.0f - x > 0.0f ? 1.0f - x : 0.0f;
    r[1] = 1.0f + x;
}

void view_config_simclr(view_config *c, int size, float strength) {
    base(c, size);
    const float s = strength;
    c->jitter_p = 0.8f;
    factor_range(c->brightness, 0.8f * s);
    factor_range(c->contrast, 0.8f * s);
    factor_range(c->saturation, 0.8f * s);
    c->hue[0] = -0.2f * s, c->hue[1] = 0.2f * s;
    c->grayscale_p = 0.2f;
    c->blur_p = 0.5f;
}

static void dino_common(view_config *c, int size) {
    base(c, size);
    c->jitter_p = 0.8f;
    factor_range(c->brightness, 0.4f);
    factor_range(c->contrast, 0.4f);
    factor_range(c->saturation, 0.2f);
    c->hue[0] = -0.1f, c->hue[1] = 0.1f;
    c->grayscale_p = 0.2f;
    c->solarize_threshold = 128.0f / 255.0f;
}

void view_config_dino_global(view_config *c, int size, int second) {
    dino_common(c, size);
    c->scale[0] = 0.4f, c->scale[1] = 1.0f;
    c->blur_p = second ? 0.1f : 1.0f;
    c->solarize_p = second ? 0.2f : 0.0f;
}

void view_config_dino_local(view_config *c, int size) {
    dino_common(c, size);
    c->scale[0] = 0.05f, c->scale[1] = 0.4f;
    c->blur_p = 0.5f;
}

void view_set_simclr(view_set *s, int size, float strength) {
    memset(s, 0, sizeof *s);
    s->count = 2;
    view_config_simclr(&s->config[0], size, strength);
    s->config[1] = s->config[0];
}

void view_set_dino(view_set *s, int global_size, int local_size, int locals) {
    if (locals < 0 || 2 + locals > VIEWS_MAX)
        die_input("DINO views: %d local crops (0..%d allowed)", locals, VIEWS_MAX - 2);
    memset(s, 0, sizeof *s);
    s->count = 2 + locals;
    view_config_dino_global(&s->config[0], global_size, 0);
    view_config_dino_global(&s->config[1], global_size, 1);
    for (int v = 0; v < locals; v++) view_config_dino_local(&s->config[2 + v], local_size);
}

static int prob_ok(float p) { return p >= 0.0f && p <= 1.0f; }

const char *view_config_check(const view_config *c, int C, int H, int W) {
    if (C != 1 && C != 3) return "views need 1- or 3-channel images";
    if (H < 1 || W < 1) return "views need images of at least 1 x 1 pixels";
    if (c->size < 1) return "size must be >= 1";
    if (!(c->scale[0] > 0.0f && c->scale[0] <= c->scale[1])) return "scale must be 0 < min <= max";
    if (!(c->ratio[0] > 0.0f && c->ratio[0] <= c->ratio[1])) return "ratio must be 0 < min <= max";
    if (!prob_ok(c->hflip_p) || !prob_ok(c->jitter_p) || !prob_ok(c->grayscale_p) || !prob_ok(c->blur_p) ||
        !prob_ok(c->solarize_p))
        return "probabilities must be in [0, 1]";
    const float *f[3] = {c->brightness, c->contrast, c->saturation};
    for (int k = 0; k < 3; k++)
        if (!(f[k][0] >= 0.0f && f[k][0] <= f[k][1] && isfinite(f[k][1])))
            return "brightness, contrast and saturation ranges must be 0 <= min <= max";
    if (!(c->hue[0] >= -0.5f && c->hue[0] <= c->hue[1] && c->hue[1] <= 0.5f))
        return "hue range must be -0.5 <= min <= max <= 0.5";
    if (c->blur_p > 0.0f) {
        if (c->blur_kernel < 1 || c->blur_kernel % 2 == 0) return "blur_kernel must be odd and >= 1";
        if (c->blur_kernel / 2 >= c->size) return "blur_kernel/2 must be < size (reflect padding)";
        if (!(c->blur_sigma[0] > 0.0f && c->blur_sigma[0] <= c->blur_sigma[1]))
            return "blur sigma must be 0 < min <= max";
    }
    if (!(c->solarize_threshold >= 0.0f && c->solarize_threshold <= 1.0f))
        return "solarize_threshold must be in [0, 1]";
    return NULL;
}
