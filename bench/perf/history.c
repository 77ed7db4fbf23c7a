// bench/perf/history.c — `posbench bench --history DIR`: saved regression benchmark results as
// a trend per metric, in Markdown and gnuplot figures (rules in history.h).
#include "history.h"
#include "regress.h"
#include "../report/gnuplot.h"
#include "../report/significance.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char name[256]; // file name inside DIR
    bench_file f;
} hist_file;

typedef struct {
    int have, n;
    double value, lo, hi;
} hist_point;

static int by_date(const void *a, const void *b) {
    const hist_file *x = a, *y = b;
    int c = strcmp(bench_file_fact_get(&x->f, "date"), bench_file_fact_get(&y->f, "date"));
    return c ? c : strcmp(x->name, y->name);
}

static const bench_metric *metric_in(const bench_file *f, const char *name) {
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->m[i].name, name)) return &f->m[i];
    return NULL;
}

// The value and 95% CI of one file's samples of a metric (history.h).
static hist_point summarize(const bench_metric *m) {
    hist_point p = {.have = 1, .n = m->n};
    int logs = !strcmp(m->kind, "time");
    for (int i = 0; i < m->n && logs; i++) logs = m->v[i] > 0;
    double *x = xmalloc((size_t)m->n * sizeof *x, "history samples");
    for (int i = 0; i < m->n; i++) x[i] = logs ? log(m->v[i]) : m->v[i];
    double mean, var;
    sig_mean_var(x, m->n, &mean, &var);
    double half = m->n >= 2 ? sig_t_quantile(0.975, m->n - 1) * sqrt(var / m->n) : 0;
    p.value = logs ? exp(mean) : mean;
    p.lo = logs ? exp(mean - half) : mean - half;
    p.hi = logs ? exp(mean + half) : mean + half;
    free(x);
    return p;
}

// Reads every *.tsv in dir, sorted (history.h). 0, or -1 with the message printed.
static int read_files(const char *dir, hist_file **out, int *nout) {
    DIR *d = opendir(dir);
    if (!d) {
        error_msg("--history %s: cannot open the directory: %s", dir, strerror(errno));
        return -1;
    }
    hist_file *files = NULL;
    int n = 0, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 5 || strcmp(e->d_name + len - 4, ".tsv") || len >= sizeof files[0].name) continue;
        hist_file *grown = realloc(files, (size_t)(n + 1) * sizeof *files);
        if (!grown) die_fail("out of memory reading %s", dir);
        files = grown;
        hist_file *h = &files[n];
        snprintf(h->name, sizeof h->name, "%s", e->d_name);
        char path[4400], err[4608];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (bench_file_read(path, &h->f, err, sizeof err) != 0) {
            error_msg("%s", err);
            rc = -1;
        } else {
            n++;
        }
    }
    closedir(d);
    if (rc == 0 && n == 0) {
        error_msg("--history %s: no *.tsv results files in it (posbench bench --save FILE.tsv writes one)", dir);
        rc = -1;
    }
    if (rc != 0) {
        for (int i = 0; i < n; i++) bench_file_free(&files[i].f);
        free(files);
        return -1;
    }
    qsort(files, (size_t)n, sizeof *files, by_date);
    *out = files, *nout = n;
    return 0;
}

// The metric names of every file, in order of first appearance (files oldest first).
static int metric_names(const hist_file *files, int n, const bench_metric ***out) {
    const bench_metric **names = NULL;
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < files[i].f.n; j++) {
            int seen = 0;
            for (int q = 0; q < k && !seen; q++) seen = !strcmp(names[q]->name, files[i].f.m[j].name);
            if (seen) continue;
            const bench_metric **grown = realloc(names, (size_t)(k + 1) * sizeof *names);
            if (!grown) die_fail("out of memory listing metrics");
            names = grown;
            names[k++] = &files[i].f.m[j];
        }
    *out = names;
    return k;
}

