// tests/test_views.c — checks of the SimCLR/DINO views (datasets/views*.c): every transform with
// fixed parameters and whole views against torchvision's functional transforms, and the crop
// draws replayed through torchvision's own RandomResizedCrop.get_params (tests/views_oracle.py,
// Debian's /usr/bin/python3 with python3-torchvision; SKIP lines without it); the draws'
// distributions (crop box within scale/ratio up to rounding, the fallback, each probability,
// the jitter order, factor and sigma ranges); determinism (bitwise the same at 1 and 2 threads,
// stateless in (epoch, step) so resumable, view and seed change the view, one transform's
// settings leave the others' draws alone); an identity view equals dataset_make_batch; presets
// and config checks. One PASS/FAIL/SKIP line per check; runs in a few seconds.
#include "testing.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "../core/tensorfile.h"
#include "../datasets/dataset.h"
#include "../datasets/views.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// A synthetic dataset of n C x H x W images with random bytes (a few 0s and 255s too).
static dataset synthetic(int n, int C, int H, int W, unsigned tag) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    ds.n = n, ds.channels = C, ds.height = H, ds.width = W, ds.num_classes = 10;
    const size_t row = (size_t)C * H * W;
    ds.pixels = xmalloc((size_t)n * row, "test pixels");
    ds.labels = xmalloc((size_t)n * sizeof *ds.labels, "test labels");
    rng_stream s = rng_stream_make(tag, RNG_TEST, 0, 0, 3);
    for (size_t i = 0; i < (size_t)n * row; i++) ds.pixels[i] = (uint8_t)rng_below(&s, 256);
    for (int i = 0; i < n; i++) ds.labels[i] = (int32_t)(i % 10);
    const float means[3] = {0.4914f, 0.4822f, 0.4465f}, stds[3] = {0.2470f, 0.2435f, 0.2616f};
    for (int c = 0; c < 3; c++) ds.mean[c] = means[c], ds.std[c] = stds[c];
    return ds;
}

// ---------------------------------------------------------------- torchvision oracle

static void add_case(tensorfile *tf, const char *kind, const char *label, const float *in, int C, int H, int W,
                     const float *out, int OC, int OH, int OW, const double *args, int nargs) {
    char name[128];
    int din[3] = {C, H, W}, dout[3] = {OC, OH, OW}, da[1] = {nargs};
    snprintf(name, sizeof name, "%s.%s.in", kind, label);
    tf_add(tf, name, TF_F32, 3, din, in);
    snprintf(name, sizeof name, "%s.%s.out", kind, label);
    tf_add(tf, name, TF_F32, 3, dout, out);
    snprintf(name, sizeof name, "%s.%s.args", kind, label);
    tf_add(tf, name, TF_F64, 1, da, args);
}

// An image (C, H, W) in [0, 1]: random values, with exact 0, 1, 0.5 and gray pixels sprinkled in
// (hue's and solarize's edge cases).
static float *test_image(int C, int H, int W, unsigned tag) {
    const size_t n = (size_t)H * W;
    float *x = test_rnd((size_t)C * n, 0.0f, 1.0f, tag);
    for (size_t i = 0; i < n; i += 7)
        for (int c = 0; c < C; c++) x[c * n + i] = (i / 7) % 3 == 0 ? 0.0f : (i / 7) % 3 == 1 ? 1.0f : 0.5f;
    for (size_t i = 3; i < n; i += 11)
        for (int c = 1; c < C; c++) x[c * n + i] = x[i]; // gray: r = g = b
    return x;
}

// One elementwise or in-place transform of a fresh image, added as a case.
typedef void (*pixel_op)(float *x, int C, int H, int W, float a);
static void op_case(tensorfile *tf, const char *kind, const char *label, int C, int H, int W, float a,
                    pixel_op op, unsigned tag) {
    float *in = test_image(C, H, W, tag), *out = xmalloc((size_t)C * H * W * sizeof(float), "test out");
    memcpy(out, in, (size_t)C * H * W * sizeof(float));
    op(out, C, H, W, a);
    double args[1] = {a};
    add_case(tf, kind, label, in, C, H, W, out, C, H, W, args, 1);
    free(in);
    free(out);
}
static void hflip_op(float *x, int C, int H, int W, float a) { view_hflip(x, C, H, W); }
static void gray_op(float *x, int C, int H, int W, float a) { view_grayscale(x, C, H, W); }

static void crop_case(tensorfile *tf, const char *label, int C, int H, int W, int top, int left, int h, int w,
                      int S, unsigned tag) {
    float *in = test_image(C, H, W, tag), *out = xmalloc((size_t)C * S * S * sizeof(float), "test out");
    view_resized_crop(in, C, H, W, top, left, h, w, S, out);
    double args[5] = {top, left, h, w, S};
    add_case(tf, "crop", label, in, C, H, W, out, C, S, S, args, 5);
    free(in);
    free(out);
}

