// tests/parity/parity.c — the harness's engine (parity.h): a case's run on one backend (its
// inputs, outputs and allocations), the comparison of a backend's outputs with the CPU's, the
// bitwise repeat, the CUDA switches a case asks for, and the coverage count.
#include "parity.h"
#include "../testing.h"
#include "../../core/common.h"
#include "../../core/device.h"
#include "../../core/ops_cuda.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ALLOCS = 128, MAX_OUTS = 32 };

typedef struct {
    char name[48];
    double *v; // host copy as doubles (floats, ints and bf16 widen exactly)
    size_t n;
    parity_tol tol;
} parity_output;

struct parity_run {
    const ops_backend *ops;
    unsigned tag;                         // the next input's random stream
    void *dev[MAX_ALLOCS];                // backend memory to free
    const float *host_of[MAX_ALLOCS];     // pr_in's host values, per dev (NULL if none)
    const void *dev_user[MAX_ALLOCS];     // the pointer handed out (dev, or past an offset)
    int ndev;
    void *host[MAX_ALLOCS];
    int nhost;
    parity_output out[MAX_OUTS];
    int nout;
    int nrequired;               // facts stated (pr_require)
    char failed_requirement[200];
    char skipped[200];           // pr_skip's reason
};

parity_tol parity_gemm_tol(double K) { return (parity_tol){2e-7 * K > 1e-5 ? 2e-7 * K : 1e-5, 1e-4, 0}; }
parity_tol parity_sum_tol(double N) { return (parity_tol){5e-7 * N > 1e-5 ? 5e-7 * N : 1e-5, 1e-4, 0}; }

const ops_backend *pr_ops(parity_run *r) { return r->ops; }

void *pr_host(parity_run *r, size_t bytes) {
    if (r->nhost == MAX_ALLOCS) die_fail("parity: a case holds more than %d host arrays", MAX_ALLOCS);
    return r->host[r->nhost++] = xcalloc(bytes + 1, 1, "parity host array");
}

static void *track(parity_run *r, void *dev, const float *host) {
    if (r->ndev == MAX_ALLOCS) die_fail("parity: a case holds more than %d backend arrays", MAX_ALLOCS);
    r->host_of[r->ndev] = host;
    r->dev_user[r->ndev] = dev;
    return r->dev[r->ndev++] = dev;
}

void *pr_buf(parity_run *r, size_t bytes) {
    return track(r, r->ops->alloc(bytes ? bytes : 1, "parity array"), NULL);
}

float *pr_in_host(parity_run *r, const float *host, size_t n) {
    float *d = pr_buf(r, n * sizeof(float));
    r->ops->upload(d, host, n * sizeof(float));
    r->host_of[r->ndev - 1] = host;
    return d;
}

float *pr_in(parity_run *r, size_t n, float lo, float hi) { return pr_in_at(r, n, lo, hi, 0); }

float *pr_buf_at(parity_run *r, size_t n, int off) {
    float *d = (float *)pr_buf(r, (n + (size_t)off) * sizeof(float)) + off;
    return d;
}

float *pr_in_at(parity_run *r, size_t n, float lo, float hi, int off) {
    float *h = pr_host(r, n * sizeof(float));
    test_fill_uniform(h, n, lo, hi, 7000 + r->tag++);
    float *d = pr_buf_at(r, n, off);
    r->ops->upload(d, h, n * sizeof(float));
    r->host_of[r->ndev - 1] = h;
    r->dev_user[r->ndev - 1] = d;
    return d;
}

int *pr_in_ints(parity_run *r, const int *host, size_t n) {
    int *d = pr_buf(r, n * sizeof(int));
    r->ops->upload(d, host, n * sizeof(int));
    return d;
}

bfloat16 *pr_in_bf16(parity_run *r, const bfloat16 *host, size_t n) {
    bfloat16 *d = pr_buf(r, n * sizeof(bfloat16));
    r->ops->upload(d, host, n * sizeof(bfloat16));
    return d;
}