static void label_of(const hist_file *h, int index, char *out, size_t len) {
    const char *c = bench_file_fact_get(&h->f, "commit");
    snprintf(out, len, "%d %.20s", index + 1, c[0] ? c : h->name);
}

// pts[m·n + i]: metric m in file i (have = 0 when the file lacks it).
static void write_markdown(FILE *md, const char *dir, const hist_file *files, int n, const bench_metric **names, int k,
                           const char (*bases)[256], const hist_point *pts) {
    fprintf(md, "# posbench bench history: %s\n\n", dir);
    fprintf(md, "%d results file%s, ordered by their date. Value: the geometric mean of a time metric's samples, the "
                "mean of any other; 95%% CI from the t distribution over the file's samples (on the logs for time); "
                "ratio: to the previous file that has the metric. Rules: bench/perf/history.h.\n\n",
            n, n == 1 ? "" : "s");
    fprintf(md, "| # | file | commit | date | CPU | threads |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++)
        fprintf(md, "| %d | %s | %s | %s | %s | %s |\n", i + 1, files[i].name, bench_file_fact_get(&files[i].f, "commit"),
                bench_file_fact_get(&files[i].f, "date"), bench_file_fact_get(&files[i].f, "cpu_model"),
                bench_file_fact_get(&files[i].f, "threads"));
    for (int m = 0; m < k; m++) {
        fprintf(md, "\n## %s (%s)\n\n![%s](figures/%s.png)\n\n", names[m]->name, names[m]->kind, names[m]->name, bases[m]);
        fprintf(md, "| # | commit | value | 95%% CI | n | ratio |\n|---|---|---|---|---|---|\n");
        double prev = NAN;
        for (int i = 0; i < n; i++) {
            hist_point p = pts[(size_t)m * n + i];
            if (!p.have) {
                fprintf(md, "| %d | %s | (not measured) | | | |\n", i + 1, bench_file_fact_get(&files[i].f, "commit"));
                continue;
            }
            char ci[64] = "", ratio[32] = "";
            if (p.n >= 2) snprintf(ci, sizeof ci, "[%.6g, %.6g]", p.lo, p.hi);
            if (isfinite(prev) && prev != 0) snprintf(ratio, sizeof ratio, "%.4f", p.value / prev);
            fprintf(md, "| %d | %s | %.6g | %s | %d | %s |\n", i + 1, bench_file_fact_get(&files[i].f, "commit"), p.value, ci, p.n,
                    ratio);
            prev = p.value;
        }
    }
}

int bench_history(const char *dir, const char *out_dir) {
    hist_file *files;
    int n;
    if (read_files(dir, &files, &n) != 0) return EXIT_BAD_INPUT;
    char out[4096], fig[4200], data[4300];
    if (out_dir) snprintf(out, sizeof out, "%s", out_dir);
    else snprintf(out, sizeof out, "%s/history", dir);
    snprintf(fig, sizeof fig, "%s/figures", out);
    snprintf(data, sizeof data, "%s/data", fig);
    int rc = gp_make_dir(out) || gp_make_dir(fig) || gp_make_dir(data) ? EXIT_RUN_FAILED : 0;
    const bench_metric **names = NULL;
    int k = metric_names(files, n, &names);
    char(*bases)[256] = xcalloc((size_t)(k > 0 ? k : 1), sizeof *bases, "history figure names");
    for (int m = 0; m < k; m++) snprintf(bases[m], sizeof bases[m], "%s", names[m]->name), gp_sanitize(bases[m]);

    // Every (metric, file) summarised once; the y range of each figure covers its points' CIs.
    hist_point *pts = xcalloc((size_t)(k > 0 ? k : 1) * n, sizeof *pts, "history points");
    double(*yrange)[2] = xcalloc((size_t)(k > 0 ? k : 1), sizeof *yrange, "history ranges");
    for (int m = 0; m < k; m++) {
        yrange[m][0] = INFINITY, yrange[m][1] = -INFINITY;
        for (int i = 0; i < n; i++) {
            const bench_metric *x = metric_in(&files[i].f, names[m]->name);
            if (!x) continue;
            hist_point p = pts[(size_t)m * n + i] = summarize(x);
            yrange[m][0] = fmin(yrange[m][0], p.lo), yrange[m][1] = fmax(yrange[m][1], p.hi);
        }
    }
    // The data files, then the Markdown (via a temporary file), then the figures.
    for (int m = 0; m < k && rc == 0; m++) {
        char path[4608];
        snprintf(path, sizeof path, "%s/%s.dat", data, bases[m]);
        safe_out file; // each output atomic, never through a link or device (core/safe_file.h)
        char err[8800];
        rc = safe_out_begin(&file, path, err, sizeof err);
        if (rc != SAFE_OK) {
            error_msg("cannot write %s", err);
            break;
        }
        FILE *f = file.f;
        gp_comment(f, "%s (%s): index value lo hi label (bench/perf/history.h)", names[m]->name, names[m]->kind);
        for (int i = 0; i < n; i++) {
            hist_point p = pts[(size_t)m * n + i];
            if (!p.have) continue;
            char label[64];
            label_of(&files[i], i, label, sizeof label);
            fprintf(f, "%d %.17g %.17g %.17g ", i + 1, p.value, p.lo, p.hi);
            gp_data_string(f, label), fputc('\n', f); // one quoted column whatever the label holds (gnuplot.h)
        }
        rc = safe_out_commit(&file, err, sizeof err);
        if (rc != SAFE_OK) error_msg("%s", err);
    }
    char md_path[4200], md_err[8800];
    snprintf(md_path, sizeof md_path, "%s/history.md", out);
    if (rc == 0) {
        safe_out md;
        rc = safe_out_begin(&md, md_path, md_err, sizeof md_err);
        if (rc != SAFE_OK) {
            error_msg("cannot write %s", md_err);
        } else {
            write_markdown(md.f, dir, files, n, names, k, (const char(*)[256])bases, pts);
            rc = safe_out_commit(&md, md_err, sizeof md_err);
            if (rc != SAFE_OK) {
                error_msg("%s", md_err);
            } else {
                printf("history of %d file%s, %d metric%s: %s\n", n, n == 1 ? "" : "s", k, k == 1 ? "" : "s", vis(md_path));
            }
        }
    }
    gp_tools tools;
    char err[512];
    if (rc == 0 && gp_find(&tools, err, sizeof err) != 0) {
        error_msg("no figures: %s", err);
        rc = EXIT_BAD_INPUT;
    }
    for (int m = 0; m < k && rc == 0; m++) {
        char datafile[4608], title[512];
        snprintf(datafile, sizeof datafile, "%s/%s.dat", data, bases[m]);
        snprintf(title, sizeof title, "%s (%s) across %d results file%s", names[m]->name, names[m]->kind, n, n == 1 ? "" : "s");
        gp_vars v = {0};
        gp_var_str(&v, "datafile", datafile);
        gp_var_str(&v, "title", title);
        gp_var_str(&v, "ylabel", !strcmp(names[m]->kind, "time") ? "geometric mean, 95% CI" : "mean, 95% CI");
        // y: the points' CIs padded by 5% of their span (of the value itself, or 1, when the span is 0)
        double lo = yrange[m][0], hi = yrange[m][1], pad = 0.05 * (hi - lo);
        if (!(pad > 0)) pad = 0.05 * (fabs(lo) > 0 ? fabs(lo) : 1);
        gp_var(&v, "nfiles", "%d", n);
        gp_var(&v, "ylo", "%.17g", lo - pad), gp_var(&v, "yhi", "%.17g", hi + pad);
        rc = gp_render(&tools, "history", fig, bases[m], &v);
        gp_vars_free(&v);
    }
    free(bases), free(names), free(yrange), free(pts);
    for (int i = 0; i < n; i++) bench_file_free(&files[i].f);
    free(files);
    return rc;
}