static void blur_case(tensorfile *tf, const char *label, int C, int H, int W, int k, float sigma, unsigned tag) {
    float *in = test_image(C, H, W, tag), *out = xmalloc((size_t)C * H * W * sizeof(float), "test out");
    float *scratch = xmalloc((size_t)C * H * W * sizeof(float), "test scratch");
    memcpy(out, in, (size_t)C * H * W * sizeof(float));
    view_gaussian_blur(out, C, H, W, k, sigma, scratch);
    double args[2] = {k, sigma};
    add_case(tf, "blur", label, in, C, H, W, out, C, H, W, args, 2);
    free(in);
    free(out);
    free(scratch);
}

// Whole views of dataset images with drawn parameters (view_apply), each dumped with its params.
static int pipeline_cases(tensorfile *tf, const dataset *ds, const view_set *set, const char *prefix, int n) {
    const int C = ds->channels, H = ds->height, W = ds->width;
    int jittered = 0;
    for (int k = 0; k < n; k++) {
        const int v = k % set->count;
        const view_config *c = &set->config[v];
        view_params p;
        view_draw(c, H, W, 11, 2, 5, k, v, &p);
        const int S = c->size;
        float *scratch = xmalloc(view_scratch_floats(c, C, H, W) * sizeof(float), "test scratch");
        float *out = xmalloc((size_t)C * S * S * sizeof(float), "test out");
        const uint8_t *src = ds->pixels + (size_t)(k % ds->n) * C * H * W;
        view_apply(c, &p, src, C, H, W, out, scratch);
        float *in = xmalloc((size_t)C * H * W * sizeof(float), "test in");
        for (size_t i = 0; i < (size_t)C * H * W; i++) in[i] = (float)src[i] / 255.0f;
        double a[25] = {p.top, p.left, p.height, p.width, S, p.flip, p.jitter, p.order[0], p.order[1], p.order[2],
                        p.order[3], p.brightness, p.contrast, p.saturation, p.hue, p.grayscale, p.blur,
                        c->blur_kernel, p.sigma, p.solarize, c->solarize_threshold,
                        c->brightness[0] != 1.0f || c->brightness[1] != 1.0f,
                        c->contrast[0] != 1.0f || c->contrast[1] != 1.0f,
                        c->saturation[0] != 1.0f || c->saturation[1] != 1.0f, c->hue[0] != 0.0f || c->hue[1] != 0.0f};
        jittered += p.jitter;
        char label[64];
        snprintf(label, sizeof label, "%s%d-view%d", prefix, k, v);
        add_case(tf, "pipeline", label, in, C, H, W, out, C, S, S, a, 25);
        free(scratch);
        free(out);
        free(in);
    }
    return jittered;
}

// Crop draws with their traces, for the replay through torchvision's get_params.
static void cropdraw_case(tensorfile *tf, const char *label, int H, int W, float s0, float s1, float r0, float r1,
                          int n) {
    view_config c;
    view_config_simclr(&c, 8, 1.0f);
    c.scale[0] = s0, c.scale[1] = s1, c.ratio[0] = r0, c.ratio[1] = r1;
    float *trace = xcalloc((size_t)n * 20, sizeof(float), "test trace");
    int32_t *attempts = xmalloc((size_t)n * sizeof(int32_t), "test attempts"), *box = xmalloc((size_t)n * 4 * sizeof(int32_t), "test box");
    for (int d = 0; d < n; d++) {
        rng_stream s = rng_stream_make(21, RNG_TEST, 1, 0, (uint32_t)d);
        view_params p;
        view_draw_crop(&c, H, W, &s, &p, trace + (size_t)d * 20);
        attempts[d] = p.crop_attempts;
        box[4 * d] = p.top, box[4 * d + 1] = p.left, box[4 * d + 2] = p.height, box[4 * d + 3] = p.width;
    }
    char name[128];
    int dt[2] = {n, 20}, da[1] = {n}, db[2] = {n, 4}, dg[1] = {6};
    double args[6] = {H, W, c.scale[0], c.scale[1], c.ratio[0], c.ratio[1]};
    snprintf(name, sizeof name, "cropdraw.%s.trace", label);
    tf_add(tf, name, TF_F32, 2, dt, trace);
    snprintf(name, sizeof name, "cropdraw.%s.attempts", label);
    tf_add(tf, name, TF_I32, 1, da, attempts);
    snprintf(name, sizeof name, "cropdraw.%s.box", label);
    tf_add(tf, name, TF_I32, 2, db, box);
    snprintf(name, sizeof name, "cropdraw.%s.args", label);
    tf_add(tf, name, TF_F64, 1, dg, args);
    free(trace);
    free(attempts);
    free(box);
}