const float *pr_host_of(parity_run *r, const float *dev) {
    for (int i = 0; i < r->ndev; i++)
        if (r->dev_user[i] == dev) return r->host_of[i];
    return NULL;
}

static double *new_output(parity_run *r, const char *name, size_t n, parity_tol tol) {
    if (r->nout == MAX_OUTS) die_fail("parity: a case names more than %d outputs", MAX_OUTS);
    parity_output *o = &r->out[r->nout++];
    snprintf(o->name, sizeof o->name, "%s", name);
    o->n = n;
    o->tol = tol;
    return o->v = xcalloc(n + 1, sizeof(double), "parity output");
}

void pr_out(parity_run *r, const char *name, const float *dev, size_t n, parity_tol tol) {
    double *v = new_output(r, name, n, tol);
    float *h = xmalloc(n * sizeof(float) + 1, "parity download");
    r->ops->download(h, dev, n * sizeof(float));
    for (size_t i = 0; i < n; i++) v[i] = h[i];
    free(h);
}

void pr_out_ints(parity_run *r, const char *name, const int *dev, size_t n) {
    double *v = new_output(r, name, n, PARITY_BITWISE);
    int *h = xmalloc(n * sizeof(int) + 1, "parity download");
    r->ops->download(h, dev, n * sizeof(int));
    for (size_t i = 0; i < n; i++) v[i] = h[i];
    free(h);
}

void pr_out_bf16(parity_run *r, const char *name, const bfloat16 *dev, size_t n, parity_tol tol) {
    double *v = new_output(r, name, n, tol);
    bfloat16 *h = xmalloc(n * sizeof(bfloat16) + 1, "parity download");
    r->ops->download(h, dev, n * sizeof(bfloat16));
    for (size_t i = 0; i < n; i++) v[i] = bf16_to_float(h[i]);
    free(h);
}

void pr_out_value(parity_run *r, const char *name, double value, parity_tol tol) {
    new_output(r, name, 1, tol)[0] = value;
}

void pr_out_host(parity_run *r, const char *name, const float *host, size_t n, parity_tol tol) {
    double *v = new_output(r, name, n, tol);
    for (size_t i = 0; i < n; i++) v[i] = host[i];
}

void pr_out_host_bf16(parity_run *r, const char *name, const bfloat16 *host, size_t n, parity_tol tol) {
    double *v = new_output(r, name, n, tol);
    for (size_t i = 0; i < n; i++) v[i] = bf16_to_float(host[i]);
}

void pr_require(parity_run *r, const char *what, int ok) {
    r->nrequired++;
    if (!ok && !r->failed_requirement[0]) snprintf(r->failed_requirement, sizeof r->failed_requirement, "%s", what);
}

static void compare(const parity_output *ref, const parity_output *got, parity_tol tol, double *max_abs, size_t *bad,
                    size_t *worst);

void pr_require_near(parity_run *r, const char *what, const float *a, const float *b, size_t n, parity_tol tol) {
    parity_output oa = {.n = n}, ob = {.n = n};
    oa.v = xcalloc(n + 1, sizeof(double), "parity fact");
    ob.v = xcalloc(n + 1, sizeof(double), "parity fact");
    float *h = xmalloc(n * sizeof(float) + 1, "parity fact download");
    r->ops->download(h, a, n * sizeof(float));
    for (size_t i = 0; i < n; i++) oa.v[i] = h[i];
    r->ops->download(h, b, n * sizeof(float));
    for (size_t i = 0; i < n; i++) ob.v[i] = h[i];
    double max_abs;
    size_t bad, worst;
    compare(&oa, &ob, tol, &max_abs, &bad, &worst);
    char text[200];
    snprintf(text, sizeof text, "%s (%zu of %zu elements outside %s; max |d| %.3g)", what, bad, n,
             tol.atol < 0 ? "bit for bit" : "the tolerance", max_abs);
    pr_require(r, text, bad == 0);
    free(h);
    free(oa.v);
    free(ob.v);
}

