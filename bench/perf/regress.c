// bench/perf/regress.c — regression benchmarks: measure (sgemm-normalised step times, peak
// memory, accuracy probes, machine facts), the results file (read, write), and the comparison
// against a baseline with its verdicts (rules and format in regress.h).
#include "regress.h"
#include "perf.h"
#include "../config/config.h"
#include "../report/significance.h"
#include "../results/machine.h"
#include "../results/results_read.h"
#include "../run/estimate.h"
#include "../train/train.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <cblas.h>
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../version.h"

// ---- the results file -----------------------------------------------------------------
void bench_file_add(bench_file *f, const char *name, const char *kind, int n, const double *v) {
    bench_metric *m = realloc(f->m, (size_t)(f->n + 1) * sizeof *m);
    if (!m) die_fail("out of memory adding a bench metric");
    f->m = m;
    bench_metric *x = &f->m[f->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->kind, sizeof x->kind, "%s", kind);
    x->n = n;
    x->v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *x->v, "bench metric");
    if (n > 0) memcpy(x->v, v, (size_t)n * sizeof *v);
}

void bench_file_fact(bench_file *f, const char *key, const char *value) {
    if (f->nfacts >= (int)(sizeof f->facts / sizeof f->facts[0])) return;
    bench_fact *x = &f->facts[f->nfacts++];
    snprintf(x->key, sizeof x->key, "%s", key);
    snprintf(x->value, sizeof x->value, "%s", value);
    for (char *p = x->value; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
}

const char *bench_file_fact_get(const bench_file *f, const char *key) {
    for (int i = 0; i < f->nfacts; i++)
        if (!strcmp(f->facts[i].key, key)) return f->facts[i].value;
    return "";
}

void bench_file_free(bench_file *f) {
    for (int i = 0; i < f->n; i++) free(f->m[i].v);
    free(f->m);
    memset(f, 0, sizeof *f);
}

static const bench_metric *find_metric(const bench_file *f, const char *name) {
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->m[i].name, name)) return &f->m[i];
    return NULL;
}

static int kind_valid(const char *k) {
    return !strcmp(k, "time") || !strcmp(k, "memory") || !strcmp(k, "probe") || !strcmp(k, "info");
}