// Runs the oracle on path; its lines go to stdout (FAIL lines re-reported through test_fail)
// unless quiet (then only counted). Returns its exit status (-1 if it could not run).
static int run_oracle(const char *path, int quiet, int *fails, int *skips) {
    char cmd[4400], line[2048];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/views_oracle.py '%s'", path);
    fflush(stdout);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    *fails = *skips = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "FAIL ", 5) == 0) (*fails)++;
        if (strncmp(line, "SKIP ", 5) == 0) (*skips)++;
        if (quiet) continue;
        if (strncmp(line, "FAIL ", 5) == 0) {
            line[strcspn(line, "\n")] = 0;
            char *detail = strstr(line + 5, ": ");
            if (detail) *detail = 0, detail += 2;
            test_fail(line + 5, "%s", detail ? detail : "(no detail)");
        } else {
            fputs(line, stdout);
        }
    }
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void adj_brightness(float *x, int C, int H, int W, float a) { view_adjust_brightness(x, C, H, W, a); }
static void adj_contrast(float *x, int C, int H, int W, float a) { view_adjust_contrast(x, C, H, W, a); }
static void adj_saturation(float *x, int C, int H, int W, float a) { view_adjust_saturation(x, C, H, W, a); }
static void adj_hue(float *x, int C, int H, int W, float a) { view_adjust_hue(x, C, H, W, a); }
static void solarize_op(float *x, int C, int H, int W, float a) { view_solarize(x, C, H, W, a); }

