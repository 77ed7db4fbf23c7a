// bench/report/stats.c — the numbers behind every report cell, findings verdict and figure:
// how a metric is shown (header, scale, format, column order), mean and sample std of a
// configuration's /final metric over its done runs, and mean curves (rules in stats.h).
#include "stats.h"
#include "significance.h"
#include "../../core/common.h"
#include "../results/run_metrics.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The metric tables of the runs being reported (their /final metric_info attributes), read by
// report_metrics_from; a metric none of them names is looked up in the built-in tables (files
// written before the attribute existed).
static metric_info **file_tables;
static int n_file_tables;

void report_metrics_from(const rr_set *set) {
    for (int i = 0; i < n_file_tables; i++) free(file_tables[i]);
    free(file_tables);
    file_tables = NULL, n_file_tables = 0;
    if (!set) return;
    const char *last = NULL;
    for (int r = 0; r < set->nruns; r++) {
        const rr_attr *a = rr_attr_get(&set->runs[r].final, "metric_info");
        if (!a || a->type != 's' || (last && !strcmp(last, a->text))) continue;
        char err[256];
        metric_info *t = run_metrics_parse(a->text, err, sizeof err);
        if (!t) {
            fprintf(stderr, "report: %s: /final %s (its metrics are read from the built-in tables)\n", vis(set->runs[r].path), vis(err));
            continue;
        }
        file_tables = xrealloc(file_tables, (size_t)(n_file_tables + 1) * sizeof *file_tables, "metric tables");
        file_tables[n_file_tables++] = t, last = a->text;
    }
}

static const metric_info *metric_lookup(const char *metric) {
    for (int i = 0; i < n_file_tables; i++) {
        const metric_info *m = metric_info_match(file_tables[i], metric);
        if (m) return m;
    }
    return run_metrics_builtin(metric);
}

int report_metric_is_timing(const char *metric) {
    char name[96]; // a per-size metric "images_per_s@40" is its base metric's
    snprintf(name, sizeof name, "%.*s", (int)strcspn(metric, "@"), metric);
    const metric_info *m = metric_lookup(name);
    if (!m) return 0;
    size_t n = m->unit ? strlen(m->unit) : 0;
    return m->nature == METRIC_TIMED || (n >= 2 && !strcmp(m->unit + n - 2, "/s"));
}

metric_nature report_metric_nature(const char *metric) {
    const metric_info *m = metric_lookup(metric);
    metric_nature n = {metric, m ? m->nature : METRIC_SAMPLED};
    return n;
}

metric_fmt report_metric_format(const char *full) {
    static const char *const fixed[] = {"%.0f", "%.1f", "%.2f", "%.3f", "%.4f", "%.5f", "%.6f", "%.7f", "%.8f", "%.9f"};
    metric_fmt f = {"", 1.0, "%.4g", 0, 50};
    char name[96]; // per-size metrics "top1@40" are formatted as their base metric
    snprintf(name, sizeof name, "%.*s", (int)strcspn(full, "@"), full);
    snprintf(f.header, sizeof f.header, "%s", name);
    if (strchr(full, '@')) { // a column of a per-size table: its header is the size
        metric_fmt base = report_metric_format(name);
        snprintf(base.header, sizeof base.header, "%s px", strchr(full, '@') + 1);
        return base;
    }
    const metric_info *m = metric_lookup(name);
    if (!m) return f;
    metric_column_name(m, name, f.header, sizeof f.header); // the one name of report, export and load_runs
    f.scale = m->scale != 0 ? m->scale : 1.0;
    f.fmt = m->digits >= 0 && m->digits <= 9 ? fixed[m->digits] : "%.4g";
    f.mean_only = m->mean_only, f.rank = m->rank;
    return f;
}

const char *report_metric_unit(const char *metric) {
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(metric, "@"), metric);
    const metric_info *m = metric_lookup(name);
    return m && m->unit ? m->unit : "";
}

double report_metric_scale(const char *metric, char *header, size_t len) {
    metric_fmt f = report_metric_format(metric);
    snprintf(header, len, "%s", f.header);
    return f.scale;
}

const char *report_value_format(const metric_fmt *f, double scaled) {
    if (strcmp(f->fmt, "%.0f") || !isfinite(scaled) || fabs(scaled - nearbyint(scaled)) <= 1e-9 * fmax(1.0, fabs(scaled))) return f->fmt;
    return "%.2f"; // a mean of whole numbers (a count, a 0/1 flag) that is not whole: 2 of 3 is 0.67, not 1
}