// Splits line (modified) at tabs into at most max fields; returns the count.
static int split_tabs(char *line, char **field, int max) {
    int n = 0;
    for (char *p = line; n < max;) {
        field[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = '\0', p = t + 1;
    }
    return n;
}

int bench_file_read(const char *path, bench_file *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    FILE *f; // a regular file within the text cap, never blocking (core/safe_file.h)
    if (safe_fopen_read(path, SAFE_TEXT_CAP, SAFE_FOLLOW, &f, NULL, err, errlen) != SAFE_OK) return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, header = 0, rc = 0;
    enum { MAXF = 4096 };
    char **field = xmalloc(MAXF * sizeof *field, "bench file fields");
    double *vals = xmalloc(MAXF * sizeof *vals, "bench file values");
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len == 0 || line[len - 1] != '\n') { // bench_file_write ends every line: this one was cut
            snprintf(err, errlen, "%s:%d: the last line has no end (the file was cut while being written); measure it again",
                     path, lineno);
            rc = -1;
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (len == 0 || line[0] == '#') continue;
        int nf = split_tabs(line, field, MAXF);
        rc = -1;
        if (!header) {
            if (nf != 2 || strcmp(field[0], "posbench-bench") || strcmp(field[1], "1"))
                snprintf(err, errlen, "%s:%d: not a posbench bench results file (the first line must be 'posbench-bench<TAB>1')", path, lineno);
            else header = 1, rc = 0;
        } else if (!strcmp(field[0], "machine")) {
            if (nf != 3 || !field[1][0]) snprintf(err, errlen, "%s:%d: a machine line is 'machine<TAB>KEY<TAB>VALUE'", path, lineno);
            else bench_file_fact(out, field[1], field[2]), rc = 0;
        } else if (!strcmp(field[0], "metric")) {
            if (nf < 4 || !field[1][0]) {
                snprintf(err, errlen, "%s:%d: a metric line is 'metric<TAB>NAME<TAB>KIND<TAB>VALUE...'", path, lineno);
            } else if (!kind_valid(field[2])) {
                snprintf(err, errlen, "%s:%d: metric %s: kind '%s' is not valid (valid: time, memory, probe, info)", path, lineno,
                         field[1], field[2]);
            } else if (strlen(field[1]) >= sizeof out->m[0].name) {
                snprintf(err, errlen, "%s:%d: metric name longer than %zu characters", path, lineno, sizeof out->m[0].name - 1);
            } else if (find_metric(out, field[1])) {
                snprintf(err, errlen, "%s:%d: metric %s appears twice", path, lineno, field[1]);
            } else if (!strcmp(field[2], "time") && nf < 5) {
                snprintf(err, errlen, "%s:%d: metric %s: a time metric needs at least 2 samples", path, lineno, field[1]);
            } else {
                int bad = -1;
                for (int i = 3; i < nf && bad < 0; i++) {
                    char *end;
                    errno = 0;
                    vals[i - 3] = strtod(field[i], &end);
                    if (end == field[i] || *end || errno == ERANGE || !isfinite(vals[i - 3])) bad = i;
                }
                int timed = !strcmp(field[2], "time") || !strcmp(field[2], "memory"), nonpos = -1;
                for (int i = 3; timed && bad < 0 && i < nf && nonpos < 0; i++)
                    if (!(vals[i - 3] > 0)) nonpos = i;
                if (bad >= 0)
                    snprintf(err, errlen, "%s:%d: metric %s: value %d '%s' is not a finite number", path, lineno, field[1], bad - 2,
                             field[bad]);
                else if (nonpos >= 0) // a time or a memory size is > 0; 0 or less is a broken measurement
                    snprintf(err, errlen, "%s:%d: metric %s: %s sample %d is %s (a %s must be > 0)", path, lineno, field[1], field[2],
                             nonpos - 2, field[nonpos], !strcmp(field[2], "time") ? "time" : "memory size");
                else bench_file_add(out, field[1], field[2], nf - 3, vals), rc = 0;
            }
        } else {
            snprintf(err, errlen, "%s:%d: unknown line type '%s' (valid: machine, metric)", path, lineno, field[0]);
        }
    }
    if (rc == 0 && ferror(f)) snprintf(err, errlen, "%s: read error: %s", path, strerror(errno)), rc = -1;
    if (rc == 0 && !header) snprintf(err, errlen, "%s:%d: empty file (no 'posbench-bench<TAB>1' line)", path, lineno), rc = -1;
    free(line), free(field), free(vals);
    fclose(f);
    if (rc != 0) bench_file_free(out);
    return rc;
}

int bench_file_write(const bench_file *f, const char *path, char *err, size_t errlen) {
    safe_out file; // atomic, never through a link or device at path (core/safe_file.h)
    int rc = safe_out_begin(&file, path, err, errlen);
    if (rc != SAFE_OK) return rc;
    FILE *o = file.f;
    fprintf(o, "posbench-bench\t1\n# written by posbench bench --save; format in bench/perf/regress.h\n");
    for (int i = 0; i < f->nfacts; i++) fprintf(o, "machine\t%s\t%s\n", f->facts[i].key, f->facts[i].value);
    for (int i = 0; i < f->n; i++) {
        fprintf(o, "metric\t%s\t%s", f->m[i].name, f->m[i].kind);
        for (int k = 0; k < f->m[i].n; k++) fprintf(o, "\t%.17g", f->m[i].v[k]);
        fputc('\n', o);
    }
    return safe_out_commit(&file, err, errlen);
}

// ---- measuring ------------------------------------------------------------------------
// The accuracy probes: fixed short trainings (overrides on top of the defaults), one per
// objective on image data (MLM needs the text corpus and speech its synthesized set, which a
// fresh checkout does not have), each recording its /final loss and its objective's metric.
#define PROBE_BASE "data.limit=1024 data.test_limit=500 train.epochs=2 train.batch=64 train.warmup_epochs=0 model.dim=64 " \
                   "model.depth=2 model.heads=2 model.patch=7"
