// tests/testing.c — PASS/FAIL/SKIP reporting, test data, and the finite-difference checker.
#include "testing.h"
#include "../core/bf16.h"
#include "gradcheck.h"
#include "../core/rng.h"
#include "../core/common.h"
#include "../core/tensorfile.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int test_exit_code(void) {
    test_python_flush(); // checks queued and never run: run now (their dumps may be gone: then they fail)
    return g_failed ? 1 : 0;
}

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
    // torch found, not imported (an import costs 1.3 CPU seconds; the checks import it once, and
    // a torch that is found but cannot be imported fails them)
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec(\"torch\") is None)' 2>/dev/null") != 0) {
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
    test_python_flush(); // the queued checks read their dumps from dir
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

void test_tf_scalar(tensorfile *tf, const char *name, double v) {
    int one[1] = {1};
    tf_add(tf, name, TF_F64, 1, one, &v);
}

// The checks test_python_check queued, run together by test_python_flush.
typedef struct {
    char *script, *tag, *label, *path;
} python_check;
static python_check *g_checks = NULL;
static int g_check_count = 0, g_check_cap = 0;

static void free_check(python_check *c) { free(c->script), free(c->tag), free(c->label), free(c->path); }

void test_python_check(const char *dir, const char *script, const char *tag, const char *label, tensorfile *tf) {
    char path[4200], err[4400];
    snprintf(path, sizeof path, "%s/%s.tf", dir, label);
    if (tf_write(tf, path, err, sizeof err) != 0) {
        test_fail(tag, "%s: %s", label, err);
        return;
    }
    if (g_check_count == g_check_cap) {
        int cap = g_check_cap ? 2 * g_check_cap : 16;
        python_check *grown = realloc(g_checks, (size_t)cap * sizeof *grown);
        if (!grown) {
            test_fail(tag, "%s: out of memory queueing the check", label);
            return;
        }
        g_checks = grown, g_check_cap = cap;
    }
    python_check c = {strdup(script), strdup(tag), strdup(label), strdup(path)};
    if (!c.script || !c.tag || !c.label || !c.path) {
        free_check(&c);
        test_fail(tag, "%s: out of memory queueing the check", label);
        return;
    }
    g_checks[g_check_count++] = c;
}

static void free_checks(void) {
    for (int i = 0; i < g_check_count; i++) free_check(&g_checks[i]);
    free(g_checks);
    g_checks = NULL, g_check_count = g_check_cap = 0;
}

void test_python_flush(void) {
    if (g_check_count == 0) return;
    char list[] = "/tmp/posbench-pycheck.XXXXXX";
    int fd = mkstemp(list);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        for (int i = 0; i < g_check_count; i++) test_fail(g_checks[i].tag, "%s: cannot write the list of checks in /tmp", g_checks[i].label);
        free_checks();
        return;
    }
    for (int i = 0; i < g_check_count; i++)
        fprintf(f, "%s\t%s\t%s\t%s\n", g_checks[i].script, g_checks[i].tag, g_checks[i].label, g_checks[i].path);
    int write_failed = ferror(f);
    if (fclose(f) != 0) write_failed = 1;
    char status_path[sizeof list + 8], cmd[sizeof list * 2 + 100];
    snprintf(status_path, sizeof status_path, "%s.status", list);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/python_batch.py '%s' '%s'", list, status_path);
    fflush(stdout);
    int rc = write_failed ? -1 : system(cmd);
    // every check's status, as the batch wrote it; a check it never reached fails
    int *status = malloc((size_t)g_check_count * sizeof *status);
    if (status) {
        for (int i = 0; i < g_check_count; i++) status[i] = -1;
        FILE *sf = fopen(status_path, "r");
        int index, st;
        while (sf && fscanf(sf, "%d %d", &index, &st) == 2)
            if (index >= 0 && index < g_check_count) status[index] = st;
        if (sf) fclose(sf);
    }
    for (int i = 0; i < g_check_count; i++) {
        python_check *c = &g_checks[i];
        const char *label = c->label;
        int st = status ? status[i] : -1;
        if (st < 0)
            test_fail(c->tag, "%s: %s was not run (tests/python_batch.py exited with status %d%s)", label, c->script, rc,
                      write_failed ? "; the list of checks could not be written" : "");
        else if (st != 0)
            test_fail(c->tag, "%s: %s exited with status %d", label, c->script, st);
    }
    free(status);
    unlink(list);
    unlink(status_path);
    free_checks();
}

size_t test_bf16_differ(const uint16_t *a, const uint16_t *b, size_t n, double atol, double rtol, double *worst) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (atol < 0) {
            bad += a[i] != b[i];
            continue;
        }
        double x = bf16_to_float(a[i]), y = bf16_to_float(b[i]);
        double lim = atol + rtol * fabs(y) + ldexp(fabs(y), -7); // one bf16 step (8 significant bits)
        if (!(fabs(x - y) <= lim)) bad++, *worst = fmax(*worst, fabs(x - y) - lim);
    }
    return bad;
}
