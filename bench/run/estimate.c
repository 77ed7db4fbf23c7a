// bench/run/estimate.c — a run's cost from its config and the dataset registry (estimate.h).
#include "estimate.h"
#include "../../core/common.h"
#include "../../models/model.h"
#include "../../objectives/objective.h"
#include "../../objectives/linear_probe.h"
#include "../experiment/settings.h"
#include "../../datasets/registry.h"
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// The first n of `count` examples (n <= 0: all), as data.limit and the *_limit keys read.
static long first_n(long count, long n) { return n > 0 && n < count ? n : count; }

// Training rows of config c, as bench/train/budget.c counts them after loading (the labelled
// subset rounds per class there, here once: within a row per class); -1 when the registry
// does not know the training set's size before loading.
static long train_rows(const config *c, const dataset_shape *shape) {
    if (shape->train_n < 0) return -1;
    long rows = first_n(shape->train_n, cfg_int(c, "data.limit"));
    return (long)floor((double)rows * cfg_float(c, "data.labeled_fraction") + 0.5);
}

// The shape of c's dataset, or -1 with why.
static int shape_of(const config *c, dataset_shape *shape, char *why, size_t len) {
    const dataset_kind *data = dataset_find(cfg_str(c, "data.name"));
    if (!data) return snprintf(why, len, "data.name=%s is not a dataset", cfg_str(c, "data.name")), -1;
    dataset_options opt = dataset_options_from_config(c);
    *shape = data->shape(&opt); // the registry's shape before loading
    if (shape->side <= 0)
        return snprintf(why, len, "data.name=%s: the image size is read from its files", cfg_str(c, "data.name")), -1;
    return 0;
}

// Updates of a run of config c by its own train.steps or epochs; -1 with why when unknown.
static long own_updates(const config *c, char *why, size_t len) {
    long steps = cfg_int(c, "train.steps");
    if (steps > 0) return steps;
    dataset_shape shape;
    if (shape_of(c, &shape, why, len) != 0) return -1;
    long rows = train_rows(c, &shape);
    if (rows < 0)
        return snprintf(why, len, "data.name=%s without train.steps: its training-set size is known only once its files "
                        "are read", cfg_str(c, "data.name")), -1;
    return rows / cfg_int(c, "train.batch") * cfg_int(c, "train.epochs"); // the last partial batch is dropped
}

// Forward FLOPs of one image of side `size` through model v (full attention).
static double forward_at(const model_config *v, int size) {
    model_config at = *v;
    at.image_size = size;
    return model_forward_flops(&at);
}