static const struct {
    const char *name, *keys, *metric; // metric: the /final attribute recorded beside loss
} probes[] = {
    {"supervised-abs", PROBE_BASE, "top1"},
    {"supervised-cape", PROBE_BASE " pe.kind=cape", "top1"},
    {"mp3", PROBE_BASE " objective.name=mp3 pe.kind=none", "pos_top1"},
    {"mae", PROBE_BASE " objective.name=mae", "pixel_mse_visible"},
    {"gvp", PROBE_BASE " objective.name=gvp objective.groups=4", "pixel_mse_last_group"},
};

static const char *bench_configs[] = {"vit-d128-L6-p4-28px", "vit-d192-L12-p4-32px", "vit-d64-L2-p4-28px-ci"};


// Removes the flat directory dir and its files (what a probe's training wrote).
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[4400];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name), unlink(p);
        closedir(d);
    }
    rmdir(dir);
}

static void run_probe(int i, bench_file *out) {
    config cfg;
    config_defaults(&cfg);
    char keys[1024], err[1024], *save = NULL;
    snprintf(keys, sizeof keys, "%s", probes[i].keys);
    for (char *k = strtok_r(keys, " ", &save); k; k = strtok_r(NULL, " ", &save))
        if (config_apply_override(&cfg, k, err, sizeof err) != 0) die_fail("bench probe %s: %s", probes[i].name, err);
    char dir[] = "/tmp/posbench-probe.XXXXXX";
    if (!mkdtemp(dir)) die_fail("bench probe: cannot create a temporary directory: %s", strerror(errno));
    train_options topt = {.out_dir = dir, .experiment = "bench-probe", .stage = probes[i].name};
    train_result res;
    int rc = train_run(&cfg, &topt, &res);
    config_free(&cfg);
    rr_run run;
    if (rc != 0 || strcmp(res.status, "done") || rr_read(res.path, RR_ATTRS, &run, err, sizeof err) != 0) {
        fprintf(stderr, "posbench bench: probe %s did not finish (status %s)\n", probes[i].name, vis(res.status));
        remove_dir(dir);
        return;
    }
    const char *names[2] = {"loss", probes[i].metric};
    for (int k = 0; k < 2; k++) {
        const rr_attr *a = rr_attr_get(&run.final, names[k]);
        char name[128];
        snprintf(name, sizeof name, "probe/%s/%s", probes[i].name, names[k]);
        if (a && a->is_num && isfinite(a->num)) bench_file_add(out, name, "probe", 1, &a->num);
        else fprintf(stderr, "posbench bench: probe %s has no finite /final %s\n", probes[i].name, names[k]);
    }
    rr_free(&run);
    remove_dir(dir);
}

