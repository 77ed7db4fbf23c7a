// tests/test_resize.c — checks of bicubic resizing: the weight matrices (core/resize.c), the
// resize2d op pair (core/cpu/resize_cpu.c) against finite differences, a double-precision
// reference and its own transpose, PyTorch's F.interpolate (tests/resize_oracle.py, run with
// Debian's /usr/bin/python3), multi-resolution batches and the UniViT resolution draw
// (datasets/resize_batch.c). One PASS/FAIL/SKIP line per check; runs in about a second.
#include "testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/resize.h"
#include "../core/rng.h"
#include "../core/tensorfile.h"
#include "../datasets/dataset.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const ops_backend *ops = &ops_cpu;

static float *bicubic(int out, int in) {
    float *w = xmalloc((size_t)out * in * sizeof(float), "test weights");
    resize_bicubic_weights(w, out, in);
    return w;
}

// ---------------------------------------------------------------- weights

// Keys cubic (A = -0.75) in its textbook form, in double: an independent statement of the kernel.
static double keys(double x) {
    const double A = -0.75;
    x = fabs(x);
    if (x <= 1) return (A + 2) * x * x * x - (A + 3) * x * x + 1;
    if (x < 2) return A * x * x * x - 5 * A * x * x + 8 * A * x - 4 * A;
    return 0;
}

static void test_weights(void) {
    static const int ins[] = {1, 2, 3, 4, 5, 7, 10, 14, 16, 24, 28, 32, 40, 56};
    const int nin = (int)(sizeof ins / sizeof ins[0]);
    double sum_err = 0, flip_err = 0, keys_err = 0;
    int identity_ok = 1;
    for (int a = 0; a < nin; a++)
        for (int out = 1; out <= 64; out++) {
            const int in = ins[a];
            float *w = bicubic(out, in);
            for (int i = 0; i < out; i++) {
                double s = 0;
                for (int k = 0; k < in; k++) s += w[(size_t)i * in + k];
                sum_err = fmax(sum_err, fabs(s - 1));
                // symmetry: flipping input and output flips the matrix
                for (int k = 0; k < in; k++)
                    flip_err = fmax(flip_err, fabs((double)w[(size_t)i * in + k] -
                                                   w[(size_t)(out - 1 - i) * in + (in - 1 - k)]));
                // textbook: tap k gets Σ over unclamped taps m that clamp to k of keys(src - m),
                // src from torch's float scale in/out (its rounding breaks exact flip symmetry)
                double src = (i + 0.5) * (double)((float)in / (float)out) - 0.5;
                for (int k = 0; k < in; k++) {
                    double ref = 0;
                    for (int m = (int)floor(src) - 1; m <= (int)floor(src) + 2; m++) {
                        int mc = m < 0 ? 0 : m > in - 1 ? in - 1 : m;
                        if (mc == k) ref += keys(src - m);
                    }
                    keys_err = fmax(keys_err, fabs(ref - w[(size_t)i * in + k]));
                }
            }
            free(w);
        }
    for (int n = 1; n <= 64; n++) {
        float *w = bicubic(n, n);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < n; k++) identity_ok &= w[(size_t)i * n + k] == (i == k ? 1.0f : 0.0f);
        free(w);
    }
    // float rounding of the cubics (whose terms, up to 6, cancel to ~0.1) leaves ~1e-6
    test_check("bicubic weights rows sum to 1", sum_err <= 2e-6,
               "in in {1..56}, out 1..64: max |row sum - 1| %.3g (tol 2e-6)", sum_err);
    test_check("bicubic weights identity", identity_ok, "out == in for 1..64: exactly the identity matrix");
    // torch's scale in/out is a float, so mirrored outputs' source coordinates miss mirroring
    // each other by up to in·2^-24 (3.3e-6 at in = 56): symmetric to 5e-6, not exactly.
    test_check("bicubic weights flip symmetry", flip_err <= 5e-6,
               "max |w[i, k] - w[out-1-i, in-1-k]| %.3g (tol 5e-6: float scale)", flip_err);
    test_check("bicubic weights match Keys formula", keys_err <= 1e-6,
               "double-precision Keys (A = -0.75), unclamped source, clamped taps: max |err| %.3g (tol 1e-6)",
               keys_err);
    // Exact 2x upsampling of 4 pixels, output 1: source 0.25, taps -1..2 at distances 1.25, 0.25,
    // 0.75, 1.75 (tap -1 clamps into pixel 0). Known Keys values: -0.10546875, 0.87890625,
    // 0.26171875, -0.03515625.
    float w[8 * 4];
    resize_bicubic_weights(w, 8, 4);
    const double want[4] = {-0.10546875 + 0.87890625, 0.26171875, -0.03515625, 0};
    double known_err = 0;
    for (int k = 0; k < 4; k++) known_err = fmax(known_err, fabs(w[4 + k] - want[k]));
    test_check("bicubic weights known values 4->8", known_err <= 1e-7, "row 1 max |err| %.3g", known_err);
}