void report_metric_text(const char *metric, double value, char *buf, size_t len) {
    metric_fmt f = report_metric_format(metric);
    snprintf(buf, len, report_value_format(&f, value * f.scale), value * f.scale);
}

static int is_done(const rr_run *r) { return !strcmp(rr_run_status(r), "done"); }

int report_stats(const rr_set *set, const rr_config *c, const char *metric, double *mean, double *std) {
    int n = 0;
    double sum = 0.0;
    for (int i = 0; i < c->nruns; i++) {
        const rr_run *r = &set->runs[c->runs[i]];
        const rr_attr *a = rr_attr_get(&r->final, metric);
        if (is_done(r) && a && a->is_num) sum += a->num, n++;
    }
    *mean = n ? sum / n : NAN;
    double ss = 0.0;
    for (int i = 0; i < c->nruns; i++) {
        const rr_run *r = &set->runs[c->runs[i]];
        const rr_attr *a = rr_attr_get(&r->final, metric);
        if (is_done(r) && a && a->is_num) ss += (a->num - *mean) * (a->num - *mean);
    }
    *std = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    return n;
}

long report_curve(const rr_set *set, const rr_config *c, const char *group, const char *xcol, const char *ycol,
                  long max_points, report_band *out) {
    const rr_column **x = xcalloc((size_t)c->nruns + 1, sizeof *x, "curve"), **y = xcalloc((size_t)c->nruns + 1, sizeof *y, "curve");
    long len = 0, npts = 0;
    for (int i = 0; i < c->nruns; i++) {
        const rr_run *r = &set->runs[c->runs[i]];
        const rr_series *sr = !strcmp(group, "train") ? &r->train : &r->eval;
        x[i] = rr_column_get(sr, xcol), y[i] = rr_column_get(sr, ycol);
        if (!x[i] || !y[i]) x[i] = y[i] = NULL;
        else len = x[i]->n > len ? x[i]->n : len;
    }
    long bin = max_points > 0 ? (len + max_points - 1) / max_points : 1;
    if (bin < 1) bin = 1;
    size_t cap = (size_t)(len / bin + 2);
    out->x = xmalloc(cap * sizeof(double), "curve"), out->y = xmalloc(cap * sizeof(double), "curve");
    out->lo = xmalloc(cap * sizeof(double), "curve"), out->hi = xmalloc(cap * sizeof(double), "curve");
    out->n = xmalloc(cap * sizeof(int), "curve");
    double *vx = xcalloc((size_t)c->nruns + 1, sizeof(double), "curve"), *vy = xcalloc((size_t)c->nruns + 1, sizeof(double), "curve");
    for (long start = 0; start < len; start += bin) { // one bin: each run's mean over the rows it has
        int n = 0;
        for (int i = 0; i < c->nruns; i++) {
            double sx = 0, sy = 0;
            int k = 0;
            for (long j = start; j < start + bin && j < len; j++) {
                if (!x[i] || j >= x[i]->n || j >= y[i]->n || !isfinite(x[i]->v[j]) || !isfinite(y[i]->v[j])) continue;
                sx += x[i]->v[j], sy += y[i]->v[j], k++;
            }
            if (k) vx[n] = sx / k, vy[n++] = sy / k;
        }
        if (n == 0) continue;
        double mx = 0, my = 0, ss = 0;
        for (int i = 0; i < n; i++) mx += vx[i], my += vy[i]; // run order: the same sum every time
        mx /= n, my /= n;
        for (int i = 0; i < n; i++) ss += (vy[i] - my) * (vy[i] - my);
        double half = n > 1 ? sig_t_quantile(0.975, n - 1) * sqrt(ss / (n - 1) / n) : 0;
        out->x[npts] = mx, out->y[npts] = my, out->lo[npts] = my - half, out->hi[npts] = my + half, out->n[npts++] = n;
    }
    free(vx), free(vy), free(x), free(y);
    return npts;
}

void report_band_free(report_band *b) { free(b->x), free(b->y), free(b->lo), free(b->hi), free(b->n); }

double report_ci95_half(double std, int n) { return n > 1 ? sig_t_quantile(0.975, n - 1) * std / sqrt(n) : 0; }