void bench_measure(const regress_options *opt, bench_file *out) {
    memset(out, 0, sizeof *out);
    char text[512];
    machine_cpu_model(text, sizeof text);
    bench_file_fact(out, "cpu_model", text);
    snprintf(text, sizeof text, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    bench_file_fact(out, "cores", text);
    snprintf(text, sizeof text, "%d", posbench_threads());
    bench_file_fact(out, "threads", text);
    bench_file_fact(out, "openblas", openblas_get_config());
    unsigned maj, min, rel;
    if (H5get_libversion(&maj, &min, &rel) >= 0) snprintf(text, sizeof text, "%u.%u.%u", maj, min, rel), bench_file_fact(out, "hdf5", text);
    bench_file_fact(out, "compiler", __VERSION__);
    bench_file_fact(out, "commit", posbench_git_commit);
    time_t now = time(NULL);
    struct tm tmv;
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
    bench_file_fact(out, "date", text);

    int ran = 0;
    for (size_t c = 0; c < sizeof bench_configs / sizeof bench_configs[0]; c++) {
        const char *name = bench_configs[c];
        if (opt->only && strcmp(opt->only, name)) continue;
        ran++;
        int n = opt->rounds * opt->iters;
        double *norm = xmalloc((size_t)n * sizeof *norm, "bench samples"), *ms = xmalloc((size_t)n * sizeof *ms, "bench samples");
        double *gf = xmalloc((size_t)opt->rounds * sizeof *gf, "bench samples"), flops = 0;
        int batch = 0;
        size_t arena = 0;
        for (int r = 0; r < opt->rounds; r++) {
            gf[r] = estimate_sgemm_gflops(1024, 1024, 1024);
            if (perf_step_samples(name, opt->iters, ms + r * opt->iters, &flops, &batch, &arena) < 0)
                die_fail("bench: %s is not a benchmark config", name);
            for (int i = 0; i < opt->iters; i++) norm[r * opt->iters + i] = ms[r * opt->iters + i] * gf[r];
        }
        char m[160];
        snprintf(m, sizeof m, "%s/step_x_sgemm", name);
        bench_file_add(out, m, "time", n, norm);
        double rss = peak_rss_bytes() / 1048576.0, arena_mib = arena / 1048576.0;
        snprintf(m, sizeof m, "%s/arena_mib", name);
        bench_file_add(out, m, "memory", 1, &arena_mib);
        snprintf(m, sizeof m, "%s/peak_rss_mib", name);
        bench_file_add(out, m, "info", 1, &rss);
        double *frac = xmalloc((size_t)n * sizeof *frac, "bench samples");
        for (int i = 0; i < n; i++) frac[i] = flops / ms[i] / 1e9 / gf[i / opt->iters], ms[i] *= 1e3;
        snprintf(m, sizeof m, "%s/step_ms", name);
        bench_file_add(out, m, "info", n, ms);
        snprintf(m, sizeof m, "%s/frac_of_sgemm", name);
        bench_file_add(out, m, "info", n, frac);
        snprintf(m, sizeof m, "%s/sgemm_gflops", name);
        bench_file_add(out, m, "info", opt->rounds, gf);
        double med = median_double(ms, n);
        printf("%s: %d x %d steps, median %.1f ms (%.0f images/s), arenas %.1f MiB, process peak %.0f MiB\n", name, opt->rounds,
               opt->iters, med, batch / med * 1e3, arena_mib, rss);
        fflush(stdout);
        free(norm), free(ms), free(gf), free(frac);
    }
    if (!ran) die_input("--config '%s' is not a benchmark config (posbench bench --help lists them)", opt->only);
    // "probes run": a probe metric of the baseline missing from this file then means the probe
    // failed (did not finish, or a non-finite result), which --compare reports as a regression.
    bench_file_fact(out, "probes", opt->probes ? "run" : "skipped");
    if (opt->probes)
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) run_probe((int)i, out);
}

// ---- comparing ------------------------------------------------------------------------
static double mean_of(const bench_metric *m) {
    double s = 0;
    for (int i = 0; i < m->n; i++) s += m->v[i];
    return s / m->n;
}

static int same_machine(const bench_file *a, const bench_file *b) {
    const char *keys[3] = {"cpu_model", "threads", "openblas"};
    for (int k = 0; k < 3; k++)
        if (!bench_file_fact_get(a, keys[k])[0] || strcmp(bench_file_fact_get(a, keys[k]), bench_file_fact_get(b, keys[k]))) return 0;
    return 1;
}