int estimate_config(const config *c, long updates, run_estimate *out) {
    memset(out, 0, sizeof *out);
    dataset_shape shape;
    if (shape_of(c, &shape, out->why, sizeof out->why) != 0) return -1;
    if (updates <= 0 && (updates = own_updates(c, out->why, sizeof out->why)) < 0) return -1;
    model_config v = model_config_from_config(c, shape.channels, shape.side, shape.classes, shape.features);
    int size = shape.side; // the training size: data.resolution, else the dataset's (bench/train/train.c)
    if (!model_config_is_sequence(&v) && cfg_int(c, "data.resolution") > 0) size = (int)cfg_int(c, "data.resolution");
    if (v.patch < 1 || size % v.patch)
        return snprintf(out->why, sizeof out->why, "model.patch=%d does not divide the input size %d", v.patch, size), -1;
    v.image_size = size;
    int rows, cols;
    model_grid_at(&v, size, &rows, &cols);
    const objective_kind *kind = objective_find(cfg_str(c, "objective.name"));
    objective_settings os;
    objective_settings_from_config(c, &os);
    os.train_size = size;
    if (kind) kind->configure_model(&os, &v); // its head, and masked attention's key tokens
    int N = rows * cols, keys = v.request.context_tokens > 0 ? v.request.context_tokens : N + v.cls;
    long batch = cfg_int(c, "train.batch");
    // Per image: forward and backward (3 x forward) of each of its views (SimCLR, DINO: 2), plus
    // what else the objective computes (DINO's teacher and local crops); UniViT (data.resolutions):
    // the mean over its sizes, each batch drawn uniformly from them.
    int sizes[CFG_LIST_MAX], n_train = cfg_int_list(c, "data.resolutions", sizes, CFG_LIST_MAX);
    double forward = model_forward_flops_masked(&v, keys);
    if (n_train > 0) {
        forward = 0.0;
        for (int k = 0; k < n_train; k++) forward += forward_at(&v, sizes[k]) / n_train;
    }
    double per_image = 3.0 * forward * (kind && kind->batch_factor > 1 ? kind->batch_factor : 1) +
                       (kind && kind->train_extra_flops ? kind->train_extra_flops(&os, &v) : 0.0);
    out->updates = updates;
    out->rate_fraction = v.dim >= ESTIMATE_FULL_RATE_DIM ? 1.0 : (double)v.dim / ESTIMATE_FULL_RATE_DIM;
    out->train_flops = (double)updates * batch * per_image;
    // Evaluation: images through a forward pass, when the test set's size is known.
    long train_n = train_rows(c, &shape), every = cfg_int(c, "train.eval_every");
    long test_n = shape.test_n >= 0 ? first_n(shape.test_n, cfg_int(c, "data.test_limit")) : cfg_int(c, "data.test_limit");
    if (every <= 0) every = train_n >= batch ? train_n / batch : 0; // an epoch's steps
    if (test_n <= 0 || every <= 0 || train_n < 0) return 0;         // eval_known 0: not counted
    double images = (double)((updates + every - 1) / every) * test_n, val = (double)cfg_int(c, "eval.probe_val_images");
    if (cfg_bool(c, "eval.knn")) // at initialisation and trained: the bank, the validation and the test images
        images += 2.0 * (first_n(train_n, cfg_int(c, "eval.knn_train_limit")) + val +
                         first_n(test_n, cfg_int(c, "eval.knn_test_limit")));
    // The linear probe (objectives/linear_probe.h): per protocol (an objective with its own probe
    // view, GVP's causal mask, is probed both ways) a forward pass of the bank, the validation and
    // the test images; then per protocol, probed block and feature (mean-pooled, and cls when the
    // model has it) one fit per L2 strength on the fit part (4/5 of the bank) and the refit on the
    // whole bank, each row of a fit ESTIMATE_PROBE_FIT_ITERS times through the logits and the
    // gradient (4 d K FLOPs).
    if (cfg_bool(c, "eval.linear_probe")) {
        double bank = (double)first_n(train_n, cfg_int(c, "eval.probe_train_limit"));
        int layers = strcmp(cfg_str(c, "eval.probe_layers"), "all") == 0 ? v.depth : 1;
        int features = v.cls ? 2 : 1, protocols = kind && kind->probe_prepare ? 2 : 1;
        images += protocols * (bank + val + first_n(test_n, cfg_int(c, "eval.probe_test_limit")));
        double rows = LINEAR_PROBE_N_LAMBDAS * (bank - floor(bank / 5.0)) + bank;
        out->probe_flops = (double)protocols * layers * features * rows * ESTIMATE_PROBE_FIT_ITERS * 4.0 * v.dim * shape.classes;
    }
    out->eval_flops = images * model_forward_flops(&v);
    // At the end, the test images at each eval.resolutions size (with eval.tta_delta: at r - delta,
    // r and r + delta each, the training size among them).
    int n_eval = cfg_int_list(c, "eval.resolutions", sizes, CFG_LIST_MAX), delta = (int)cfg_int(c, "eval.tta_delta");
    if (delta > 0 && n_eval < CFG_LIST_MAX) sizes[n_eval++] = size;
    for (int k = 0; k < n_eval; k++)
        out->eval_flops += test_n * (delta > 0 ? forward_at(&v, sizes[k] - delta) + forward_at(&v, sizes[k]) + forward_at(&v, sizes[k] + delta)
                                                 : forward_at(&v, sizes[k]));
    out->probe_rate_fraction = (double)v.dim / (v.dim + ESTIMATE_PROBE_ROW_DIMS);
    out->eval_known = 1;
    return 0;
}