static void test_oracle(void) {
    if (access("/usr/bin/python3", X_OK) != 0) {
        test_skip("oracle views", "Debian's /usr/bin/python3 is not installed (make deps installs it with torchvision)");
        return;
    }
    char dir[] = "/tmp/posbench-views-oracle.XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail("oracle views", "mkdtemp failed");
        return;
    }
    tensorfile tf, bad;
    tf_init(&tf);
    tf_init(&bad);
    // resized crops: global/local sizes from sub-boxes (down and up), non-square boxes, the whole
    // image at its own size (identity), 1 and 3 channels, a 1-pixel box
    crop_case(&tf, "c3-28-box20x15-to28", 3, 28, 28, 3, 9, 20, 15, 28, 1);
    crop_case(&tf, "c1-28-box10x13-to12", 1, 28, 28, 17, 2, 10, 13, 12, 2);
    crop_case(&tf, "c3-32-box7x9-to28", 3, 32, 32, 0, 23, 7, 9, 28, 3);
    crop_case(&tf, "c1-28-whole-to28", 1, 28, 28, 0, 0, 28, 28, 28, 4);
    crop_case(&tf, "c3-28-whole-to12", 3, 28, 28, 0, 0, 28, 28, 12, 5);
    crop_case(&tf, "c3-20x28-box19x27-to20", 3, 20, 28, 1, 1, 19, 27, 20, 6);
    crop_case(&tf, "c1-28-box1x1-to5", 1, 28, 28, 27, 27, 1, 1, 5, 7);
    op_case(&tf, "hflip", "c3-12x9", 3, 12, 9, 0, hflip_op, 8);
    op_case(&tf, "brightness", "c3-0.3", 3, 16, 16, 0.3f, adj_brightness, 9);
    op_case(&tf, "brightness", "c1-1.7", 1, 16, 16, 1.7f, adj_brightness, 10);
    op_case(&tf, "contrast", "c3-0.2", 3, 16, 16, 0.2f, adj_contrast, 11);
    op_case(&tf, "contrast", "c3-1.8", 3, 16, 16, 1.8f, adj_contrast, 12);
    op_case(&tf, "contrast", "c1-1.6", 1, 28, 28, 1.6f, adj_contrast, 13);
    op_case(&tf, "saturation", "c3-0.2", 3, 16, 16, 0.2f, adj_saturation, 14);
    op_case(&tf, "saturation", "c3-1.8", 3, 16, 16, 1.8f, adj_saturation, 15);
    op_case(&tf, "saturation", "c1-1.8", 1, 16, 16, 1.8f, adj_saturation, 16);
    op_case(&tf, "hue", "c3-m0.5", 3, 16, 16, -0.5f, adj_hue, 17);
    op_case(&tf, "hue", "c3-m0.2", 3, 16, 16, -0.2f, adj_hue, 18);
    op_case(&tf, "hue", "c3-0.1", 3, 16, 16, 0.1f, adj_hue, 19);
    op_case(&tf, "hue", "c3-0.5", 3, 16, 16, 0.5f, adj_hue, 20);
    op_case(&tf, "hue", "c1-0.3", 1, 16, 16, 0.3f, adj_hue, 21);
    op_case(&tf, "grayscale", "c3", 3, 16, 16, 0, gray_op, 22);
    op_case(&tf, "grayscale", "c1", 1, 16, 16, 0, gray_op, 23);
    op_case(&tf, "solarize", "c3-0.5", 3, 16, 16, 0.5f, solarize_op, 24);
    op_case(&tf, "solarize", "c1-128of255", 1, 16, 16, 128.0f / 255.0f, solarize_op, 25);
    blur_case(&tf, "c3-28-k3-s1.3", 3, 28, 28, 3, 1.3f, 26);
    blur_case(&tf, "c1-28-k3-s0.1", 1, 28, 28, 3, 0.1f, 27);
    blur_case(&tf, "c3-12-k5-s2.0", 3, 12, 12, 5, 2.0f, 28);
    blur_case(&tf, "c1-4x6-k7-s0.7", 1, 4, 6, 7, 0.7f, 29);
    blur_case(&tf, "c3-28-k1-s0.5", 3, 28, 28, 1, 0.5f, 30);
    // the crop draws through torchvision's get_params: SimCLR, DINO global and local, a non-square
    // image each way, a ratio range no crop fits often (fallbacks), one that always falls back
    cropdraw_case(&tf, "simclr-28", 28, 28, 0.08f, 1.0f, 3.0f / 4.0f, 4.0f / 3.0f, 3000);
    cropdraw_case(&tf, "dino-global-28", 28, 28, 0.4f, 1.0f, 3.0f / 4.0f, 4.0f / 3.0f, 2000);
    cropdraw_case(&tf, "dino-local-28", 28, 28, 0.05f, 0.4f, 3.0f / 4.0f, 4.0f / 3.0f, 2000);
    cropdraw_case(&tf, "wide-20x32", 20, 32, 0.3f, 1.0f, 3.0f / 4.0f, 4.0f / 3.0f, 1500);
    cropdraw_case(&tf, "tall-32x20", 32, 20, 0.3f, 1.0f, 0.2f, 5.0f, 1500);
    cropdraw_case(&tf, "ratio3to4-on-8", 8, 8, 0.9f, 1.0f, 3.0f, 4.0f, 500);
    cropdraw_case(&tf, "always-fallback-wide", 28, 28, 1.0f, 1.0f, 2.0f, 2.0f, 20);
    cropdraw_case(&tf, "always-fallback-tall", 28, 28, 1.0f, 1.0f, 0.5f, 0.5f, 20);
    // whole views: SimCLR at s = 1 on 3 channels, DINO global + local views on 3 and 1 channels
    dataset rgb = synthetic(8, 3, 28, 28, 31), gray = synthetic(8, 1, 28, 28, 32);
    view_set simclr, dino;
    view_set_simclr(&simclr, 28, 1.0f);
    view_set_dino(&dino, 28, 12, 2);
    int jittered = pipeline_cases(&tf, &rgb, &simclr, "simclr-rgb", 12);
    jittered += pipeline_cases(&tf, &rgb, &dino, "dino-rgb", 12);
    jittered += pipeline_cases(&tf, &gray, &dino, "dino-gray", 8);
    test_check("oracle views pipeline coverage", jittered >= 10, "%d of 32 dumped views were colour-jittered", jittered);
    dataset_free(&rgb);
    dataset_free(&gray);

    // negative control: a resized crop one value off by 1e-5 and a hue by 1e-4 must fail
    {
        float *in = test_image(3, 16, 16, 40), *out = xmalloc(3 * 12 * 12 * sizeof(float), "test out");
        view_resized_crop(in, 3, 16, 16, 2, 3, 11, 9, 12, out);
        out[100] += 1e-5f;
        double a[5] = {2, 3, 11, 9, 12};
        add_case(&bad, "crop", "perturbed", in, 3, 16, 16, out, 3, 12, 12, a, 5);
        memcpy(out, in, 3 * 12 * 12 * sizeof(float)); // reuse: a 3 x 12 x 12 image for hue
        view_adjust_hue(out, 3, 12, 12, 0.25f);
        out[7] += 1e-4f;
        double h[1] = {0.25};
        add_case(&bad, "hue", "perturbed", in, 3, 12, 12, out, 3, 12, 12, h, 1);
        free(in);
        free(out);
    }
    char path[200], badpath[200], err[512];
    snprintf(path, sizeof path, "%s/views.tf", dir);
    snprintf(badpath, sizeof badpath, "%s/views-perturbed.tf", dir);
    if (tf_write(&tf, path, err, sizeof err) != 0 || tf_write(&bad, badpath, err, sizeof err) != 0) {
        test_fail("oracle views", "%s", err);
    } else {
        int fails = 0, skips = 0, rc = run_oracle(path, 0, &fails, &skips);
        if (rc != 0 && fails == 0) test_fail("oracle views", "tests/views_oracle.py exited with status %d", rc);
        if (rc == 0 && skips == 0) { // torchvision ran: it must also reject wrong numbers
            rc = run_oracle(badpath, 1, &fails, &skips);
            test_check("oracle views detects perturbed outputs", rc == 1 && fails == 2,
                       "a crop value off by 1e-5, a hue value by 1e-4: exit %d, %d FAIL line(s) (want 1, 2)", rc,
                       fails);
        }
    }
    tf_free(&tf);
    tf_free(&bad);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

// ---------------------------------------------------------------- distributions

// |k/n - p| within 4.5 binomial standard deviations
static int rate_ok(int k, int n, double p) { return fabs((double)k / n - p) <= 4.5 * sqrt(p * (1 - p) / n) + 1e-12; }