// One row: verdict and whether it is a regression.
static int compare_metric(const bench_metric *b, const bench_metric *n, const regress_options *opt, int exact, FILE *out) {
    double mb = mean_of(b), mn = mean_of(n), ratio = mb != 0 ? mn / mb : NAN;
    char ci[64] = "", verdict[96];
    int regressed = 0;
    if (!strcmp(n->kind, "time") && b->n >= 2 && n->n >= 2) {
        double *lb = xmalloc((size_t)b->n * sizeof *lb, "bench logs"), *ln = xmalloc((size_t)n->n * sizeof *ln, "bench logs");
        int ok = 1;
        for (int i = 0; i < b->n; i++) ok &= b->v[i] > 0, lb[i] = log(b->v[i]);
        for (int i = 0; i < n->n; i++) ok &= n->v[i] > 0, ln[i] = log(n->v[i]);
        if (ok) {
            sig_test t = sig_welch(ln, n->n, lb, b->n);
            double hi_band = 1.0 + opt->time_threshold, lo_band = 1.0 / hi_band;
            ratio = exp(t.effect);
            snprintf(ci, sizeof ci, "[%.3f, %.3f]", exp(t.lo), exp(t.hi));
            if (ratio > hi_band && t.p < REGRESS_ALPHA)
                regressed = 1, snprintf(verdict, sizeof verdict, "slower (p %.2g) REGRESSION", t.p);
            else if (ratio < lo_band && 1 - t.p < REGRESS_ALPHA) snprintf(verdict, sizeof verdict, "faster");
            else if (exp(t.lo) >= lo_band && exp(t.hi) <= hi_band) snprintf(verdict, sizeof verdict, "same");
            else snprintf(verdict, sizeof verdict, "noisy");
        } else {
            snprintf(verdict, sizeof verdict, "noisy (a sample <= 0)");
        }
        free(lb), free(ln);
    } else if (!strcmp(n->kind, "memory")) {
        if (ratio > 1 + opt->memory_threshold) regressed = 1, snprintf(verdict, sizeof verdict, "more REGRESSION");
        else if (ratio < 1 / (1 + opt->memory_threshold)) snprintf(verdict, sizeof verdict, "less");
        else snprintf(verdict, sizeof verdict, "same");
    } else if (!strcmp(n->kind, "probe")) {
        double d = mn - mb;
        if (exact) {
            if (d == 0) snprintf(verdict, sizeof verdict, "same (exact)");
            else regressed = 1, snprintf(verdict, sizeof verdict, "changed by %+.3g (must be exact here) REGRESSION", d);
        } else if (fabs(d) <= PROBE_TOLERANCE) {
            snprintf(verdict, sizeof verdict, "same (within %g)", PROBE_TOLERANCE);
        } else {
            regressed = 1, snprintf(verdict, sizeof verdict, "changed by %+.3g (> %g) REGRESSION", d, PROBE_TOLERANCE);
        }
    } else {
        snprintf(verdict, sizeof verdict, "(info)");
    }
    fprintf(out, "%-44s %-7s %12.6g %12.6g %8.4f %-18s %s\n", n->name, n->kind, mb, mn, ratio, ci, verdict);
    return regressed;
}

int bench_compare(const bench_file *base, const bench_file *now, const regress_options *opt, FILE *out, char *names,
                  size_t names_len) {
    int exact = same_machine(base, now), nreg = 0;
    names[0] = '\0';
    fprintf(out, "baseline: commit %s, %s, %s threads, %s\n", bench_file_fact_get(base, "commit"),
            bench_file_fact_get(base, "cpu_model"), bench_file_fact_get(base, "threads"), bench_file_fact_get(base, "date"));
    fprintf(out, "now:      commit %s, %s, %s threads, %s\n", bench_file_fact_get(now, "commit"), bench_file_fact_get(now, "cpu_model"),
            bench_file_fact_get(now, "threads"), bench_file_fact_get(now, "date"));
    fprintf(out, "probes must match %s\n\n", exact ? "exactly (same CPU model, threads and OpenBLAS)" : "within the tolerance (another machine)");
    fprintf(out, "%-44s %-7s %12s %12s %8s %-18s %s\n", "metric", "kind", "baseline", "now", "ratio", "95% CI", "verdict");
    for (int i = 0; i < now->n; i++) {
        const bench_metric *n = &now->m[i], *b = find_metric(base, n->name);
        if (!b) {
            fprintf(out, "%-44s %-7s %12s %12.6g %8s %-18s new (not in the baseline)\n", n->name, n->kind, "-", mean_of(n), "-", "");
            continue;
        }
        if (strcmp(b->kind, n->kind)) {
            fprintf(out, "%-44s %-7s %12.6g %12.6g %8s %-18s kind changed (%s in the baseline): not compared\n", n->name, n->kind,
                    mean_of(b), mean_of(n), "-", "", b->kind);
            continue;
        }
        if (compare_metric(b, n, opt, exact, out)) {
            nreg++;
            snprintf(names + strlen(names), names_len - strlen(names), "%s%s", names[0] ? ", " : "", n->name);
        }
    }
    int probes_ran = !strcmp(bench_file_fact_get(now, "probes"), "run");
    for (int i = 0; i < base->n; i++) {
        const bench_metric *b = &base->m[i];
        if (find_metric(now, b->name)) continue;
        if (probes_ran && !strcmp(b->kind, "probe")) { // the probe ran and gave no finite value
            fprintf(out, "%-44s %-7s %12.6g %12s %8s %-18s failed now (did not finish or not finite) REGRESSION\n", b->name, b->kind,
                    mean_of(b), "-", "-", "");
            nreg++;
            snprintf(names + strlen(names), names_len - strlen(names), "%s%s", names[0] ? ", " : "", b->name);
        } else {
            fprintf(out, "%-44s %-7s %12.6g %12s %8s %-18s not measured now\n", b->name, b->kind, mean_of(b), "-", "-", "");
        }
    }
    return nreg;
}