void pr_skip(parity_run *r, const char *why) {
    if (!r->skipped[0]) snprintf(r->skipped, sizeof r->skipped, "%s", why);
}

static void run_end(parity_run *r) {
    for (int i = 0; i < r->ndev; i++) r->ops->free(r->dev[i]);
    for (int i = 0; i < r->nhost; i++) free(r->host[i]);
    r->ndev = r->nhost = 0;
}

static void run_free_outputs(parity_run *r) {
    for (int i = 0; i < r->nout; i++) free(r->out[i].v);
    r->nout = 0;
}

// One run of case c on ops (its precision set first, reset to fp32 after; cpu_fp32: fp32 unless
// on cuda); outputs kept in r.
static void run_case(parity_run *r, const parity_case *c, const ops_backend *ops, int is_cuda) {
    memset(r, 0, sizeof *r);
    r->ops = ops;
    ops->set_matmul_precision(c->cpu_fp32 && !is_cuda ? MATMUL_FP32 : c->precision);
    c->run(r, c->p);
    ops->synchronize();
    ops->set_matmul_precision(MATMUL_FP32);
    run_end(r);
}

// The largest |a - b| and the elements outside tol (bitwise: that differ in bits; NaN is outside
// any tolerance unless both sides hold the same bits), and the index of the worst of them.
static void compare(const parity_output *ref, const parity_output *got, parity_tol tol, double *max_abs, size_t *bad,
                    size_t *worst) {
    *max_abs = 0;
    *bad = 0;
    *worst = 0;
    double worst_excess = -INFINITY;
    for (size_t i = 0; i < ref->n; i++) {
        double a = ref->v[i], b = got->v[i], d = fabs(a - b);
        if (memcmp(&a, &b, sizeof a) == 0) continue;
        double excess = tol.atol < 0 ? INFINITY : d - (tol.atol + tol.rtol * fabs(a));
        if (isnan(excess)) excess = INFINITY;
        if (excess > 0) (*bad)++;
        if (isnan(d) || d > *max_abs) *max_abs = isnan(d) ? INFINITY : d;
        if (excess > worst_excess) {
            worst_excess = excess;
            *worst = i;
        }
    }
}

static void report(const char *what, const parity_case *c, const parity_output *ref, const parity_output *got,
                   parity_tol tol) {
    char name[720];
    snprintf(name, sizeof name, "parity %s %s [%s] %s", what, c->ops, c->label, ref->name);
    if (!got || got->n != ref->n) {
        test_fail(name, "the output is missing or has another length (%zu vs %zu)", got ? got->n : 0, ref->n);
        return;
    }
    double max_abs;
    size_t bad, worst;
    compare(ref, got, tol, &max_abs, &bad, &worst);
    if (tol.atol < 0)
        test_check(name, bad == 0, "bitwise: %zu of %zu elements differ; max |d| %.3g", bad, ref->n, max_abs);
    else
        test_check(name, bad == 0, "max |d| %.3g, tolerance %.1e + %.1e|ref|: %zu of %zu outside; worst [%zu] got %.9g ref %.9g",
                   max_abs, tol.atol, tol.rtol, bad, ref->n, worst, got->v[worst], ref->v[worst]);
}

// Sets the case's CUDA switches (KEY=value, space-separated) through the environment, as a run
// would; restore puts back what was in force. POSBENCH_CUDNN_LIB is read by the cuDNN route when
// it loads, the others by device_cuda_switches_from_env.
enum { N_SWITCH_VARS = 4 };
static const char *const SWITCH_VARS[N_SWITCH_VARS] = {"POSBENCH_LINEAR", "POSBENCH_KERNELS", "POSBENCH_ATTENTION",
                                                       "POSBENCH_CUDNN_LIB"};
typedef struct {
    int linear, kernels, attention;
    char saved[N_SWITCH_VARS][256];
    int had[N_SWITCH_VARS];
} cuda_switches;