int estimate_run(const experiment *e, int i, run_estimate *out) {
    const exp_run *r = &e->runs[i];
    if (r->budget < 0) return estimate_config(&r->cfg, 0, out);
    long updates = 0; // a matched-budget run: as many updates as its chain's stages together
    for (int q = r->budget; q >= 0; q = e->runs[q].parent) {
        char why[160];
        long u = own_updates(&e->runs[q].cfg, why, sizeof why);
        if (u < 0) {
            memset(out, 0, sizeof *out);
            snprintf(out->why, sizeof out->why, "budget: matches stage %.63s, where %.159s", e->runs[q].stage, why);
            return -1;
        }
        updates += u;
    }
    if (updates <= 0) { // budget_setup refuses it when the run starts
        memset(out, 0, sizeof *out);
        snprintf(out->why, sizeof out->why, "budget: the chain of stage %s trains for 0 updates", e->runs[r->budget].stage);
        return -1;
    }
    return estimate_config(&r->cfg, updates, out);
}

double estimate_training_flops(const config *c) {
    run_estimate r;
    return estimate_config(c, 0, &r) == 0 ? r.train_flops : -1.0;
}

double estimate_rate_flops(const run_estimate *r, double flops) { return flops / r->rate_fraction; }

double estimate_probe_rate_flops(const run_estimate *r) { return r->probe_flops > 0.0 ? r->probe_flops / r->probe_rate_fraction : 0.0; }

estimate_seconds estimate_cpu_seconds(double train_flops, double eval_flops, double probe_flops, int runs, double sgemm) {
    return (estimate_seconds){train_flops / (ESTIMATE_EFFICIENCY * sgemm * 1e9), eval_flops / (ESTIMATE_EVAL_EFFICIENCY * sgemm * 1e9),
                              probe_flops / (ESTIMATE_PROBE_EFFICIENCY * sgemm * 1e9), runs * ESTIMATE_RUN_SETUP_S};
}

// One sgemm C (M, N) = A (M, K) · B (K, N): the median wall GFLOP/s of 7 calls, or with cpu set
// the best GFLOP per CPU second of the process (all its threads) of 15 (the calls least slowed
// by other programs sharing the core's caches); a first call warms up.
static double sgemm_rate(int M, int N, int K, int cpu) {
    enum { CALLS = 15 };
    int calls = cpu ? CALLS : 7;
    float *a = xmalloc_aligned((size_t)M * K * sizeof(float), "sgemm A");
    float *b = xmalloc_aligned((size_t)K * N * sizeof(float), "sgemm B");
    float *c = xmalloc_aligned((size_t)M * N * sizeof(float), "sgemm C");
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < (size_t)K * N; i++) b[i] = (float)(i % 5) * 0.1f;
    double t[CALLS];
    for (int r = 0; r <= calls; r++) {
        struct timespec c0, c1;
        double t0 = now_seconds();
        if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0) != 0) die_fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
        if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1) != 0) die_fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
        double wall = now_seconds() - t0, used = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        if (r > 0) t[r - 1] = cpu ? used : wall;
    }
    free(a);
    free(b);
    free(c);
    double best = t[0];
    for (int r = 1; r < calls; r++) best = t[r] < best ? t[r] : best;
    return 2.0 * M * N * K / (cpu ? best : median_double(t, calls)) / 1e9;
}

double estimate_sgemm_gflops(int M, int N, int K) { return sgemm_rate(M, N, K, 0); }

// Measured in a child process: the runner forks its runs afterwards, and an OpenMP thread
// pool started in the parent (OpenBLAS runs on it) is not usable in a forked child.
double estimate_sgemm_cpu_gflops(void) {
    int fds[2];
    if (pipe(fds) != 0) return NAN;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return NAN;
    }
    if (pid == 0) {
        close(fds[0]);
        posbench_set_threads(1); // one thread: no time spent waiting on a thread another program holds
        double g = sgemm_rate(1024, 1024, 1024, 1);
        ssize_t w = write(fds[1], &g, sizeof g);
        _exit(w == (ssize_t)sizeof g ? 0 : 1);
    }
    close(fds[1]);
    double g = NAN;
    if (read(fds[0], &g, sizeof g) != (ssize_t)sizeof g) g = NAN;
    close(fds[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) g = NAN;
    return g;
}