static void test_crop_draws(void) {
    static const struct { const char *name; int H, W; float s0, s1, r0, r1; } cfg[] = {
        {"simclr 28x28", 28, 28, 0.08f, 1.0f, 0.75f, 4.0f / 3.0f},
        {"dino local 28x28", 28, 28, 0.05f, 0.4f, 0.75f, 4.0f / 3.0f},
        {"dino global 32x20", 32, 20, 0.4f, 1.0f, 0.75f, 4.0f / 3.0f},
    };
    enum { N = 20000 };
    for (int k = 0; k < 3; k++) {
        view_config c;
        view_config_simclr(&c, 8, 1.0f);
        c.scale[0] = cfg[k].s0, c.scale[1] = cfg[k].s1, c.ratio[0] = cfg[k].r0, c.ratio[1] = cfg[k].r1;
        const int H = cfg[k].H, W = cfg[k].W;
        int inside = 1, in_range = 1, fallbacks = 0, accepted = 0;
        double *first_scale = xmalloc(N * sizeof(double), "test scales"), *first_ratio = xmalloc(N * sizeof(double), "test ratios");
        double worst = 0;
        for (int d = 0; d < N; d++) {
            view_params p;
            float trace[20];
            rng_stream s = rng_stream_make(5 + (uint32_t)k, RNG_TEST, 2, 0, (uint32_t)d);
            view_draw_crop(&c, H, W, &s, &p, trace);
            first_scale[d] = trace[0], first_ratio[d] = trace[1];
            inside &= p.top >= 0 && p.left >= 0 && p.height >= 1 && p.width >= 1 && p.top + p.height <= H &&
                      p.left + p.width <= W;
            if (p.crop_attempts == 11) {
                fallbacks++;
                continue;
            }
            accepted++;
            // w = round(sqrt(A·a)), h = round(sqrt(A/a)) for A/(H·W) in [s0, s1] and a in [r0, r1]: the
            // unrounded w', h' lie within 0.5 of w, h, so A = w'·h' and a = w'/h' satisfy these bounds
            const double w = p.width, h = p.height, HW = (double)H * W;
            const double a_lo = (w - 0.5) * (h - 0.5) / HW, a_hi = (w + 0.5) * (h + 0.5) / HW;
            const double r_lo = (w - 0.5) / (h + 0.5), r_hi = (w + 0.5) / (h - 0.5);
            const int ok = a_hi >= cfg[k].s0 - 1e-6 && a_lo <= cfg[k].s1 + 1e-6 && r_hi >= cfg[k].r0 - 1e-6 &&
                           r_lo <= cfg[k].r1 + 1e-6;
            if (!ok) worst = fmax(worst, w * h / HW);
            in_range &= ok;
        }
        const double lr0 = log(cfg[k].r0), lr1 = log(cfg[k].r1);
        const double ks_s = test_ks_uniform(first_scale, N, cfg[k].s0, cfg[k].s1);
        const double ks_r = test_ks_uniform(first_ratio, N, lr0, lr1);
        char name[96];
        snprintf(name, sizeof name, "views crop draws %s", cfg[k].name);
        // KS critical value at alpha 0.001: 1.95/sqrt(n)
        test_check(name, inside && in_range && ks_s < 1.95 / sqrt(N) && ks_r < 1.95 / sqrt(N),
                   "%d draws: every box inside the image; %d accepted crops have area/HW in [%.2f, %.2f] and w/h in "
                   "[%.3f, %.3f] up to rounding%s; %d fallbacks; first attempt's scale U(scale) KS %.4f, log ratio "
                   "U(log ratio) KS %.4f (< %.4f)", N, accepted, cfg[k].s0, cfg[k].s1, cfg[k].r0, cfg[k].r1,
                   in_range ? "" : " (NOT all)", fallbacks, ks_s, ks_r, 1.95 / sqrt(N));
        (void)worst;
        free(first_scale);
        free(first_ratio);
    }
    // the fallback: scale 1 and ratio 2 never fit a square image: w = 28, h = round(28/2) = 14, centred
    view_config c;
    view_config_simclr(&c, 8, 1.0f);
    c.scale[0] = c.scale[1] = 1.0f, c.ratio[0] = c.ratio[1] = 2.0f;
    view_params p;
    rng_stream s = rng_stream_make(5, RNG_TEST, 3, 0, 0);
    view_draw_crop(&c, 28, 28, &s, &p, NULL);
    int ok = p.crop_attempts == 11 && p.top == 7 && p.left == 0 && p.height == 14 && p.width == 28;
    c.ratio[0] = c.ratio[1] = 0.5f;
    view_draw_crop(&c, 28, 28, &s, &p, NULL);
    ok &= p.crop_attempts == 11 && p.top == 0 && p.left == 7 && p.height == 28 && p.width == 14;
    c.ratio[0] = 0.5f, c.ratio[1] = 2.0f, c.scale[0] = c.scale[1] = 4.0f; // too big at any ratio: whole image
    view_draw_crop(&c, 20, 28, &s, &p, NULL);
    ok &= p.crop_attempts == 11 && p.top == 0 && p.left == 0 && p.height == 20 && p.width == 28;
    test_check("views crop fallback", ok,
               "scale 1, ratio 2 (0.5) on 28x28: centre box 14x28 (28x14) after 10 failed attempts; ratio within "
               "range: the whole image");
}