int bench_compared_count(const bench_file *base, const bench_file *now) {
    int n = 0;
    for (int i = 0; i < now->n; i++) {
        const bench_metric *b = find_metric(base, now->m[i].name);
        n += b && !strcmp(b->kind, now->m[i].kind) && strcmp(b->kind, "info");
    }
    return n;
}

// The number of metrics of f that a comparison can judge (time, memory, probe).
static int judged(const bench_file *f) {
    int n = 0;
    for (int i = 0; i < f->n; i++) n += strcmp(f->m[i].kind, "info") != 0;
    return n;
}

int bench_save_check(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (!path[0] || path[0] == '-') {
        snprintf(err, errlen, "--save needs a file (got '%s'; a name starting with '-' is taken for a flag: write ./%s)", path, path);
        return -1;
    }
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) { // a link is never written through (core/safe_file.h)
        snprintf(err, errlen, "--save %s: is %s, not a regular file (--save needs a file)", path, safe_file_kind(st.st_mode));
        return -1;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) >= sizeof dir) {
        snprintf(err, errlen, "--save %.200s...: the path is too long", path);
        return -1;
    } else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "--save %s: directory %s: %s (create it first; nothing was measured)", path, dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--save %s: %s is not a directory (nothing was measured)", path, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "--save %s: directory %s is not writable: %s (nothing was measured)", path, dir, strerror(errno));
        return -1;
    }
    return 0;
}

int bench_keep_confirmed(char *names, size_t len, const bench_file *retry, const char *still) {
    char kept[4096] = "", item[160];
    int n = 0;
    for (const char *p = names; *p;) {
        size_t k = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)k, p);
        p += k;
        while (*p == ',' || *p == ' ') p++;
        int again = 0;
        for (const char *q = still; *q;) { // whole-name match in still
            size_t m = strcspn(q, ",");
            again |= m == strlen(item) && !strncmp(q, item, m);
            q += m;
            while (*q == ',' || *q == ' ') q++;
        }
        if (find_metric(retry, item) && !again) {
            printf("not confirmed: %s (noise)\n", vis(item));
            continue;
        }
        snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s%s", n ? ", " : "", item);
        n++;
    }
    snprintf(names, len, "%s", kept);
    return n;
}

