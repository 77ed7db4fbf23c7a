// bench/run/estimate.c — training-cost estimate of a run from its config (see estimate.h).
#include "estimate.h"
#include "../../core/common.h"
#include "../../models/model.h"
#include "../../objectives/objective.h"
#include "../experiment/settings.h"
#include "../../datasets/registry.h"
#include <limits.h>
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

double estimate_training_flops(const config *c) {
    const dataset_kind *data = dataset_find(cfg_str(c, "data.name"));
    if (!data) return -1.0;
    dataset_options opt = dataset_options_from_config(c);
    dataset_shape shape = data->shape(&opt); // the registry's shape before loading
    if (shape.side <= 0) return -1.0;        // idx: known only from its files
    // A training-set size known only once the files are read (speech clips, a text file not
    // there yet): only a step budget can be counted.
    if (shape.train_n < 0 && cfg_int(c, "train.steps") <= 0) return -1.0;
    int train_n = shape.train_n < 0 ? INT_MAX : (int)shape.train_n, size = shape.side, channels = shape.channels,
        classes = shape.classes, features = shape.features;
    long limit = cfg_int(c, "data.limit");
    if (limit > 0 && limit < train_n) train_n = (int)limit;
    double images = floor(train_n * cfg_float(c, "data.labeled_fraction") + 0.5);
    long batch = cfg_int(c, "train.batch"), steps = (long)(images / batch) * cfg_int(c, "train.epochs");
    if (cfg_int(c, "train.steps") > 0) steps = cfg_int(c, "train.steps");
    model_config v = model_config_from_config(c, channels, size, classes, features);
    if (v.patch < 1 || size % v.patch) return -1.0;
    int rows, cols;
    model_grid_at(&v, size, &rows, &cols);
    const objective_kind *kind = objective_find(cfg_str(c, "objective.name"));
    objective_settings os;
    objective_settings_from_config(c, &os);
    if (kind) kind->configure_model(&os, &v); // its head, and masked attention's key tokens
    int N = rows * cols, keys = v.request.context_tokens > 0 ? v.request.context_tokens : N + v.cls;
    return (double)steps * batch * 3.0 * model_forward_flops_masked(&v, keys);
}

// GFLOP/s of C (M, N) = A (M, K) · B (K, N), median of a few calls.
double estimate_sgemm_gflops(int M, int N, int K) {
    float *a = xmalloc_aligned((size_t)M * K * sizeof(float), "sgemm A");
    float *b = xmalloc_aligned((size_t)K * N * sizeof(float), "sgemm B");
    float *c = xmalloc_aligned((size_t)M * N * sizeof(float), "sgemm C");
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < (size_t)K * N; i++) b[i] = (float)(i % 5) * 0.1f;
    double t[7];
    for (int r = 0; r < 8; r++) {
        double t0 = now_seconds();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
        if (r > 0) t[r - 1] = now_seconds() - t0; // first call warms up
    }
    free(a);
    free(b);
    free(c);
    return 2.0 * M * N * K / median_double(t, 7) / 1e9;
}

// Measured in a child process: the runner forks its runs afterwards, and an OpenMP thread
// pool started in the parent (OpenBLAS runs on it) is not usable in a forked child.
double estimate_gflops(void) {
    int fds[2];
    if (pipe(fds) != 0) return NAN;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return NAN;
    }
    if (pid == 0) {
        close(fds[0]);
        double g = estimate_sgemm_gflops(1024, 1024, 1024);
        ssize_t w = write(fds[1], &g, sizeof g);
        _exit(w == (ssize_t)sizeof g ? 0 : 1);
    }
    close(fds[1]);
    double g = NAN;
    if (read(fds[0], &g, sizeof g) != (ssize_t)sizeof g) g = NAN;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return ESTIMATE_EFFICIENCY * g;
}