static void test_param_draws(void) {
    view_config c;
    view_config_simclr(&c, 28, 1.0f);
    c.solarize_p = 0.3f;
    enum { N = 20000 };
    int flips = 0, jit = 0, grays = 0, blurs = 0, sols = 0, perm[24] = {0}, ranges = 1, perm_ok = 1;
    double *bright = xmalloc(N * sizeof(double), "test factors");
    for (int d = 0; d < N; d++) {
        view_params p;
        view_draw(&c, 28, 28, 3, 1, (uint32_t)(d / 100), d % 100, d % 2, &p);
        flips += p.flip, jit += p.jitter, grays += p.grayscale, blurs += p.blur, sols += p.solarize;
        int seen = 0, code = 0;
        for (int k = 0; k < 4; k++) {
            perm_ok &= p.order[k] >= 0 && p.order[k] < 4 && !(seen >> p.order[k] & 1);
            seen |= 1 << (p.order[k] & 3);
        }
        // Lehmer code of the order: 0..23
        for (int k = 0; k < 4; k++) {
            int smaller = 0;
            for (int m = k + 1; m < 4; m++) smaller += p.order[m] < p.order[k];
            code = code * (4 - k) + smaller;
        }
        perm[code]++;
        ranges &= p.brightness >= 0.2f && p.brightness <= 1.8f && p.contrast >= 0.2f && p.contrast <= 1.8f &&
                  p.saturation >= 0.2f && p.saturation <= 1.8f && p.hue >= -0.2f && p.hue <= 0.2f;
        ranges &= p.blur ? p.sigma >= 0.1f && p.sigma <= 2.0f : p.sigma == 0.0f;
        bright[d] = p.brightness;
    }
    test_check("views draw rates", rate_ok(flips, N, 0.5) && rate_ok(jit, N, 0.8) && rate_ok(grays, N, 0.2) &&
                                        rate_ok(blurs, N, 0.5) && rate_ok(sols, N, 0.3),
               "%d views: flip %.4f (p 0.5), jitter %.4f (0.8), grayscale %.4f (0.2), blur %.4f (0.5), solarize "
               "%.4f (0.3), each within 4.5 binomial sd", N, (double)flips / N, (double)jit / N, (double)grays / N,
               (double)blurs / N, (double)sols / N);
    double chi2 = 0;
    for (int k = 0; k < 24; k++) chi2 += (perm[k] - N / 24.0) * (perm[k] - N / 24.0) / (N / 24.0);
    // chi-square with 23 degrees of freedom: P(> 49.7) = 0.001
    test_check("views jitter order", perm_ok && chi2 < 49.7,
               "every order is a permutation of the 4 adjustments; all 24 orders equally likely: chi2 %.1f (23 dof, "
               "< 49.7)", chi2);
    const double ks = test_ks_uniform(bright, N, 0.2, 1.8);
    test_check("views factor ranges", ranges && ks < 1.95 / sqrt(N),
               "SimCLR s=1: brightness/contrast/saturation in [0.2, 1.8], hue in [-0.2, 0.2], sigma in [0.1, 2] when "
               "blurred (0 otherwise); brightness ~ U(0.2, 1.8): KS %.4f", ks);
    free(bright);

    // probabilities 0 and 1 are never / always
    view_config_simclr(&c, 28, 1.0f);
    c.hflip_p = 1.0f, c.jitter_p = 0.0f, c.grayscale_p = 1.0f, c.blur_p = 0.0f, c.solarize_p = 1.0f;
    int ends = 1;
    for (int d = 0; d < 2000; d++) {
        view_params p;
        view_draw(&c, 28, 28, 3, 0, 0, d, 0, &p);
        ends &= p.flip && !p.jitter && p.grayscale && !p.blur && p.solarize;
    }
    test_check("views probabilities 0 and 1", ends, "p 1 always applies, p 0 never (2000 views)");
}

// ---------------------------------------------------------------- determinism

static void test_independence(void) {
    // one transform's settings leave the other transforms' draws unchanged
    view_config a, b;
    view_config_dino_global(&a, 28, 1);
    b = a;
    b.solarize_p = 0.9f, b.blur_p = 0.3f, b.scale[0] = 0.1f, b.hflip_p = 0.7f;
    int ok = 1, changed = 0;
    for (int d = 0; d < 500; d++) {
        view_params pa, pb;
        view_draw(&a, 28, 28, 9, 1, 2, d, 1, &pa);
        view_draw(&b, 28, 28, 9, 1, 2, d, 1, &pb);
        ok &= pa.jitter == pb.jitter && memcmp(pa.order, pb.order, sizeof pa.order) == 0 &&
              pa.brightness == pb.brightness && pa.hue == pb.hue && pa.grayscale == pb.grayscale;
        changed += pa.top != pb.top || pa.height != pb.height || pa.solarize != pb.solarize;
    }
    test_check("views transforms draw independently", ok && changed > 0,
               "changing crop scale, flip, blur and solarize probabilities leaves jitter and grayscale draws "
               "unchanged (500 views; %d changed in crop or solarize)", changed);
}