void regress_help(void) {
    printf("regression benchmarks (format and rules: bench/perf/regress.h):\n"
           "  --save FILE             measure (sgemm-normalised step samples, arena memory, accuracy probes,\n"
           "                          machine facts) and write FILE\n"
           "  --compare BASELINE      measure and compare with BASELINE; exit 1 naming what regressed\n"
           "  --result FILE           with --compare: compare FILE instead of measuring\n"
           "  --rounds N              sgemm + timed-steps rounds per config (default 5; --iters steps each)\n"
           "  --no-probes             skip the accuracy probes (short Fashion-MNIST trainings)\n"
           "  --time-threshold X      slower only when the ratio exceeds 1+X (default 0.05) and p < %g\n"
           "  --memory-threshold X    more memory only above 1+X (default 0.10)\n"
           "  --confirm N             a slower step or more memory counts only when each of N further\n"
           "                          measurements (no probes) shows it again (default 0; not with --result)\n"
           "  --history DIR [--out OUT]  every saved *.tsv in DIR by date: per metric its value and 95%% CI per\n"
           "                          file, as OUT/history.md and gnuplot figures (default OUT: DIR/history)\n", REGRESS_ALPHA);
}

int regress_run(const regress_options *opt) {
    char err[4608];
    bench_file base = {0}, now = {0};
    // Everything a comparison or a save needs is checked before minutes of measuring.
    if (opt->save && bench_save_check(opt->save, err, sizeof err) != 0) die_input("%s", err);
    if (opt->compare && bench_file_read(opt->compare, &base, err, sizeof err) != 0) die_input("baseline: %s", err);
    if (opt->compare && !judged(&base))
        die_input("baseline: %s: no time, memory or probe metric in it (%d metric%s): there is nothing to compare against", opt->compare,
                  base.n, base.n == 1 ? "" : "s");
    if (opt->result) {
        if (bench_file_read(opt->result, &now, err, sizeof err) != 0) die_input("result: %s", err);
    } else {
        printf("posbench bench: %d threads, %d rounds x %d timed steps per config%s\n", posbench_threads(), opt->rounds, opt->iters,
               opt->probes ? ", accuracy probes" : "");
        fflush(stdout);
        bench_measure(opt, &now);
    }
    if (opt->save) {
        int wrc = bench_file_write(&now, opt->save, err, sizeof err);
        if (wrc != 0) die_code(wrc, "%s", err);
        printf("saved %d metrics to %s\n", now.n, vis(opt->save));
    }
    int rc = 0;
    if (opt->compare && bench_compared_count(&base, &now) == 0) // "no regression" would claim what nobody measured
        die_input("nothing compared: no time, memory or probe metric is in both the baseline %s (%d metric%s) and %s%s (%d metric%s)",
                  opt->compare, base.n, base.n == 1 ? "" : "s", opt->result ? "the result " : "this measurement",
                  opt->result ? opt->result : "", now.n, now.n == 1 ? "" : "s");
    if (opt->compare) {
        char names[4096];
        printf("\n");
        int n = bench_compare(&base, &now, opt, stdout, names, sizeof names);
        printf("\ntime: slower = geometric-mean ratio > %.3g AND Welch t-test on log samples p < %g; memory: ratio > %.3g\n",
               1 + opt->time_threshold, REGRESS_ALPHA, 1 + opt->memory_threshold);
        // A slower step or more memory must be seen again in each of `confirm` new measurements
        // (the probes are deterministic and not re-run): a burst of load is not a regression.
        for (int k = 1; n && k <= opt->confirm && !opt->result; k++) {
            int timed = 0;
            for (int i = 0; i < now.n; i++) timed |= strcmp(now.m[i].kind, "probe") && strstr(names, now.m[i].name) != NULL;
            if (!timed) break;
            printf("\nconfirmation %d of %d: measuring again (%s regressed)\n", k, opt->confirm, vis(names));
            fflush(stdout);
            regress_options again = *opt;
            again.probes = 0;
            bench_file retry = {0};
            bench_measure(&again, &retry);
            char still[4096];
            bench_compare(&base, &retry, opt, stdout, still, sizeof still);
            n = bench_keep_confirmed(names, sizeof names, &retry, still);
            bench_file_free(&retry);
        }
        if (n) printf("REGRESSION: %d metric%s regressed: %s\n", n, n == 1 ? "" : "s", vis(names)), rc = 1;
        else printf("no regression against %s\n", vis(opt->compare));
    }
    bench_file_free(&base), bench_file_free(&now);
    return rc;
}