static void switches_apply(cuda_switches *s, const char *spec) {
    s->linear = cuda_linear_route();
    s->kernels = cuda_kernels();
    s->attention = cuda_attention_route();
    for (int i = 0; i < N_SWITCH_VARS; i++) {
        const char *v = getenv(SWITCH_VARS[i]);
        s->had[i] = v != NULL;
        snprintf(s->saved[i], sizeof s->saved[i], "%s", v ? v : "");
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) die_fail("parity: case switch '%s' is not KEY=value", tok);
        *eq = 0;
        int known = 0;
        for (int i = 0; i < N_SWITCH_VARS; i++) known |= !strcmp(tok, SWITCH_VARS[i]);
        if (!known)
            die_fail("parity: case switch '%s' is not one of POSBENCH_LINEAR, POSBENCH_KERNELS, POSBENCH_ATTENTION, "
                     "POSBENCH_CUDNN_LIB", tok);
        if (setenv(tok, eq + 1, 1) != 0) die_fail("parity: setenv %s failed", tok);
    }
    device_cuda_switches_from_env();
}

static void switches_restore(const cuda_switches *s) {
    for (int i = 0; i < N_SWITCH_VARS; i++) {
        int rc = s->had[i] ? setenv(SWITCH_VARS[i], s->saved[i], 1) : unsetenv(SWITCH_VARS[i]);
        if (rc != 0) die_fail("parity: restoring %s failed", SWITCH_VARS[i]);
    }
    cuda_set_linear_route(s->linear);
    cuda_set_kernels(s->kernels);
    cuda_set_attention_route(s->attention);
}

static int has_word(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return 1;
    return 0;
}

// The facts of one backend run (pr_require): a FAIL naming the first that failed, or one PASS.
static void report_facts(const char *what, const parity_case *c, const parity_run *r, const char *run) {
    if (!r->nrequired) return;
    char name[720];
    snprintf(name, sizeof name, "parity %s %s [%s] facts (%s)", what, c->ops, c->label, run);
    test_check(name, !r->failed_requirement[0], "%s%s", r->failed_requirement[0] ? "does not hold: " : "",
               r->failed_requirement[0] ? r->failed_requirement : "every fact stated holds");
}