// ---------------------------------------------------------------- resize2d op

typedef struct {
    int P, H, W, OH, OW, C;
    float *in, *out, *wy, *wx, *dout;
} rz_ctx;

static size_t in_n(const rz_ctx *c) { return (size_t)c->P * c->H * c->W * c->C; }
static size_t out_n(const rz_ctx *c) { return (size_t)c->P * c->OH * c->OW * c->C; }

static rz_ctx rz_make(int P, int H, int W, int OH, int OW, int C, int random_wx, unsigned tag) {
    rz_ctx c = {P, H, W, OH, OW, C, NULL, NULL, NULL, NULL, NULL};
    c.in = test_rnd(in_n(&c), -1, 1, tag);
    c.out = test_zeros(out_n(&c));
    c.dout = test_rnd(out_n(&c), -1, 1, tag + 1);
    c.wy = bicubic(OH, H);
    c.wx = random_wx ? test_rnd((size_t)OW * W, -1, 1, tag + 2) : bicubic(OW, W);
    return c;
}
static void rz_free(rz_ctx *c) { free(c->in); free(c->out); free(c->wy); free(c->wx); free(c->dout); }

static double rz_loss(void *p) {
    rz_ctx *c = p;
    ops->resize2d_forward(c->out, c->in, c->wy, c->wx, c->P, c->H, c->W, c->OH, c->OW, c->C);
    return gradcheck_dot(c->out, c->dout, out_n(c));
}

// out (P, OH, OW, C) = Σ_y Σ_x wy[i, y] wx[j, x] in[p, y, x, c] in double, straight from the definition.
static void ref_forward(double *out, const rz_ctx *c) {
    for (int p = 0; p < c->P; p++)
        for (int i = 0; i < c->OH; i++)
            for (int j = 0; j < c->OW; j++)
                for (int ch = 0; ch < c->C; ch++) {
                    double s = 0;
                    for (int y = 0; y < c->H; y++)
                        for (int x = 0; x < c->W; x++)
                            s += (double)c->wy[i * c->H + y] * c->wx[j * c->W + x] *
                                 c->in[(((size_t)p * c->H + y) * c->W + x) * c->C + ch];
                    out[(((size_t)p * c->OH + i) * c->OW + j) * c->C + ch] = s;
                }
}
// din (P, H, W, C) = Σ_i Σ_j wy[i, y] wx[j, x] dout[p, i, j, c] in double: the explicit transpose.
static void ref_backward(double *din, const rz_ctx *c) {
    for (int p = 0; p < c->P; p++)
        for (int y = 0; y < c->H; y++)
            for (int x = 0; x < c->W; x++)
                for (int ch = 0; ch < c->C; ch++) {
                    double s = 0;
                    for (int i = 0; i < c->OH; i++)
                        for (int j = 0; j < c->OW; j++)
                            s += (double)c->wy[i * c->H + y] * c->wx[j * c->W + x] *
                                 c->dout[(((size_t)p * c->OH + i) * c->OW + j) * c->C + ch];
                    din[(((size_t)p * c->H + y) * c->W + x) * c->C + ch] = s;
                }
}
static double max_err_vs(const float *a, const double *ref, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - ref[i]));
    return m;
}
static float *transpose(const float *w, int rows, int cols) {
    float *t = xmalloc((size_t)rows * cols * sizeof(float), "test transpose");
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < cols; k++) t[(size_t)k * rows + r] = w[(size_t)r * cols + k];
    return t;
}

