// bench/report/stats.c — the numbers behind every report cell, findings verdict and figure:
// how a metric is shown (header, scale, format, column order), mean and sample std of a
// configuration's /final metric over its done runs, and mean curves (rules in stats.h).
#include "stats.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Every /final metric that is not a seed's random outcome (stats.h). peak_mem_bytes is the
// process's peak RSS (allocator and library state vary between runs): sampled.
static const metric_nature metric_nature_table[] = {
    {"act_bytes", METRIC_EXACT, NULL},          // the activation arena of one step (model_activation_bytes)
    {"backend_peak_bytes", METRIC_EXACT, NULL}, // the backend's arena high-water mark
    {"params", METRIC_EXACT, NULL},
    {"flops_per_step", METRIC_EXACT, NULL},
    {"step_time_ms", METRIC_TIMED, "step_time_ms"}, // /final: the median of /train step_time_ms
};

metric_nature report_metric_nature(const char *metric) {
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(metric, "@"), metric);
    for (size_t i = 0; i < sizeof metric_nature_table / sizeof metric_nature_table[0]; i++)
        if (!strcmp(metric_nature_table[i].metric, name)) return metric_nature_table[i];
    return (metric_nature){metric, METRIC_SAMPLED, NULL};
}

metric_fmt report_metric_format(const char *full) {
    metric_fmt f = {"", 1.0, "%.4g", 0, 50};
    char name[96]; // per-size metrics "top1@40" are formatted as their base metric
    snprintf(name, sizeof name, "%.*s", (int)strcspn(full, "@"), full);
    snprintf(f.header, sizeof f.header, "%s", name);
    if (strchr(full, '@')) { // a column of a per-size table: its header is the size
        metric_fmt base = report_metric_format(name);
        snprintf(base.header, sizeof base.header, "%s px", strchr(full, '@') + 1);
        return base;
    }
    if (strstr(name, "top")) {
        snprintf(f.header, sizeof f.header, "%.80s (%%)", name);
        f.scale = 100.0, f.fmt = "%.2f";
        f.rank = !strcmp(name, "top1") ? 0 : !strcmp(name, "top5") ? 1 : !strcmp(name, "pos_top1") ? 2 : 3;
    } else if (!strcmp(name, "perplexity")) { // MLM: exp(mean loss over the chosen positions)
        f.fmt = "%.3f", f.rank = 0;
    } else if (!strcmp(name, "accuracy")) {   // MLM: argmax byte at the chosen positions
        snprintf(f.header, sizeof f.header, "accuracy (%%)");
        f.scale = 100.0, f.fmt = "%.2f", f.rank = 1;
    } else if (!strcmp(name, "loss")) {
        f.fmt = "%.4f", f.rank = 10;
    } else if (!strcmp(name, "params")) {
        snprintf(f.header, sizeof f.header, "params (M)");
        f.scale = 1e-6, f.fmt = "%.3f", f.mean_only = 1, f.rank = 90;
    } else if (!strcmp(name, "flops_per_step")) {
        snprintf(f.header, sizeof f.header, "GFLOP/step");
        f.scale = 1e-9, f.fmt = "%.3f", f.mean_only = 1, f.rank = 91;
    } else if (!strcmp(name, "train_time_s")) {
        snprintf(f.header, sizeof f.header, "train_time (s)");
        f.fmt = "%.1f", f.rank = 92;
    } else if (!strcmp(name, "images_per_s")) {
        snprintf(f.header, sizeof f.header, "images/s");
        f.fmt = "%.1f", f.rank = 93;
    } else if (!strcmp(name, "init_pe_to_content")) { // /init posenc_rms / content_rms (bench/train/train.c)
        snprintf(f.header, sizeof f.header, "PE/content RMS at init");
        f.fmt = "%.2f", f.rank = 79;
    } else if (!strcmp(name, "step_time_ms")) {
        snprintf(f.header, sizeof f.header, "step (ms)");
        f.fmt = "%.1f", f.rank = 80;
    } else if (!strcmp(name, "act_bytes")) {
        snprintf(f.header, sizeof f.header, "activations (MiB)");
        f.scale = 1.0 / 1048576.0, f.fmt = "%.1f", f.rank = 81;
    } else if (!strcmp(name, "backend_peak_bytes")) {
        snprintf(f.header, sizeof f.header, "backend mem (MiB)");
        f.scale = 1.0 / 1048576.0, f.fmt = "%.1f", f.rank = 82;
    } else if (!strcmp(name, "peak_mem_bytes")) {
        snprintf(f.header, sizeof f.header, "peak_mem (MiB)");
        f.scale = 1.0 / 1048576.0, f.fmt = "%.1f", f.rank = 94;
    }
    return f;
}

double report_metric_scale(const char *metric, char *header, size_t len) {
    metric_fmt f = report_metric_format(metric);
    snprintf(header, len, "%s", f.header);
    return f.scale;
}

void report_metric_text(const char *metric, double value, char *buf, size_t len) {
    metric_fmt f = report_metric_format(metric);
    snprintf(buf, len, f.fmt, value * f.scale);
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
                  long max_points, double **xs, double **ys) {
    const rr_column **x = xcalloc((size_t)c->nruns + 1, sizeof *x, "curve"), **y = xcalloc((size_t)c->nruns + 1, sizeof *y, "curve");
    long len = 0, out = 0;
    for (int i = 0; i < c->nruns; i++) {
        const rr_run *r = &set->runs[c->runs[i]];
        const rr_series *sr = !strcmp(group, "train") ? &r->train : &r->eval;
        x[i] = rr_column_get(sr, xcol), y[i] = rr_column_get(sr, ycol);
        if (!x[i] || !y[i]) x[i] = y[i] = NULL;
        else len = x[i]->n > len ? x[i]->n : len;
    }
    long bin = max_points > 0 ? (len + max_points - 1) / max_points : 1;
    *xs = xmalloc((size_t)(len / (bin ? bin : 1) + 2) * sizeof(double), "curve");
    *ys = xmalloc((size_t)(len / (bin ? bin : 1) + 2) * sizeof(double), "curve");
    double sx = 0, sy = 0;
    long nb = 0;
    for (long j = 0; j < len; j++) {
        double mx = 0, my = 0;
        int n = 0;
        for (int i = 0; i < c->nruns; i++) {
            if (!x[i] || j >= x[i]->n || j >= y[i]->n || !isfinite(x[i]->v[j]) || !isfinite(y[i]->v[j])) continue;
            mx += x[i]->v[j], my += y[i]->v[j], n++;
        }
        if (n) sx += mx / n, sy += my / n, nb++;
        if ((j + 1) % bin == 0 || j == len - 1) {
            if (nb) (*xs)[out] = sx / nb, (*ys)[out++] = sy / nb;
            sx = sy = 0, nb = 0;
        }
    }
    free(x), free(y);
    return out;
}