static void test_determinism(void) {
    dataset ds = synthetic(40, 3, 28, 28, 50);
    view_set set;
    view_set_dino(&set, 28, 12, 4);
    enum { B = 24 };
    int idx[B];
    for (int b = 0; b < B; b++) idx[b] = (b * 7 + 3) % ds.n;
    const size_t max_out = (size_t)B * 3 * 28 * 28;
    float *x = xmalloc((max_out + 16) * sizeof(float), "test views"), *y = xmalloc((max_out + 16) * sizeof(float), "test views");
    int32_t lx[B], ly[B];
    int saved = posbench_threads(), same = 1, guard = 1;
    for (int v = 0; v < set.count; v++) {
        const size_t n = (size_t)B * 3 * set.config[v].size * set.config[v].size;
        for (int k = 0; k < 16; k++) x[n + k] = y[n + k] = -77.0f;
        posbench_set_threads(1);
        views_make_batch(&ds, idx, B, &set, v, 4, 3, 17, x, lx);
        posbench_set_threads(2);
        views_make_batch(&ds, idx, B, &set, v, 4, 3, 17, y, ly);
        same &= memcmp(x, y, n * sizeof(float)) == 0 && memcmp(lx, ly, sizeof lx) == 0;
        for (int k = 0; k < 16; k++) guard &= x[n + k] == -77.0f && y[n + k] == -77.0f;
    }
    posbench_set_threads(saved);
    int labels_ok = 1;
    for (int b = 0; b < B; b++) labels_ok &= lx[b] == ds.labels[idx[b]];
    test_check("views thread independence", same && guard && labels_ok,
               "DINO set (2 global 28 px, 4 local 12 px) at 1 and 2 OpenMP threads: bitwise equal views and labels, "
               "nothing written past (B, C, size, size)");

    // view index, seed, step change the view; the same (seed, epoch, step) gives the same view
    // whatever was made before (stateless: a resumed run draws the same)
    const size_t n = (size_t)B * 3 * 28 * 28;
    views_make_batch(&ds, idx, B, &set, 0, 4, 3, 17, x, lx);
    views_make_batch(&ds, idx, B, &set, 1, 4, 3, 17, y, ly);
    int view_differs = memcmp(x, y, n * sizeof(float)) != 0;
    view_set two;
    view_set_simclr(&two, 28, 1.0f);
    views_make_batch(&ds, idx, B, &two, 0, 4, 3, 17, x, lx);
    views_make_batch(&ds, idx, B, &two, 1, 4, 3, 17, y, ly);
    int per_image = 0; // images whose two SimCLR views differ
    for (int b = 0; b < B; b++)
        per_image += memcmp(x + b * 3 * 784, y + b * 3 * 784, 3 * 784 * sizeof(float)) != 0;
    views_make_batch(&ds, idx, B, &two, 0, 5, 3, 17, y, ly);
    int seed_differs = memcmp(x, y, n * sizeof(float)) != 0;
    float *z = xmalloc(n * sizeof(float), "test views");
    views_make_batch(&ds, idx, B, &two, 0, 4, 3, 17, z, ly); // after other batches: the same again
    int resumable = memcmp(x, z, n * sizeof(float)) == 0;
    views_make_batch(&ds, idx, B, &two, 0, 4, 3, 18, z, ly);
    int step_differs = memcmp(x, z, n * sizeof(float)) != 0;
    test_check("views reproducible and distinct", view_differs && per_image == B && seed_differs && resumable &&
                                                      step_differs,
               "view 0 vs 1 differ (DINO globals; SimCLR: %d of %d images' two views differ); another seed or step "
               "differs; the same (seed, epoch, step, view) made again after other batches is bitwise the same",
               per_image, B);
    free(z);

    // an identity view (whole-image crop at native size, nothing else) is dataset_make_batch's batch
    view_set id;
    memset(&id, 0, sizeof id);
    id.count = 1;
    view_config *c = &id.config[0];
    view_config_simclr(c, 28, 1.0f);
    c->scale[0] = c->scale[1] = 1.0f, c->ratio[0] = c->ratio[1] = 1.0f;
    c->hflip_p = c->jitter_p = c->grayscale_p = c->blur_p = c->solarize_p = 0.0f;
    views_make_batch(&ds, idx, B, &id, 0, 4, 3, 17, x, lx);
    dataset_make_batch(&ds, idx, B, NULL, 0, 0, 0, y, ly);
    test_check("views identity view is the plain batch", memcmp(x, y, n * sizeof(float)) == 0,
               "crop scale 1 ratio 1 at 28 px, no other transform: bitwise dataset_make_batch(aug = NULL)");
    free(x);
    free(y);
    dataset_free(&ds);
}