static void rz_case(const char *label, int P, int H, int W, int OH, int OW, int C, int random_wx, unsigned tag) {
    rz_ctx c = rz_make(P, H, W, OH, OW, C, random_wx, tag);
    char name[160];
    size_t ni = in_n(&c), no = out_n(&c);
    float *din = test_zeros(ni);
    ops->resize2d_backward(din, c.dout, c.wy, c.wx, P, H, W, OH, OW, C);
    snprintf(name, sizeof name, "resize2d %s input", label);
    gradcheck(name, &c, rz_loss, c.in, din, ni, GRADCHECK_DEFAULT);

    double *ref = xmalloc((ni > no ? ni : no) * sizeof(double), "test reference");
    rz_loss(&c);
    ref_forward(ref, &c);
    double ferr = max_err_vs(c.out, ref, no);
    snprintf(name, sizeof name, "resize2d %s forward vs double reference", label);
    test_check(name, ferr <= 1e-5, "max |err| %.3g (tol 1e-5)", ferr);

    ref_backward(ref, &c);
    double berr = max_err_vs(din, ref, ni);
    // The backward pass is the forward pass with the transposed matrices: bitwise.
    float *wyt = transpose(c.wy, OH, H), *wxt = transpose(c.wx, OW, W), *tin = test_zeros(ni);
    ops->resize2d_forward(tin, c.dout, wyt, wxt, P, OH, OW, H, W, C);
    int same = memcmp(tin, din, ni * sizeof(float)) == 0;
    snprintf(name, sizeof name, "resize2d %s backward is the explicit transpose", label);
    test_check(name, berr <= 1e-5 && same,
               "vs double Σ_i Σ_j wy[i,y] wx[j,x] dout: max |err| %.3g (tol 1e-5); forward with wyᵀ, wxᵀ "
               "bitwise equal: %s", berr, same ? "yes" : "no");

    float *din1 = xmalloc(ni * sizeof(float), "test copy");
    memcpy(din1, din, ni * sizeof(float));
    ops->resize2d_backward(din, c.dout, c.wy, c.wx, P, H, W, OH, OW, C);
    double acc_err = 0;
    for (size_t k = 0; k < ni; k++) acc_err = fmax(acc_err, fabs(din[k] - 2.0 * din1[k]));
    snprintf(name, sizeof name, "resize2d %s backward accumulates", label);
    test_check(name, acc_err <= 1e-6, "two passes vs twice one pass: max |diff| %.3g", acc_err);

    free(din); free(din1); free(ref); free(wyt); free(wxt); free(tin);
    rz_free(&c);
}

// Identity weights copy exactly; C > 1 gives per-channel C = 1 results bitwise, also when the
// row is wider than the kernel's tile (W·C > 4096 floats, C > 4096); thread-count independence.
static void test_resize_exact(void) {
    rz_ctx c = rz_make(2, 6, 5, 6, 5, 3, 0, 40);
    rz_loss(&c);
    test_check("resize2d identity weights copy exactly", memcmp(c.in, c.out, in_n(&c) * sizeof(float)) == 0,
               "6x5 -> 6x5 with bicubic (identity) weights, C=3");
    rz_free(&c);

    static const int shapes[][6] = {{2, 7, 9, 12, 5, 3}, {1, 10, 10, 14, 7, 600}, {1, 4, 3, 6, 5, 5000}};
    int all_same = 1;
    for (int s = 0; s < 3; s++) {
        const int *d = shapes[s];
        rz_ctx w = rz_make(d[0], d[1], d[2], d[3], d[4], d[5], 0, 50 + 3 * s);
        rz_loss(&w);
        const int P = w.P, H = w.H, W = w.W, OH = w.OH, OW = w.OW, C = w.C;
        float *pin = xmalloc((size_t)P * H * W * sizeof(float), "test plane");
        float *pout = xmalloc((size_t)P * OH * OW * sizeof(float), "test plane");
        for (int ch = 0; ch < C; ch += (C > 16 ? 97 : 1)) {
            for (size_t k = 0; k < (size_t)P * H * W; k++) pin[k] = w.in[k * C + ch];
            ops->resize2d_forward(pout, pin, w.wy, w.wx, P, H, W, OH, OW, 1);
            for (size_t k = 0; k < (size_t)P * OH * OW; k++) all_same &= pout[k] == w.out[k * C + ch];
        }
        free(pin); free(pout);
        rz_free(&w);
    }
    test_check("resize2d channels last equals per-channel", all_same,
               "C = 3, 600 (W·C > tile), 5000 (C > tile): every checked channel bitwise equal to its C = 1 resize");

    int saved = posbench_threads(), ok = 1;
    for (int s = 0; s < 3; s++) {
        const int *d = shapes[s];
        rz_ctx t = rz_make(d[0], d[1], d[2], d[3], d[4], d[5], s == 0, 60 + 3 * s);
        size_t ni = in_n(&t), no = out_n(&t);
        float *o2 = test_zeros(no), *g1 = test_zeros(ni), *g2 = test_zeros(ni);
        posbench_set_threads(1);
        ops->resize2d_forward(t.out, t.in, t.wy, t.wx, t.P, t.H, t.W, t.OH, t.OW, t.C);
        ops->resize2d_backward(g1, t.dout, t.wy, t.wx, t.P, t.H, t.W, t.OH, t.OW, t.C);
        posbench_set_threads(2);
        ops->resize2d_forward(o2, t.in, t.wy, t.wx, t.P, t.H, t.W, t.OH, t.OW, t.C);
        ops->resize2d_backward(g2, t.dout, t.wy, t.wx, t.P, t.H, t.W, t.OH, t.OW, t.C);
        ok &= memcmp(t.out, o2, no * sizeof(float)) == 0 && memcmp(g1, g2, ni * sizeof(float)) == 0;
        free(o2); free(g1); free(g2);
        rz_free(&t);
    }
    posbench_set_threads(saved);
    test_check("resize2d thread independence", ok, "forward and backward bitwise equal with 1 and 2 OpenMP threads");
}

