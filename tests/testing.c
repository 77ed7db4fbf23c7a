// tests/testing.c — PASS/FAIL/SKIP reporting, test data, and the finite-difference checker.
#include "testing.h"
#include "gradcheck.h"
#include "../core/rng.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_failed = 0;

static void report(const char *tag, const char *name, const char *fmt, va_list ap) {
    printf("%s %s", tag, name);
    if (fmt && fmt[0]) {
        printf(": ");
        vprintf(fmt, ap);
    }
    printf("\n");
    fflush(stdout);
}

void test_pass(const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report("PASS", name, fmt, ap);
    va_end(ap);
}

void test_fail(const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report("FAIL", name, fmt, ap);
    va_end(ap);
    g_failed++;
}

void test_skip(const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report("SKIP", name, fmt, ap);
    va_end(ap);
}

void test_check(const char *name, int ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(ok ? "PASS" : "FAIL", name, fmt, ap);
    va_end(ap);
    if (!ok) g_failed++;
}

int test_exit_code(void) { return g_failed ? 1 : 0; }

int test_child_stderr(void (*fn)(void *ctx), void *ctx, char *err, size_t len) {
    int fds[2];
    err[0] = '\0';
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn(ctx);
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    char sink[4096];
    for (;;) {
        ssize_t n = got < len - 1 ? read(fds[0], err + got, len - 1 - got) : read(fds[0], sink, sizeof sink);
        if (n <= 0) break;
        if (got < len - 1) got += (size_t)n;
    }
    err[got] = '\0';
    close(fds[0]);
    int status = 0;
    return waitpid(pid, &status, 0) == pid ? status : -1;
}

void test_fill_uniform(float *x, size_t n, float lo, float hi, unsigned tag) {
    rng_stream s = rng_stream_make(1234, RNG_TEST, 0, 0, tag);
    for (size_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * rng_uniform(&s);
}

float *test_rnd(size_t n, float lo, float hi, unsigned tag) {
    float *x = xmalloc(n * sizeof(float), "test tensor");
    test_fill_uniform(x, n, lo, hi, tag);
    return x;
}

float *test_zeros(size_t n) { return xcalloc(n, sizeof(float), "test tensor"); }

int test_torch_dir(const char *name, char *dir) {
    if (access("/usr/bin/python3", X_OK) != 0 || system("/usr/bin/python3 -c 'import torch' 2>/dev/null") != 0) {
        test_skip(name, "Debian's python3-torch is not installed (make deps installs it)");
        return 0;
    }
    if (!mkdtemp(dir)) {
        test_fail(name, "mkdtemp failed");
        return 0;
    }
    return 1;
}

double gradcheck_dot(const float *out, const float *w, size_t n) {
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += (double)out[i] * (double)w[i];
    return sum;
}

int gradcheck(const char *name, void *ctx, gradcheck_loss_fn loss, float *x, const float *grad,
              size_t n, gradcheck_tol tol) {
    size_t checks = n < tol.max_checks ? n : tol.max_checks;
    size_t stride = checks ? n / checks : 1;
    double worst_excess = -1.0, worst_abs = 0.0;
    size_t worst_at = 0, failures = 0;
    for (size_t c = 0; c < checks; c++) {
        size_t i = c * stride + (c * 7919) % (stride ? stride : 1); // spread, not aligned
        if (i >= n) i = n - 1;
        float saved = x[i];
        x[i] = saved + (float)tol.eps;
        double up = loss(ctx);
        x[i] = saved - (float)tol.eps;
        double down = loss(ctx);
        x[i] = saved;
        double h = ((double)(saved + (float)tol.eps) - (double)(saved - (float)tol.eps));
        double numeric = (up - down) / h;
        double analytic = grad[i];
        double err = fabs(numeric - analytic);
        double allowed = tol.atol + tol.rtol * fmax(fabs(numeric), fabs(analytic));
        if (err > allowed) failures++;
        if (err - allowed > worst_excess) {
            worst_excess = err - allowed;
            worst_abs = err;
            worst_at = i;
        }
    }
    char label[256];
    snprintf(label, sizeof label, "gradcheck %s", name);
    int ok = failures == 0 && checks > 0;
    test_check(label, ok, "%zu/%zu entries outside tol (eps %.0e atol %.0e rtol %.0e); worst |err| %.3e at %zu",
               failures, checks, tol.eps, tol.atol, tol.rtol, worst_abs, worst_at);
    return ok;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double test_ks_uniform(double *v, size_t n, double lo, double hi) {
    qsort(v, n, sizeof(double), cmp_double);
    double D = 0;
    for (size_t i = 0; i < n; i++) {
        double F = (v[i] - lo) / (hi - lo);
        F = F < 0 ? 0 : (F > 1 ? 1 : F);
        D = fmax(D, fmax(fabs((double)(i + 1) / n - F), fabs(F - (double)i / n)));
    }
    return D;
}

void test_torch_dir_remove(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

void test_tf_scalar(tensorfile *tf, const char *name, double v) {
    int one[1] = {1};
    tf_add(tf, name, TF_F64, 1, one, &v);
}

void test_python_check(const char *dir, const char *script, const char *tag, const char *label, tensorfile *tf) {
    char path[4200], err[4400], cmd[16000];
    snprintf(path, sizeof path, "%s/%s.tf", dir, label);
    if (tf_write(tf, path, err, sizeof err) != 0) {
        test_fail(tag, "%s: %s", label, err);
        return;
    }
    fflush(stdout);
    // The script's lines go through a file, so its exit status is its own, not sed's.
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s '%s' > '%s.out' 2>&1; rc=$?; sed 's/^\\(PASS\\|FAIL\\) %s/\\1 %s[%s]/' '%s.out'; exit $rc",
             script, path, path, tag, tag, label, path);
    int rc = system(cmd);
    if (rc != 0) test_fail(tag, "%s: %s exited with status %d", label, script, rc);
}