int parity_run_families(const parity_backend *dut, const char *op, const char *family, int *skipped) {
    int ran = 0;
    *skipped = 0;
    static parity_run ref, got, again, twin;
    for (int f = 0; f < parity_family_count; f++) {
        const parity_family *fam = &parity_families[f];
        if (family && strcmp(family, fam->name)) continue;
        for (int k = 0; k < *fam->count; k++) {
            const parity_case *c = &fam->cases[k];
            if (op && !has_word(c->ops, op)) continue;
            if (c->twin && !c->cuda) die_fail("parity: case %s [%s] has a twin route but no route of its own", c->ops, c->label);
            if (c->large && !dut->is_cuda) {
                (*skipped)++;
                continue;
            }
            run_case(&ref, c, &ops_cpu, 0);
            // The CUDA switches matter to cuda alone: on the other backends a route case checks
            // its ops once more (and its own code runs where there is no GPU).
            const char *route = dut->is_cuda ? c->cuda : NULL, *twin_route = dut->is_cuda ? c->twin : NULL;
            cuda_switches sw;
            if (route) switches_apply(&sw, route);
            run_case(&got, c, dut->ops, dut->is_cuda);
            if (c->repeat && !got.skipped[0]) run_case(&again, c, dut->ops, dut->is_cuda);
            if (route) switches_restore(&sw);
            if (twin_route && !got.skipped[0]) {
                switches_apply(&sw, twin_route);
                run_case(&twin, c, dut->ops, dut->is_cuda);
                switches_restore(&sw);
            }
            char what[300];
            snprintf(what, sizeof what, "%s%s%s", dut->name, route ? " " : "", route ? route : "");
            if (ref.skipped[0]) die_fail("parity: case %s [%s] skips itself on the CPU reference: %s", c->ops, c->label, ref.skipped);
            report_facts(what, c, &ref, "cpu reference");
            if (got.skipped[0]) {
                char name[400];
                snprintf(name, sizeof name, "parity %s %s [%s]", what, c->ops, c->label);
                test_skip(name, "%s", got.skipped);
            } else {
                for (int i = 0; i < ref.nout; i++) {
                    if ((ref.out[i].tol.marks & PARITY_MARK_OWN) && !dut->bitwise) continue; // the backend's own form
                    parity_tol tol = dut->bitwise ? PARITY_BITWISE : ref.out[i].tol;
                    report(what, c, &ref.out[i], i < got.nout ? &got.out[i] : NULL, tol);
                }
                if (got.nout != ref.nout) {
                    char name[400];
                    snprintf(name, sizeof name, "parity %s %s [%s]", what, c->ops, c->label);
                    test_fail(name, "%d outputs on %s, %d on cpu", got.nout, dut->name, ref.nout);
                }
                report_facts(what, c, &got, dut->name);
                if (c->repeat) {
                    char rwhat[340];
                    snprintf(rwhat, sizeof rwhat, "%s repeat", what);
                    for (int i = 0; i < got.nout; i++)
                        report(rwhat, c, &got.out[i], i < again.nout ? &again.out[i] : NULL, PARITY_BITWISE);
                    report_facts(rwhat, c, &again, dut->name);
                }
                if (twin_route) {
                    char twhat[400];
                    snprintf(twhat, sizeof twhat, "%s bitwise %s", what, twin_route);
                    for (int i = 0; i < got.nout; i++)
                        if (got.out[i].tol.marks & PARITY_MARK_SAME_ROUTES)
                            report(twhat, c, &got.out[i], i < twin.nout ? &twin.out[i] : NULL, PARITY_BITWISE);
                    if (twin.skipped[0]) test_fail(twhat, "the twin route skipped the case: %s", twin.skipped);
                    report_facts(twhat, c, &twin, dut->name);
                }
            }
            run_free_outputs(&ref);
            run_free_outputs(&got);
            run_free_outputs(&again);
            run_free_outputs(&twin);
            ran++;
        }
    }
    return ran;
}

int parity_coverage(const char *const *op_names, int n, const parity_family *fams, int nfam,
                    const parity_exemption *ex, int nex, char *missing, size_t len) {
    int count = 0;
    size_t used = 0;
    if (len) missing[0] = 0;
#define NAME_MISSING(fmt, s)                                                                     \
    do {                                                                                         \
        count++;                                                                                 \
        if (used < len) used += (size_t)snprintf(missing + used, len - used, fmt, used ? " " : "", s); \
    } while (0)
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int f = 0; f < nfam && !found; f++)
            for (int k = 0; k < *fams[f].count && !found; k++) found = has_word(fams[f].cases[k].ops, op_names[i]);
        for (int e = 0; e < nex && !found; e++) found = !strcmp(ex[e].op, op_names[i]);
        if (!found) NAME_MISSING("%s%s", op_names[i]);
    }
    // Stale entries: an exemption or a case op that names no op.
    for (int e = 0; e < nex; e++) {
        int known = 0;
        for (int i = 0; i < n && !known; i++) known = !strcmp(ex[e].op, op_names[i]);
        if (!known) NAME_MISSING("%s%s?", ex[e].op);
    }
    for (int f = 0; f < nfam; f++)
        for (int k = 0; k < *fams[f].count; k++) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", fams[f].cases[k].ops);
            for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                int known = 0;
                for (int i = 0; i < n && !known; i++) known = !strcmp(w, op_names[i]);
                if (!known) NAME_MISSING("%s%s?", w);
            }
        }
#undef NAME_MISSING
    if (used >= len && len > 4) strcpy(missing + len - 4, "...");
    return count;
}