// ---------------------------------------------------------------- torch oracle

static void oracle_add(tensorfile *tf, const char *label, const rz_ctx *c) {
    char name[96];
    int din[4] = {c->P, c->H, c->W, c->C}, dout[4] = {c->P, c->OH, c->OW, c->C};
    int dwy[2] = {c->OH, c->H}, dwx[2] = {c->OW, c->W};
    snprintf(name, sizeof name, "resize.%s.in", label);
    tf_add(tf, name, TF_F32, 4, din, c->in);
    snprintf(name, sizeof name, "resize.%s.out", label);
    tf_add(tf, name, TF_F32, 4, dout, c->out);
    snprintf(name, sizeof name, "resize.%s.wy", label);
    tf_add(tf, name, TF_F32, 2, dwy, c->wy);
    snprintf(name, sizeof name, "resize.%s.wx", label);
    tf_add(tf, name, TF_F32, 2, dwx, c->wx);
}

// Runs the oracle on path; its PASS/FAIL/SKIP lines go to our stdout unless quiet (then they
// are only counted). Returns the exit status (-1 if it could not run). Without torch the
// oracle prints only SKIP lines and exits 0.
static int run_oracle(const char *path, int quiet, int *fails, int *skips) {
    char cmd[4400], line[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/resize_oracle.py '%s'", path);
    fflush(stdout);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    *fails = *skips = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "FAIL ", 5) == 0) (*fails)++;
        if (strncmp(line, "SKIP ", 5) == 0) (*skips)++;
        if (quiet) continue;
        if (strncmp(line, "FAIL ", 5) == 0) { // re-reported, so that it counts in our exit status
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

// A small synthetic square dataset (pixels never 0), like test_datasets.c's.
static dataset synthetic(int n, int C, int S) {
    dataset ds;
    memset(&ds, 0, sizeof ds);
    snprintf(ds.name, sizeof ds.name, "synthetic");
    ds.n = n, ds.channels = C, ds.height = S, ds.width = S, ds.num_classes = 10;
    size_t row = (size_t)C * S * S;
    ds.pixels = xmalloc((size_t)n * row, "test pixels");
    ds.labels = xmalloc((size_t)n * sizeof *ds.labels, "test labels");
    rng_stream s = rng_stream_make(9, RNG_TEST, 0, 0, 2);
    for (size_t i = 0; i < (size_t)n * row; i++) ds.pixels[i] = (uint8_t)(1 + rng_below(&s, 255));
    for (int i = 0; i < n; i++) ds.labels[i] = (int32_t)(i % 10);
    const float means[3] = {0.4914f, 0.4822f, 0.4465f}, stds[3] = {0.2470f, 0.2435f, 0.2616f};
    for (int c = 0; c < 3; c++) ds.mean[c] = means[c], ds.std[c] = stds[c];
    return ds;
}

static void test_oracle(void) {
    if (access("/usr/bin/python3", X_OK) != 0) {
        test_skip("oracle resize", "Debian's /usr/bin/python3 is not installed (make deps installs it with torch)");
        return;
    }
    char dir[] = "/tmp/posbench-resize-oracle.XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail("oracle resize", "mkdtemp failed");
        return;
    }
    // label, P, H, W, OH, OW, C: square pairs on a channels-last batch, a position-table-like
    // grid (P = 1, C = 8), images in NCHW as (B·C, H, W, 1), and a mixed up/down non-square one.
    static const struct { const char *label; int P, H, W, OH, OW, C; } cases[] = {
        {"28to14", 2, 28, 28, 14, 14, 3}, {"28to16", 2, 28, 28, 16, 16, 3}, {"28to40", 2, 28, 28, 40, 40, 3},
        {"28to56", 2, 28, 28, 56, 56, 3}, {"pos7to10", 1, 7, 7, 10, 10, 8}, {"32to24", 3, 32, 32, 24, 24, 1},
        {"images2x3x28to40x20", 6, 28, 28, 40, 20, 1},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    tensorfile tf, bad;
    tf_init(&tf);
    tf_init(&bad);
    for (int k = 0; k < ncases; k++) {
        rz_ctx c = rz_make(cases[k].P, cases[k].H, cases[k].W, cases[k].OH, cases[k].OW, cases[k].C, 0, 100 + 3 * k);
        rz_loss(&c);
        oracle_add(&tf, cases[k].label, &c);
        if (k == 0) { // negative control: one output value off by 1e-4, one weight by 1e-5
            c.out[out_n(&c) / 2] += 1e-4f;
            c.wy[c.H + 3] += 1e-5f;
            oracle_add(&bad, cases[k].label, &c);
        }
        rz_free(&c);
    }
    // Weight matrices of many size pairs: in in SWEEP_IN, out 1..64, concatenated.
    static const int sweep_in[] = {1, 2, 3, 5, 7, 14, 16, 28, 32, 56, 64};
    enum { NSWEEP_IN = sizeof sweep_in / sizeof sweep_in[0], SWEEP_OUT = 64 };
    int pairs[NSWEEP_IN * SWEEP_OUT * 2];
    size_t total = 0;
    for (int a = 0; a < NSWEEP_IN; a++)
        for (int o = 1; o <= SWEEP_OUT; o++) total += (size_t)o * sweep_in[a];
    float *sweep = xmalloc(total * sizeof(float), "test sweep"), *at = sweep;
    for (int a = 0, n = 0; a < NSWEEP_IN; a++)
        for (int o = 1; o <= SWEEP_OUT; o++, n++) {
            pairs[2 * n] = sweep_in[a], pairs[2 * n + 1] = o;
            resize_bicubic_weights(at, o, sweep_in[a]);
            at += (size_t)o * sweep_in[a];
        }
    int pdims[2] = {NSWEEP_IN * SWEEP_OUT, 2}, wdims[1] = {(int)total};
    tf_add(&tf, "sweep.pairs", TF_I32, 2, pdims, pairs);
    tf_add(&tf, "sweep.weights", TF_F32, 1, wdims, sweep);
    free(sweep);

    // A whole resized dataset batch (3 channels, 32 -> 24, augmented) against torch.
    dataset ds = synthetic(20, 3, 32);
    enum { B = 4, S = 32, OS = 24 };
    int idx[B] = {3, 17, 0, 9};
    int32_t lab[B];
    augment_config aug = {.crop_pad = 4, .hflip = 1};
    float *native = xmalloc((size_t)B * 3 * S * S * sizeof(float), "test batch");
    float *sized = xmalloc((size_t)B * 3 * OS * OS * sizeof(float), "test batch");
    float *scratch = xmalloc(dataset_batch_scratch_floats(&ds, B, OS) * sizeof(float), "test scratch");
    dataset_make_batch(&ds, idx, B, &aug, 7, 1, 2, native, lab);
    dataset_make_batch_sized(&ds, idx, B, &aug, 7, 1, 2, OS, sized, lab, scratch);
    rz_ctx bc = {B * 3, S, S, OS, OS, 1, native, sized, bicubic(OS, S), bicubic(OS, S), NULL};
    oracle_add(&tf, "batch3x32to24", &bc);
    free(bc.wy); free(bc.wx); free(native); free(sized); free(scratch);
    dataset_free(&ds);

    char path[200], badpath[200], err[512];
    snprintf(path, sizeof path, "%s/resize.tf", dir);
    snprintf(badpath, sizeof badpath, "%s/resize-perturbed.tf", dir);
    if (tf_write(&tf, path, err, sizeof err) != 0 || tf_write(&bad, badpath, err, sizeof err) != 0) {
        test_fail("oracle resize", "%s", err);
    } else {
        int fails = 0, skips = 0, rc = run_oracle(path, 0, &fails, &skips);
        if (rc != 0 && fails == 0) test_fail("oracle resize", "tests/resize_oracle.py exited with status %d", rc);
        if (rc == 0 && skips == 0) { // torch ran: the oracle must also reject wrong numbers
            rc = run_oracle(badpath, 1, &fails, &skips);
            test_check("oracle resize detects perturbed weights and output", rc == 1 && fails == 2,
                       "one weight off by 1e-5, one output by 1e-4: exit %d, %d FAIL line(s) (want 1, 2)", rc,
                       fails);
        }
    }
    tf_free(&tf);
    tf_free(&bad);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

// ---------------------------------------------------------------- sized batches

static void test_sized_batches(void) {
    enum { N = 30, B = 12, C = 3, S = 16 };
    dataset ds = synthetic(N, C, S);
    int idx[B];
    for (int b = 0; b < B; b++) idx[b] = (b * 7 + 2) % N;
    int32_t lab[B], lab2[B];
    augment_config aug = {.crop_pad = 2, .hflip = 1};
    const size_t nat = (size_t)B * C * S * S;
    float *x = xmalloc(nat * sizeof(float), "test batch"), *y = xmalloc(nat * sizeof(float), "test batch");

    dataset_make_batch(&ds, idx, B, &aug, 3, 2, 5, x, lab);
    dataset_make_batch_sized(&ds, idx, B, &aug, 3, 2, 5, S, y, lab2, NULL);
    test_check("sized batch at native size is dataset_make_batch",
               memcmp(x, y, nat * sizeof(float)) == 0 && memcmp(lab, lab2, sizeof lab) == 0,
               "out_size %d = native, augmented: bitwise equal, scratch NULL allowed", S);

    size_t want_up = nat + (size_t)27 * S, got_up = dataset_batch_scratch_floats(&ds, B, 27);
    size_t got_nat = dataset_batch_scratch_floats(&ds, B, S);
    test_check("sized batch scratch floats", got_up == want_up && got_nat == 0,
               "16 -> 27: %zu (want B·C·H·W + 27·16 = %zu); native: %zu (want 0)", got_up, want_up, got_nat);

    static const int outs[2] = {11, 27}; // down, up
    int saved = posbench_threads();
    for (int k = 0; k < 2; k++) {
        const int O = outs[k];
        const size_t no = (size_t)B * C * O * O;
        float *r = xmalloc(no * sizeof(float), "test batch"), *r2 = xmalloc(no * sizeof(float), "test batch");
        float *scratch = xmalloc(dataset_batch_scratch_floats(&ds, B, O) * sizeof(float), "test scratch");
        dataset_make_batch(&ds, idx, B, &aug, 3, 2, 5, x, lab);
        posbench_set_threads(1);
        dataset_make_batch_sized(&ds, idx, B, &aug, 3, 2, 5, O, r, lab2, scratch);
        // reference: the native batch resized plane by plane, in double
        float *w = bicubic(O, S);
        double err = 0;
        for (int p = 0; p < B * C; p++)
            for (int i = 0; i < O; i++)
                for (int j = 0; j < O; j++) {
                    double s = 0;
                    for (int yy = 0; yy < S; yy++)
                        for (int xx = 0; xx < S; xx++)
                            s += (double)w[i * S + yy] * w[j * S + xx] * x[((size_t)p * S + yy) * S + xx];
                    err = fmax(err, fabs(s - r[((size_t)p * O + i) * O + j]));
                }
        char name[96];
        snprintf(name, sizeof name, "sized batch %d->%d is the resized native batch", S, O);
        test_check(name, err <= 1e-5 && memcmp(lab, lab2, sizeof lab) == 0,
                   "vs double bicubic resize of dataset_make_batch's output: max |err| %.3g (tol 1e-5), labels equal",
                   err);
        posbench_set_threads(2);
        dataset_make_batch_sized(&ds, idx, B, &aug, 3, 2, 5, O, r2, lab2, scratch);
        snprintf(name, sizeof name, "sized batch %d->%d thread independence", S, O);
        test_check(name, memcmp(r, r2, no * sizeof(float)) == 0, "1 and 2 OpenMP threads: bitwise equal");
        posbench_set_threads(saved);
        free(w); free(r); free(r2); free(scratch);
    }
    free(x);
    free(y);
    dataset_free(&ds);

    // A non-square dataset is refused with a bad-input exit (in a child process).
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(99);
        dataset r = synthetic(2, 1, 8);
        r.width = 6; // 8 x 6 (fewer pixels than allocated: fine)
        float out[2 * 16];
        int i2[2] = {0, 1};
        int32_t l2[2];
        dataset_make_batch_sized(&r, i2, 2, NULL, 0, 0, 0, 4, out, l2, NULL);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    test_check("sized batch refuses non-square datasets", WIFEXITED(st) && WEXITSTATUS(st) == EXIT_BAD_INPUT,
               "8 x 6 dataset: exit status %d (want %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1, EXIT_BAD_INPUT);
}

// ---------------------------------------------------------------- resolution draw

static void test_draw_size(void) {
    static const int sizes[5] = {16, 24, 28, 32, 40};
    enum { EPOCHS = 4, STEPS = 2500 };
    long count[5] = {0};
    int only_listed = 1, contract = 1;
    for (int e = 0; e < EPOCHS; e++)
        for (int s = 0; s < STEPS; s++) {
            int v = resize_draw_size(sizes, 5, 11, (uint32_t)e, (uint32_t)s), k = -1;
            for (int j = 0; j < 5; j++)
                if (sizes[j] == v) k = j;
            if (k < 0) only_listed = 0;
            else count[k]++;
            rng_stream st = rng_stream_make(11, RNG_RESOLUTION, (uint32_t)e, (uint32_t)s, 0);
            contract &= v == sizes[rng_below(&st, 5)];
        }
    const double expect = EPOCHS * STEPS / 5.0;
    double chi2 = 0;
    int all_seen = 1;
    for (int j = 0; j < 5; j++) {
        chi2 += (count[j] - expect) * (count[j] - expect) / expect;
        all_seen &= count[j] > 0;
    }
    test_check("draw size only listed sizes, all seen", only_listed && all_seen,
               "%d draws: counts %ld %ld %ld %ld %ld", EPOCHS * STEPS, count[0], count[1], count[2], count[3], count[4]);
    // chi-square with 4 degrees of freedom: P(chi2 > 30) ~ 5e-6 for a uniform draw
    test_check("draw size roughly uniform", chi2 < 30, "chi-square %.2f (4 dof, bound 30)", chi2);
    test_check("draw size stream contract", contract,
               "sizes[rng_below(rng_stream_make(seed, RNG_RESOLUTION, epoch, step, 0), n)] for every draw");
    int same = 1, seed_differs = 0;
    for (int s = 0; s < 200; s++) {
        same &= resize_draw_size(sizes, 5, 11, 2, (uint32_t)s) == resize_draw_size(sizes, 5, 11, 2, (uint32_t)s);
        seed_differs += resize_draw_size(sizes, 5, 11, 2, (uint32_t)s) != resize_draw_size(sizes, 5, 12, 2, (uint32_t)s);
    }
    static const int one[1] = {28};
    int single = resize_draw_size(one, 1, 5, 0, 0) == 28;
    test_check("draw size deterministic", same && seed_differs > 0 && single,
               "same (seed, epoch, step) gives the same size; another seed changes %d of 200; a one-size list "
               "always gives it", seed_differs);
}

int main(void) {
    test_weights();
    rz_case("upsample 5x4->7x9 C=3 P=2", 2, 5, 4, 7, 9, 3, 0, 10);
    rz_case("downsample 9x8->4x5 C=2 P=3", 3, 9, 8, 4, 5, 2, 0, 20);
    rz_case("random wx 6x7->8x3 C=4 P=2", 2, 6, 7, 8, 3, 4, 1, 30);
    test_resize_exact();
    test_oracle();
    test_sized_batches();
    test_draw_size();
    return test_exit_code();
}