// ---------------------------------------------------------------- presets and checks

static int range_is(const float r[2], float lo, float hi) { return fabsf(r[0] - lo) < 1e-6f && fabsf(r[1] - hi) < 1e-6f; }

static void test_presets(void) {
    view_config c;
    view_config_simclr(&c, 28, 1.0f);
    int ok = c.size == 28 && range_is(c.scale, 0.08f, 1.0f) && range_is(c.ratio, 0.75f, 4.0f / 3.0f) &&
             c.hflip_p == 0.5f && c.jitter_p == 0.8f && range_is(c.brightness, 0.2f, 1.8f) &&
             range_is(c.contrast, 0.2f, 1.8f) && range_is(c.saturation, 0.2f, 1.8f) && range_is(c.hue, -0.2f, 0.2f) &&
             c.grayscale_p == 0.2f && c.blur_p == 0.5f && c.blur_kernel == 3 && range_is(c.blur_sigma, 0.1f, 2.0f) &&
             c.solarize_p == 0.0f && view_config_check(&c, 3, 28, 28) == NULL;
    view_config_simclr(&c, 28, 0.5f);
    ok &= range_is(c.brightness, 0.6f, 1.4f) && range_is(c.hue, -0.1f, 0.1f);
    view_config_simclr(&c, 224, 1.0f);
    ok &= c.blur_kernel == 23; // 10% of 224 = 22.4 -> 22 -> odd 23
    test_check("views preset simclr", ok,
               "scale [0.08, 1], ratio [3/4, 4/3], flip 0.5, jitter 0.8 of (0.8s, 0.8s, 0.8s, 0.2s) (s 1 and 0.5), "
               "grayscale 0.2, blur 0.5 with kernel 10%% of the size (3 at 28 px, 23 at 224), sigma [0.1, 2]");
    view_set s;
    view_set_dino(&s, 28, 12, 6);
    const view_config *g0 = &s.config[0], *g1 = &s.config[1], *l = &s.config[2];
    ok = s.count == 8 && g0->size == 28 && range_is(g0->scale, 0.4f, 1.0f) && g0->blur_p == 1.0f &&
         g0->solarize_p == 0.0f && g1->blur_p == 0.1f && g1->solarize_p == 0.2f &&
         fabsf(g1->solarize_threshold - 128.0f / 255.0f) < 1e-7f && l->size == 12 && range_is(l->scale, 0.05f, 0.4f) &&
         l->blur_p == 0.5f && l->solarize_p == 0.0f && range_is(l->brightness, 0.6f, 1.4f) &&
         range_is(l->contrast, 0.6f, 1.4f) && range_is(l->saturation, 0.8f, 1.2f) && range_is(l->hue, -0.1f, 0.1f) &&
         l->jitter_p == 0.8f && l->grayscale_p == 0.2f && l->blur_kernel == 3;
    for (int v = 0; v < s.count; v++) ok &= view_config_check(&s.config[v], 1, 28, 28) == NULL;
    test_check("views preset dino", ok,
               "2 global views 28 px scale [0.4, 1] (blur 1.0 / 0.1, solarize 0 / 0.2 at 128/255), 6 local views 12 "
               "px scale [0.05, 0.4] blur 0.5; jitter 0.8 of (0.4, 0.4, 0.2, 0.1), grayscale 0.2; all pass the check");

    // the check rejects what cannot be applied
    view_config bad[8];
    for (int k = 0; k < 8; k++) view_config_simclr(&bad[k], 12, 1.0f);
    bad[0].blur_kernel = 4;
    bad[1].blur_kernel = 25; // 25/2 = 12 >= size 12
    bad[2].scale[0] = 0.0f;
    bad[3].ratio[0] = 2.0f, bad[3].ratio[1] = 1.0f;
    bad[4].hue[1] = 0.6f;
    bad[5].grayscale_p = 1.5f;
    bad[6].size = 0;
    bad[7].solarize_threshold = -0.1f;
    int rejected = 0;
    for (int k = 0; k < 8; k++) rejected += view_config_check(&bad[k], 3, 28, 28) != NULL;
    view_config_simclr(&c, 12, 1.0f);
    rejected += view_config_check(&c, 2, 28, 28) != NULL; // 2 channels
    test_check("views config check", rejected == 9,
               "%d of 9 bad configs rejected (even or too large kernel, scale 0, ratio min > max, hue > 0.5, p > 1, "
               "size 0, threshold < 0, 2 channels)", rejected);
}

int main(void) {
    test_presets();
    test_crop_draws();
    test_param_draws();
    test_independence();
    test_determinism();
    test_oracle();
    return test_exit_code();
}
