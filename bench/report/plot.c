// bench/report/plot.c — `posbench plot DIR`: data files from the run files and gnuplot runs of
// plots/<kind>.gp giving PNG and SVG figures in DIR/figures/ (what is drawn: plot.h).
#include "plot.h"
#include "plot_internal.h"
#include "report_versions.h"
#include "../results/run_screen.h"
#include "gnuplot.h"
#include "stats.h"
#include "../results/results_read.h"
#include "../experiment/figure_kinds.h"
#include "../experiment/yaml_tree.h"
#include "../../core/common.h"
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { GRID_COLS = 8, CURVE_POINTS = 1000 };

FILE *plot_begin_figure(const plotter *p, const rr_stage *s, char *base, size_t blen, char *path, size_t plen, const char *fmt, ...) {
    int multi = p->set->nexperiments > 1 && s->experiment[0];
    int n = snprintf(base, blen, "%s%s%s_", multi ? s->experiment : "", multi ? "-" : "", s->name);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < blen) vsnprintf(base + n, blen - (size_t)n, fmt, ap);
    va_end(ap);
    gp_sanitize(base);
    snprintf(path, plen, "%s/figures/data/%s.dat", p->dir, base);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "posbench: error: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

int plot_close_data(FILE *f, const char *path) {
    if (fclose(f) != 0) {
        fprintf(stderr, "posbench: error: writing %s failed: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int plot_run_gnuplot(plotter *p, const char *kind, const char *base, gp_vars *v) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/figures", p->dir);
    int rc = gp_render(&p->tools, kind, dir, base, v);
    if (rc == 0) p->figures++;
    return rc;
}

// ---- metric vs axis -----------------------------------------------------------------

static int has_metric(const rr_set *set, const rr_stage *s, const char *metric) {
    for (int c = 0; c < s->nconfigs; c++) {
        double m, sd;
        if (report_stats(set, &s->configs[c], metric, &m, &sd) > 0) return 1;
    }
    return 0;
}

static int fig_metric_vs_axis(plotter *p, const rr_stage *s, const char *metric, int ax) {
    const rr_set *set = p->set;
    char base[600], path[PATH_MAX], header[96];
    double scale = report_metric_scale(metric, header, sizeof header);
    // distinct values of the axis, sorted (configs are sorted by axes in order, not by ax)
    const char **vals = xcalloc((size_t)s->nconfigs, sizeof(char *), "axis values");
    int nv = 0, categorical = 0;
    for (int c = 0; c < s->nconfigs; c++) {
        const char *v = s->configs[c].values[ax];
        int dup = 0;
        for (int k = 0; k < nv && !dup; k++) dup = !strcmp(vals[k], v);
        if (dup) continue;
        int k = nv++;
        for (; k > 0 && rr_value_cmp(vals[k - 1], v) > 0; k--) vals[k] = vals[k - 1];
        vals[k] = v;
        char *end;
        strtod(v, &end);
        if (!v[0] || *end) categorical = 1;
    }
    double lo = DBL_MAX, hi = -DBL_MAX;
    for (int k = 0; k < nv && !categorical; k++) lo = fmin(lo, atof(vals[k])), hi = fmax(hi, atof(vals[k]));
    int logx = !categorical && lo > 0 && hi / lo >= 100;
    // lines: assignments of the other axes, in configuration order
    int *line_of = xcalloc((size_t)s->nconfigs, sizeof(int), "lines");
    int nlines = 0;
    for (int c = 0; c < s->nconfigs; c++) {
        line_of[c] = -1;
        for (int d = 0; d < c && line_of[c] < 0; d++) {
            int same = 1;
            for (int a = 0; a < s->naxes && same; a++)
                same = a == ax || !strcmp(s->configs[c].values[a], s->configs[d].values[a]);
            if (same) line_of[c] = line_of[d];
        }
        if (line_of[c] < 0) line_of[c] = nlines++;
    }
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "metric_vs_axis_%s_vs_%s", metric, s->axes[ax]);
    if (!f) {
        free(vals), free(line_of);
        return EXIT_RUN_FAILED;
    }
    gp_vars v = {0};
    int written = 0;
    fprintf(f, "# %s of stage %s against %s: x mean std n label (mean, sample std over done seeds)\n", header, s->name, s->axes[ax]);
    for (int l = 0; l < nlines; l++) {
        char title[1024] = "";
        int points = 0;
        for (int k = 0; k < nv; k++)
            for (int c = 0; c < s->nconfigs; c++) {
                const rr_config *cf = &s->configs[c];
                if (line_of[c] != l || strcmp(cf->values[ax], vals[k])) continue;
                if (!title[0]) {
                    for (int a = 0; a < s->naxes; a++)
                        if (a != ax) snprintf(title + strlen(title), sizeof title - strlen(title), "%s%s=%s", title[0] ? ", " : "", s->axes[a], cf->values[a]);
                    if (!title[0]) snprintf(title, sizeof title, "%s", metric);
                }
                double mean, sd;
                int n = report_stats(set, cf, metric, &mean, &sd);
                if (n == 0) continue;
                if (points++ == 0 && written) fprintf(f, "\n\n");
                fprintf(f, "%.17g %.17g %.17g %d \"%s\"\n", categorical ? (double)k : atof(vals[k]), mean * scale, sd * scale, n, vals[k]);
            }
        if (points == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "title%d", ++written);
        gp_var_str(&v, name, title);
    }
    int rc = plot_close_data(f, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0 && written) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s vs %s (mean ± std over seeds)", s->name, header, s->axes[ax]);
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title), gp_var_str(&v, "xlabel", s->axes[ax]), gp_var_str(&v, "ylabel", header);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "categorical", "%d", categorical), gp_var(&v, "logx", "%d", logx);
        rc = plot_run_gnuplot(p, "metric_vs_axis", base, &v);
    } else if (rc == 0) {
        unlink(path);
    }
    gp_vars_free(&v);
    free(vals), free(line_of);
    return rc;
}

// ---- metric vs metric -----------------------------------------------------------------

// /final metric against another /final metric xmetric (figures `x: final.<name>`, e.g. gMLP
// Fig. 5's perplexity against parameter count): one point per configuration at the means of
// both over its done seeds (error bar: the metric's std), one line per value of model.arch
// when the stage sweeps it (else one line), each line's points in x order.
static int fig_metric_vs_metric(plotter *p, const rr_stage *s, const char *metric, const char *xmetric) {
    const rr_set *set = p->set;
    char base[600], path[PATH_MAX], header[96], xheader[96];
    double scale = report_metric_scale(metric, header, sizeof header), xscale = report_metric_scale(xmetric, xheader, sizeof xheader);
    int arch = -1;
    for (int a = 0; a < s->naxes; a++)
        if (!strcmp(s->axes[a], "model.arch")) arch = a;
    double *xs = xcalloc((size_t)s->nconfigs, sizeof(double), "x means");
    int *order = xcalloc((size_t)s->nconfigs, sizeof(int), "point order"), npoints = 0;
    double lo = DBL_MAX, hi = -DBL_MAX;
    for (int c = 0; c < s->nconfigs; c++) { // configurations with both metrics, sorted by x
        double xm, xsd, m, sd;
        if (report_stats(set, &s->configs[c], xmetric, &xm, &xsd) == 0 || report_stats(set, &s->configs[c], metric, &m, &sd) == 0)
            continue;
        xs[c] = xm * xscale, lo = fmin(lo, xs[c]), hi = fmax(hi, xs[c]);
        int k = npoints++;
        for (; k > 0 && xs[order[k - 1]] > xs[c]; k--) order[k] = order[k - 1];
        order[k] = c;
    }
    if (npoints == 0) {
        free(xs), free(order);
        return 0;
    }
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "metric_vs_metric_%s_vs_%s", metric, xmetric);
    if (!f) {
        free(xs), free(order);
        return EXIT_RUN_FAILED;
    }
    fprintf(f, "# %s of stage %s against %s: x mean std n label (means and sample std over done seeds)\n", header, s->name, xheader);
    gp_vars v = {0};
    int written = 0;
    for (int first = 0; first < npoints; first++) { // a line per model.arch value, in order of first appearance
        const char *line = arch >= 0 ? s->configs[order[first]].values[arch] : NULL;
        int seen = 0;
        for (int q = 0; q < first && !seen; q++) seen = line && !strcmp(s->configs[order[q]].values[arch], line);
        if (seen || (first > 0 && !line)) continue;
        if (written) fprintf(f, "\n\n");
        for (int q = first; q < npoints; q++) {
            const rr_config *cf = &s->configs[order[q]];
            if (line && strcmp(cf->values[arch], line)) continue;
            double m, sd;
            int n = report_stats(set, cf, metric, &m, &sd);
            fprintf(f, "%.17g %.17g %.17g %d \"%s\"\n", xs[order[q]], m * scale, sd * scale, n, cf->label);
        }
        char name[32], title[300];
        snprintf(name, sizeof name, "title%d", ++written);
        snprintf(title, sizeof title, "%s%s", line ? "model.arch=" : "", line ? line : header);
        gp_var_str(&v, name, title);
    }
    int rc = plot_close_data(f, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s vs %s (mean ± std over seeds)", s->name, header, xheader);
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title), gp_var_str(&v, "xlabel", xheader), gp_var_str(&v, "ylabel", header);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "categorical", "0"), gp_var(&v, "logx", "%d", lo > 0 && hi / lo >= 100);
        rc = plot_run_gnuplot(p, "metric_vs_axis", base, &v);
    }
    gp_vars_free(&v);
    free(xs), free(order);
    return rc;
}

// ---- curves -------------------------------------------------------------------------

// group "train" or "eval"; x and y column names.
static int fig_curves(plotter *p, const rr_stage *s, const char *group, const char *xcol, const char *ycol) {
    char base[600], path[PATH_MAX], header[96], ylabel[128];
    double scale = report_metric_scale(ycol, header, sizeof header);
    snprintf(ylabel, sizeof ylabel, "%s %s", group, header);
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "curves_%s_%s", group, ycol);
    if (!f) return EXIT_RUN_FAILED;
    fprintf(f, "# %s vs %s/%s of stage %s, one block per configuration (mean over seeds)\n", ylabel, group, xcol, s->name);
    gp_vars v = {0};
    int written = 0;
    long most = 0;
    for (int c = 0; c < s->nconfigs; c++) {
        double *x, *y;
        long n = report_curve(p->set, &s->configs[c], group, xcol, ycol, CURVE_POINTS, &x, &y);
        most = n > most ? n : most;
        if (n > 0) {
            fprintf(f, written ? "\n\n" : "");
            for (long j = 0; j < n; j++) fprintf(f, "%.17g %.17g\n", x[j], y[j] * scale);
            char name[32];
            snprintf(name, sizeof name, "title%d", ++written);
            gp_var_str(&v, name, s->configs[c].label);
        }
        free(x), free(y);
    }
    int rc = plot_close_data(f, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0 && written) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s (mean over seeds)", s->name, ylabel);
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title), gp_var_str(&v, "xlabel", xcol), gp_var_str(&v, "ylabel", ylabel);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "logy", "0"), gp_var(&v, "marks", "%d", most <= 60);
        rc = plot_run_gnuplot(p, "curves", base, &v);
    } else if (rc == 0) {
        unlink(path);
    }
    gp_vars_free(&v);
    return rc;
}

// ---- per-run result curves: /position (MP3 Fig. 3), /knn (Fig. 9), /resolution (CAPE Fig. 2-4)

// y = array `yname` of each run, x = array `xname` (NULL: 1, 2, ... — layers); one line per
// configuration, x and y each the mean over its runs that have the arrays. The figure is
// named after yname, plus "_vs_<last part of xname>" when `name_x` (two figures of one y);
// `logx` draws the x axis logarithmically.
static int fig_array_curves(plotter *p, const rr_stage *s, const char *yname, const char *xname, const char *xlabel,
                            int name_x, int logx) {
    const rr_set *set = p->set;
    int any_run = 0;
    for (int i = 0; i < s->nruns && !any_run; i++) any_run = rr_array_get(&set->runs[s->runs[i]].curves, yname) != NULL;
    if (!any_run) return 0;
    char base[600], path[PATH_MAX], header[96], tag[128];
    double scale = report_metric_scale(strrchr(yname, '/') + 1, header, sizeof header);
    if (name_x && xname) snprintf(tag, sizeof tag, "%s_vs_%s", yname, strrchr(xname, '/') ? strrchr(xname, '/') + 1 : xname);
    else snprintf(tag, sizeof tag, "%s", yname);
    for (char *q = tag; *q; q++) *q = *q == '/' ? '_' : *q;
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s", tag);
    if (!f) return EXIT_RUN_FAILED;
    fprintf(f, "# %s vs %s of stage %s, one block per configuration (mean over seeds)\n", yname, xname ? xname : "layer", s->name);
    gp_vars v = {0};
    int written = 0;
    for (int c = 0; c < s->nconfigs; c++) {
        const rr_config *cf = &s->configs[c];
        double sum[256] = {0}, xsum[256] = {0};
        int n = 0, runs = 0;
        for (int i = 0; i < cf->nruns; i++) {
            const rr_run *r = &set->runs[cf->runs[i]];
            const rr_array *y = rr_array_get(&r->curves, yname), *x = xname ? rr_array_get(&r->curves, xname) : NULL;
            if (!y || y->numel == 0 || y->numel > 256 || (xname && (!x || x->numel != y->numel)) || (runs && (int)y->numel != n)) continue;
            n = (int)y->numel;
            for (int k = 0; k < n; k++) sum[k] += y->data[k], xsum[k] += x ? x->data[k] : (double)(k + 1);
            runs++;
        }
        if (!runs) continue;
        fprintf(f, written ? "\n\n" : "");
        for (int k = 0; k < n; k++) fprintf(f, "%.9g %.17g\n", xsum[k] / runs, sum[k] / runs * scale);
        char name[32];
        snprintf(name, sizeof name, "title%d", ++written);
        gp_var_str(&v, name, cf->label);
    }
    int rc = plot_close_data(f, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0 && written) {
        char title[600], ylabel[160];
        snprintf(ylabel, sizeof ylabel, "%s %s", yname, header);
        snprintf(title, sizeof title, "%s: %s (mean over seeds)", s->name, ylabel);
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title), gp_var_str(&v, "xlabel", xlabel), gp_var_str(&v, "ylabel", ylabel);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "logy", "0"), gp_var(&v, "logx", "%d", logx), gp_var(&v, "marks", "1");
        rc = plot_run_gnuplot(p, "curves", base, &v);
    }
    gp_vars_free(&v);
    return rc;
}

static int fig_result_curves(plotter *p, const rr_stage *s) {
    int rc = fig_array_curves(p, s, "position/top1", "position/test_eta", "test masking ratio eta", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "position/top1_nonblank", "position/test_eta", "test masking ratio eta", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "knn/top1", NULL, "layer (block)", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "knn/init_top1", NULL, "layer (block), the network at its random initialisation", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "resolution/top1", "resolution/size", "evaluation image size (px)", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "resolution/tta_top1", "resolution/size", "evaluation image size (px)", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "resolution/images_per_s", "resolution/size", "evaluation image size (px)", 0, 0);
    // CAPE Fig. 4: accuracy against inference throughput, one point per evaluation size
    if (!rc) rc = fig_array_curves(p, s, "resolution/top1", "resolution/images_per_s", "throughput (images/s, forward only)", 1, 1);
    // CAPE's speech claims: keyword accuracy vs clip duration and vs playback rate
    if (!rc) rc = fig_array_curves(p, s, "speech_duration/top1", "speech_duration/seconds",
                                   "test clip duration (s), the keyword at a random offset in background noise", 0, 0);
    if (!rc) rc = fig_array_curves(p, s, "speech_rate/top1", "speech_rate/rate", "playback rate of the test clips (x)", 0, 0);
    return rc;
}

// ---- heatmaps -----------------------------------------------------------------------

// The lowest-seed run of configuration c with /attention/<name> (4-D), or -1.
static int run_with_attention(const rr_set *set, const rr_config *c, const char *name) {
    for (int i = 0; i < c->nruns; i++) {
        const rr_array *a = rr_array_get(&set->runs[c->runs[i]].attention, name);
        if (a && a->ndim == 4 && a->numel) return c->runs[i];
    }
    return -1;
}

static int fig_heatmaps(plotter *p, const rr_stage *s, const char *name) {
    const rr_set *set = p->set;
    double lo = DBL_MAX, hi = -DBL_MAX;
    for (int c = 0; c < s->nconfigs; c++) { // the shared colour range
        int r = run_with_attention(set, &s->configs[c], name);
        if (r < 0) continue;
        const rr_array *a = rr_array_get(&set->runs[r].attention, name);
        for (size_t i = 0; i < a->numel; i++)
            if (isfinite(a->data[i])) lo = fmin(lo, a->data[i]), hi = fmax(hi, a->data[i]);
    }
    if (lo > hi) lo = 0, hi = 1;
    if (lo == hi) hi = lo + 1;
    int relative = !strcmp(name, "relmap");
    for (int c = 0; c < s->nconfigs; c++) {
        int r = run_with_attention(set, &s->configs[c], name);
        if (r < 0) continue;
        const rr_run *run = &set->runs[r];
        const rr_array *a = rr_array_get(&run->attention, name);
        int L = a->dims[0], H = a->dims[1], ny = a->dims[2], nx = a->dims[3];
        int oy = relative ? (ny - 1) / 2 : 0, ox = relative ? (nx - 1) / 2 : 0;
        char base[700], path[PATH_MAX];
        FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "heatmap_%s_%s", name, rr_attr_text(&run->root, "run_id", "run"));
        if (!f) return EXIT_RUN_FAILED;
        fprintf(f, "# /attention/%s of %s, (L=%d, H=%d) blocks of x y value\n", name, run->path, L, H);
        for (int k = 0; k < L * H; k++) {
            if (k) fprintf(f, "\n\n");
            for (int i = 0; i < ny; i++) {
                for (int j = 0; j < nx; j++) fprintf(f, "%d %d %.9g\n", j - ox, i - oy, a->data[((size_t)k * ny + i) * nx + j]);
                if (i < ny - 1) fprintf(f, "\n");
            }
        }
        if (plot_close_data(f, path)) return EXIT_RUN_FAILED;
        gp_vars v = {0};
        char title[600], subtitle[1400];
        snprintf(title, sizeof title, "%s: /attention/%s (colour range shared across the stage)", s->name, name);
        snprintf(subtitle, sizeof subtitle, "%s, seed %ld", s->configs[c].label, rr_run_seed(run));
        int w = 130 * H + 160, h = 130 * L + 120;
        w = w < 560 ? 560 : w;
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title), gp_var_str(&v, "subtitle", subtitle);
        gp_var_str(&v, "xlabel", relative ? "Δcol" : "col"), gp_var_str(&v, "ylabel", relative ? "Δrow" : "row");
        gp_var(&v, "width", "%d", w > 4000 ? 4000 : w), gp_var(&v, "height", "%d", h > 4000 ? 4000 : h);
        gp_var(&v, "rows", "%d", L), gp_var(&v, "cols", "%d", H), gp_var(&v, "cbmin", "%.9g", lo), gp_var(&v, "cbmax", "%.9g", hi);
        gp_var(&v, "xmin", "%d", -ox), gp_var(&v, "xmax", "%d", nx - 1 - ox), gp_var(&v, "ymin", "%d", -oy), gp_var(&v, "ymax", "%d", ny - 1 - oy);
        int rc = plot_run_gnuplot(p, "heatmap", base, &v);
        gp_vars_free(&v);
        if (rc) return rc;
    }
    return 0;
}

// ---- gMLP's spatial weights ------------------------------------------------------------

// The lowest-seed run of configuration c with /spatial/W (L, T, T), or -1.
static int run_with_spatial(const rr_set *set, const rr_config *c) {
    for (int i = 0; i < c->nruns; i++) {
        const rr_array *a = rr_array_get(&set->runs[c->runs[i]].spatial, "W");
        if (a && a->ndim == 3 && a->dims[1] == a->dims[2] && a->numel) return c->runs[i];
    }
    return -1;
}

// gMLP Figs. 3 and 4: the learned spatial projection W of every block. On an image grid
// (rows > 1) the row of W of a few query tokens (top-left, top-centre, centre, bottom-right),
// reshaped to the grid: what each token gathers from where. On a sequence, W itself as an
// n x n map (query token down, key token across). Tokens before the grid (cls, t0) are left
// out. One figure per configuration, its own colour range (W's scale differs by model).
static int fig_spatial_weights(plotter *p, const rr_stage *s) {
    const rr_set *set = p->set;
    for (int c = 0; c < s->nconfigs; c++) {
        int r = run_with_spatial(set, &s->configs[c]);
        if (r < 0) continue;
        const rr_run *run = &set->runs[r];
        const rr_array *a = rr_array_get(&run->spatial, "W");
        int L = a->dims[0], T = a->dims[1];
        const rr_attr *ra = rr_attr_get(&run->spatial_attrs, "rows"), *ca = rr_attr_get(&run->spatial_attrs, "cols"),
                      *ta = rr_attr_get(&run->spatial_attrs, "t0");
        int t0 = ta && ta->is_num ? (int)ta->num : 0;
        int rows = ra && ra->is_num ? (int)ra->num : 1, cols = ca && ca->is_num ? (int)ca->num : T - t0;
        if (t0 < 0 || rows < 1 || cols < 1 || t0 + rows * cols != T) {
            fprintf(stderr, "posbench: warning: %s: /spatial/W is (%d, %d, %d) but its grid is %d x %d after %d tokens; left out\n",
                    run->path, L, T, T, rows, cols, t0);
            continue;
        }
        int grid = rows > 1, nq = grid ? 4 : 1;
        int query[4] = {0, cols / 2, (rows / 2) * cols + cols / 2, rows * cols - 1}; // grid tokens
        int ny = grid ? rows : cols, nx = cols;
        double lo = DBL_MAX, hi = -DBL_MAX;
        for (size_t i = 0; i < a->numel; i++)
            if (isfinite(a->data[i])) lo = fmin(lo, a->data[i]), hi = fmax(hi, a->data[i]);
        if (lo > hi) lo = 0, hi = 1;
        if (lo == hi) hi = lo + 1;
        char base[700], path[PATH_MAX];
        FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "spatial_weights_%s",
                               rr_attr_text(&run->root, "run_id", "run"));
        if (!f) return EXIT_RUN_FAILED;
        fprintf(f, "# /spatial/W of %s, (L=%d) x %d blocks of x y value\n", run->path, L, nq);
        for (int l = 0; l < L; l++)
            for (int q = 0; q < nq; q++) {
                if (l || q) fprintf(f, "\n\n");
                for (int y = 0; y < ny; y++) {
                    for (int x = 0; x < nx; x++) {
                        int i = t0 + (grid ? query[q] : y), j = t0 + (grid ? y * cols + x : x); // W row i, column j
                        fprintf(f, "%d %d %.9g\n", x, y, a->data[((size_t)l * T + i) * T + j]);
                    }
                    if (y < ny - 1) fprintf(f, "\n");
                }
            }
        if (plot_close_data(f, path)) return EXIT_RUN_FAILED;
        gp_vars v = {0};
        char title[600], subtitle[1400], names[256] = "";
        snprintf(title, sizeof title, "%s: /spatial/W, %s", s->name,
                 grid ? "the row of W of four query tokens, on the token grid" : "W (query token down, key token across)");
        snprintf(subtitle, sizeof subtitle, "%s, seed %ld", s->configs[c].label, rr_run_seed(run));
        if (grid)
            for (int q = 0; q < nq; q++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%sq(%d,%d)", q ? " " : "", query[q] / cols, query[q] % cols);
            }
        int panel = grid ? 130 : 300;
        int w = panel * nq + 160, h = panel * L + 120;
        w = w < 560 ? 560 : w;
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title), gp_var_str(&v, "subtitle", subtitle);
        gp_var_str(&v, "xlabel", grid ? "col" : "key token"), gp_var_str(&v, "ylabel", grid ? "row" : "query token");
        gp_var_str(&v, "colnames", grid ? names : "W");
        gp_var(&v, "width", "%d", w > 4000 ? 4000 : w), gp_var(&v, "height", "%d", h > 4000 ? 4000 : h);
        gp_var(&v, "rows", "%d", L), gp_var(&v, "cols", "%d", nq), gp_var(&v, "cbmin", "%.9g", lo), gp_var(&v, "cbmax", "%.9g", hi);
        gp_var(&v, "xmin", "0"), gp_var(&v, "xmax", "%d", nx - 1), gp_var(&v, "ymin", "0"), gp_var(&v, "ymax", "%d", ny - 1);
        int rc = plot_run_gnuplot(p, "heatmap", base, &v);
        gp_vars_free(&v);
        if (rc) return rc;
    }
    return 0;
}

// ---- image grids --------------------------------------------------------------------

typedef struct {
    int n, h, w, c;    // images, height, width, channels (1 or 3)
    int chw;           // 1: (N, C, H, W); 0: (N, H, W, C)
} image_shape;

static int image_layout(const rr_array *a, image_shape *s) {
    memset(s, 0, sizeof *s);
    s->c = 1;
    if (a->ndim == 2) s->n = 1, s->h = a->dims[0], s->w = a->dims[1];
    else if (a->ndim == 3) s->n = a->dims[0], s->h = a->dims[1], s->w = a->dims[2];
    else if (a->ndim == 4 && (a->dims[1] == 1 || a->dims[1] == 3)) s->n = a->dims[0], s->c = a->dims[1], s->h = a->dims[2], s->w = a->dims[3], s->chw = 1;
    else if (a->ndim == 4 && (a->dims[3] == 1 || a->dims[3] == 3)) s->n = a->dims[0], s->h = a->dims[1], s->w = a->dims[2], s->c = a->dims[3];
    else return -1;
    return s->n > 0 && s->h > 0 && s->w > 0 ? 0 : -1;
}

static float pixel(const rr_array *a, const image_shape *s, int img, int y, int x, int ch) {
    size_t i = s->chw ? (((size_t)img * s->c + ch) * s->h + y) * s->w + x : (((size_t)img * s->h + y) * s->w + x) * s->c + ch;
    return a->data[i];
}

// One row of an image grid: a /samples dataset of a run, its shape and its row label.
typedef struct {
    const rr_array *a;
    image_shape sh;
    char label[320];
} grid_row;

const rr_run *plot_companion_run(const rr_set *set, const rr_stage *s, const char *name, const rr_run *main, const char *where,
                                 int (*has)(const rr_run *r), const char *kind, const char *what) {
    const rr_stage *o = NULL;
    for (int i = 0; i < set->nstages && !o; i++)
        if (!strcmp(set->stages[i].name, name) && !strcmp(set->stages[i].experiment, s->experiment)) o = &set->stages[i];
    const rr_run *any_run = NULL;
    for (int c = 0; o && c < o->nconfigs; c++)
        for (int i = 0; i < o->configs[c].nruns; i++) {
            const rr_run *r = &set->runs[o->configs[c].runs[i]];
            if (!has(r)) continue;
            if (rr_run_seed(r) == rr_run_seed(main)) return r;
            if (!any_run) any_run = r;
        }
    if (!any_run)
        fprintf(stderr, "posbench: warning: %s: %s of stage %s: no done run of stage %s has %s; drawn without it\n",
                where, kind, s->name, name, what);
    return any_run;
}

int plot_split_with(const char *with, char names[PLOT_MAX_WITH][256]) {
    int n = 0;
    for (const char *w = with; w && *w && n < PLOT_MAX_WITH;) {
        size_t len = strcspn(w, ",");
        if (len > 0 && len < 256) snprintf(names[n++], 256, "%.*s", (int)len, w);
        w += len + (w[len] == ',');
    }
    return n;
}

void plot_write_rgb(FILE *f, const unsigned char *rgb, int W, int H) {
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const unsigned char *px = rgb + ((size_t)y * W + x) * 3;
            fprintf(f, "%d %d %d %d %d\n", x, H - 1 - y, px[0], px[1], px[2]);
        }
        fprintf(f, "\n");
    }
}

static int has_samples(const rr_run *r) { return r->samples.n > 0; }

// Appends run's /samples datasets as rows (labelled "<stage>: <name>" when prefix is set),
// "original" first, the others in name order; a dataset equal to a row already there (the
// same original images) is drawn once.
static void add_grid_rows(grid_row *rows, int *n, const rr_run *run, const char *prefix) {
    for (int i = 0; i < 2 * run->samples.n; i++) {
        int k = i % run->samples.n, first_pass = i < run->samples.n;
        const rr_array *a = &run->samples.items[k];
        if (first_pass != !strcmp(a->name, "original")) continue;
        grid_row *r = &rows[*n];
        if (image_layout(a, &r->sh) < 0) {
            fprintf(stderr, "posbench: warning: %s: /samples/%s is not an image set (see posbench plot --help); left out\n", run->path, a->name);
            continue;
        }
        int seen = 0;
        for (int j = 0; j < *n && !seen; j++)
            seen = rows[j].a->numel == a->numel && rows[j].a->ndim == a->ndim &&
                   !memcmp(rows[j].a->dims, a->dims, sizeof a->dims) && !memcmp(rows[j].a->data, a->data, a->numel * sizeof *a->data);
        if (seen) continue;
        r->a = a;
        snprintf(r->label, sizeof r->label, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", a->name);
        (*n)++;
    }
}

// with: "" or a comma-separated list of other stages whose runs' rows are drawn under this
// stage's (YAML `with:`; an old figures.tsv's axis field of an image_grid line).
static int fig_image_grid(plotter *p, const rr_stage *s, const char *with, const char *where) {
    const rr_set *set = p->set;
    char others[PLOT_MAX_WITH][256];
    int nothers = plot_split_with(with, others);
    for (int c = 0; c < s->nconfigs; c++) {
        const rr_run *run = NULL, *companions[PLOT_MAX_WITH];
        const char *comp_names[PLOT_MAX_WITH];
        for (int i = 0; i < s->configs[c].nruns && !run; i++)
            if (set->runs[s->configs[c].runs[i]].samples.n) run = &set->runs[s->configs[c].runs[i]];
        if (!run) continue;
        int total = run->samples.n, ncomp = 0;
        for (int o = 0; o < nothers; o++)
            if ((companions[ncomp] = plot_companion_run(set, s, others[o], run, where, has_samples, "image_grid", "/samples"))) comp_names[ncomp] = others[o], total += companions[ncomp++]->samples.n;
        grid_row *rows = xcalloc((size_t)total, sizeof *rows, "image grid rows");
        int nrows = 0;
        add_grid_rows(rows, &nrows, run, ncomp ? s->name : NULL);
        for (int o = 0; o < ncomp; o++) add_grid_rows(rows, &nrows, companions[o], comp_names[o]);
        if (nrows == 0) {
            free(rows);
            continue;
        }
        int cols = 0, ch = 0, cw = 0;
        double lo = DBL_MAX, hi = -DBL_MAX;
        for (int k = 0; k < nrows; k++) {
            const image_shape *sh = &rows[k].sh;
            cols = sh->n < GRID_COLS ? (sh->n > cols ? sh->n : cols) : GRID_COLS;
            ch = sh->h > ch ? sh->h : ch, cw = sh->w > cw ? sh->w : cw;
            for (size_t i = 0; i < rows[k].a->numel; i++)
                if (isfinite(rows[k].a->data[i])) lo = fmin(lo, rows[k].a->data[i]), hi = fmax(hi, rows[k].a->data[i]);
        }
        if (!(hi > lo)) hi = lo + 1;
        char base[900], path[PATH_MAX], suffix[600] = "";
        for (int o = 0; o < ncomp; o++)
            snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "%s%s", o ? "_" : "_with_", comp_names[o]);
        FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "image_grid_%s%s", rr_attr_text(&run->root, "run_id", "run"), suffix);
        if (!f) {
            free(rows);
            return EXIT_RUN_FAILED;
        }
        int W = cols * (cw + GAP) - GAP, Ht = nrows * (ch + GAP) - GAP;
        unsigned char *rgb = xmalloc((size_t)W * Ht * 3, "image grid");
        memset(rgb, 255, (size_t)W * Ht * 3);
        gp_vars v = {0};
        for (int row = 0; row < nrows; row++) {
            const image_shape *sh = &rows[row].sh;
            for (int img = 0; img < sh->n && img < GRID_COLS; img++)
                for (int y = 0; y < sh->h; y++)
                    for (int x = 0; x < sh->w; x++)
                        for (int q = 0; q < 3; q++) {
                            float val = pixel(rows[row].a, sh, img, y, x, sh->c == 3 ? q : 0);
                            int byte = isfinite(val) ? (int)lround(255.0 * (val - lo) / (hi - lo)) : 128;
                            size_t at = ((size_t)(row * (ch + GAP) + y) * W + (size_t)img * (cw + GAP) + x) * 3 + q;
                            rgb[at] = (unsigned char)(byte < 0 ? 0 : byte > 255 ? 255 : byte);
                        }
            char name[32];
            snprintf(name, sizeof name, "label%d", row + 1);
            gp_var_str(&v, name, rows[row].label);
            snprintf(name, sizeof name, "ypos%d", row + 1);
            gp_var(&v, name, "%.1f", Ht - 1 - (row * (ch + GAP) + (ch - 1) / 2.0));
        }
        fprintf(f, "# /samples of %s", run->path);
        for (int o = 0; o < ncomp; o++) fprintf(f, " and %s", companions[o]->path);
        fprintf(f, ": x y r g b, %d rows of up to %d images, value range [%g, %g] -> 0..255\n", nrows, GRID_COLS, lo, hi);
        plot_write_rgb(f, rgb, W, Ht);
        free(rgb), free(rows);
        if (plot_close_data(f, path)) {
            gp_vars_free(&v);
            return EXIT_RUN_FAILED;
        }
        int zoom = 720 / (W > 0 ? W : 1);
        zoom = zoom < 1 ? 1 : zoom > 12 ? 12 : zoom;
        char title[1400], stages[700] = "";
        for (int o = 0; o < ncomp; o++)
            snprintf(stages + strlen(stages), sizeof stages - strlen(stages), ", %s", comp_names[o]);
        snprintf(title, sizeof title, "%s%s: /samples, %s, seed %ld", s->name, stages, s->configs[c].label, rr_run_seed(run));
        gp_var_str(&v, "datafile", path), gp_var_str(&v, "title", title);
        gp_var(&v, "nrows", "%d", nrows), gp_var(&v, "width", "%d", W * zoom + 260), gp_var(&v, "height", "%d", Ht * zoom + 90);
        int rc = plot_run_gnuplot(p, "image_grid", base, &v);
        gp_vars_free(&v);
        if (rc) return rc;
    }
    return 0;
}

// ---- which figures ------------------------------------------------------------------
// A stage's figures come from the `figures:` list of the experiment file `posbench run` keeps
// in DIR/<experiment>/experiment.yaml, checked by the figure-kind registry
// (bench/experiment/figure_kinds.h); results folders written before issue 28 have a
// figures.tsv there (or in DIR) instead, read once here; without either, every kind.

static int any(const char *s) { return !s[0] || !strcmp(s, "*"); }

static void add_spec(figure_spec **out, int *n, const figure_spec *f) {
    *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out, "figures");
    (*out)[(*n)++] = *f;
}

// The `figures:` list of the experiment file copy at path into *out (*found 0, nothing read,
// when the file or its list is absent). -1 with err ("path:line:col: figures: ...").
static int load_yaml_requests(const char *path, figure_spec **out, int *n, int *found, char *err, size_t errlen) {
    *out = NULL, *n = 0, *found = 0;
    if (access(path, F_OK) != 0) return 0;
    ynode *root = NULL;
    if (ytree_load(path, &root, err, errlen) != 0) return -1;
    const ynode *list = ytree_get(root, "figures", NULL);
    int rc = 0;
    if (list && !ytree_is_null(list)) {
        *found = 1;
        if (list->kind != YT_SEQ) {
            snprintf(err, errlen, "%s:%d:%d: figures: expected a list of mappings, each with a kind", path, list->line, list->col);
            rc = -1;
        }
        for (int i = 0; rc == 0 && i < list->n; i++) {
            figure_spec f;
            rc = figure_spec_check(path, list->val[i], &f, err, errlen);
            if (rc == 0) add_spec(out, n, &f);
        }
    }
    ytree_free(root);
    if (rc) free(*out), *out = NULL, *n = 0;
    return rc;
}

// An old results folder's DIR/figures.tsv (kind<TAB>stage<TAB>metric<TAB>axis) into *out
// (*found 0 when absent). -1 with err on a malformed line.
static int load_tsv_requests(const char *dir, figure_spec **out, int *n, int *found, char *err, size_t errlen) {
    *out = NULL, *n = 0, *found = 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/figures.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    *found = 1;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#' || (lineno == 1 && !strncmp(line, "kind\t", 5))) continue;
        char *field[5] = {0}, *rest = line;
        int nf = 0;
        while (nf < 5 && (field[nf] = strsep(&rest, "\t"))) nf++;
        int id = figure_kind_find(field[0]);
        if (nf > 4 || id < 0) {
            snprintf(err, errlen, "%s:%d: %s (lines: kind<TAB>stage<TAB>metric<TAB>axis; kinds: %s)", path, lineno,
                     nf > 4 ? "more than 4 tab-separated fields" : "unknown figure kind", figure_kind_names());
            free(line), fclose(f), free(*out);
            *out = NULL, *n = 0;
            return -1;
        }
        figure_spec r;
        memset(&r, 0, sizeof r);
        r.kind = (figure_kind_id)id;
        snprintf(r.stage, sizeof r.stage, "%s", nf > 1 && !any(field[1]) ? field[1] : "");
        snprintf(r.metric, sizeof r.metric, "%s", nf > 2 && !any(field[2]) ? field[2] : "");
        snprintf(r.axis, sizeof r.axis, "%s", nf > 3 && !any(field[3]) ? field[3] : "");
        snprintf(r.where, sizeof r.where, "%.300s:%d", path, lineno);
        add_spec(out, n, &r);
    }
    free(line);
    fclose(f);
    return 0;
}

// One drawing function per figure kind, named after it (FIGURE_KINDS).
static int draw_metric_vs_axis(plotter *p, const rr_stage *s, const figure_spec *r) {
    const char *metric = r->metric[0] ? r->metric : "top1";
    if (!has_metric(p->set, s, metric)) {
        if (r->where[0]) fprintf(stderr, "posbench: warning: %s: no done run of stage %s has /final %s\n", r->where, s->name, metric);
        return 0;
    }
    if (!strncmp(r->axis, "final.", 6)) return fig_metric_vs_metric(p, s, metric, r->axis + 6);
    int found = 0;
    for (int a = 0; a < s->naxes; a++) {
        if (r->axis[0] && strcmp(r->axis, s->axes[a])) continue;
        found = 1;
        int rc = fig_metric_vs_axis(p, s, metric, a);
        if (rc) return rc;
    }
    if (!found && r->where[0] && r->axis[0])
        fprintf(stderr, "posbench: warning: %s: %s does not vary in stage %s\n", r->where, r->axis, s->name);
    return 0;
}

static int draw_curves(plotter *p, const rr_stage *s, const figure_spec *r) {
    if (!r->metric[0]) {
        int rc = fig_curves(p, s, "train", "step", "loss");
        return rc ? rc : fig_curves(p, s, "eval", "epoch", "top1");
    }
    char group[256];
    snprintf(group, sizeof group, "%s", r->metric);
    char *col = strpbrk(group, "/.");
    if (!col || (strncmp(group, "train", 5) && strncmp(group, "eval", 4))) {
        fprintf(stderr, "posbench: warning: %s: curves want train/<column> or eval/<column>, not %s\n", r->where, r->metric);
        return 0;
    }
    *col++ = '\0';
    return fig_curves(p, s, group, !strcmp(group, "train") ? "step" : "epoch", col);
}

static int draw_heatmap(plotter *p, const rr_stage *s, const figure_spec *r) {
    return fig_heatmaps(p, s, r->metric[0] ? r->metric : "relmap");
}
static int draw_image_grid(plotter *p, const rr_stage *s, const figure_spec *r) { return fig_image_grid(p, s, r->axis, r->where); }
static int draw_result_curves(plotter *p, const rr_stage *s, const figure_spec *r) { (void)r; return fig_result_curves(p, s); }
static int draw_spatial_weights(plotter *p, const rr_stage *s, const figure_spec *r) { (void)r; return fig_spatial_weights(p, s); }
static int draw_cls_attention(plotter *p, const rr_stage *s, const figure_spec *r) { return fig_cls_attention(p, s, r->axis, r->where); }
static int draw_key_pca(plotter *p, const rr_stage *s, const figure_spec *r) { return fig_key_pca(p, s, r->axis, r->where); }

typedef int (*draw_fn)(plotter *p, const rr_stage *s, const figure_spec *r);
#define FIGURE_DRAW_(name, keys, help) draw_##name,
static const draw_fn draws[FIGURE_KIND_COUNT] = {FIGURE_KINDS(FIGURE_DRAW_)};
#undef FIGURE_DRAW_

// ---- the command --------------------------------------------------------------------

void plot_help(void) {
    printf("usage: posbench plot DIR [--only KIND]\n"
           "Writes figures of the run files (*.h5) below DIR to DIR/figures/ as PNG and SVG, and the\n"
           "data behind each to DIR/figures/data/*.dat, running gnuplot on plots/<KIND>.gp.\n"
           "KIND: metric_vs_axis (final top1 vs each swept key, error bars over seeds), curves (train\n"
           "loss and eval top1 over training), heatmap (attention maps per layer and head), image_grid\n"
           "(/samples), result_curves (per-run arrays: /position top-1 vs test eta, /knn top-1 vs layer,\n"
           "/resolution top-1, TTA top-1 and images/s vs evaluation image size, top-1 vs images/s),\n"
           "spatial_weights (gMLP/aMLP /spatial/W per block: four query tokens' rows on the token grid of\n"
           "an image, the n x n matrix of a sequence), cls_attention (/views: each view image, then the last\n"
           "block's [CLS] attention per head), key_pca (/views: the PCA of the keys per block as RGB, shallow\n"
           "to deep; both: rows = methods, other stages with `with:`).\n"
           "The figures: list of DIR/<experiment>/experiment.yaml (the copy posbench run keeps) selects a\n"
           "stage's figures (results folders from before it: figures.tsv there or in DIR); else every kind.\n"
           "  --only KIND   make only figures of this kind\n"
           "Needs gnuplot (Debian package gnuplot-nox). Exit status: 0 ok, 1 gnuplot failed, 2 bad input.\n");
}

int cmd_plot(int argc, char **argv) {
    const char *dir = NULL, *only_name = NULL;
    int only = -1;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            plot_help();
            return 0;
        } else if (!strcmp(argv[i], "--only")) {
            only_name = i + 1 < argc ? argv[++i] : "";
            only = figure_kind_find(only_name);
            if (only < 0) {
                fprintf(stderr, "posbench: error: --only '%s' is not a figure kind (valid: %s)\n", only_name, figure_kind_names());
                return EXIT_BAD_INPUT;
            }
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "posbench: error: unexpected argument '%s' for posbench plot (usage: posbench plot DIR [--only KIND])\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "posbench: error: posbench plot needs a results directory (usage: posbench plot DIR [--only KIND])\n");
        return EXIT_BAD_INPUT;
    }
    plotter p = {.dir = dir};
    char err[4400];
    if (gp_find(&p.tools, err, sizeof err) != 0) {
        fprintf(stderr, "posbench: error: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    rr_set set;
    if (rr_scan(dir, RR_SERIES | RR_ARRAYS, &set, err, sizeof err) != 0) {
        fprintf(stderr, "posbench: error: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    p.set = &set;
    rr_screen(&set);                    // damaged /final and second files of a run: left out
    report_current_versions(&set, dir); // runs of earlier versions of an experiment are not drawn
    report_metrics_from(&set); // units, scales and natures from the files
    for (int i = 0; i < set.nskipped; i++) fprintf(stderr, "posbench: warning: left out %s\n", set.skipped[i]);
    free(report_left_markdown(&set, 1)); // warnings: damaged /final, duplicates, earlier versions
    figure_spec *reqs = NULL;
    int nreq = 0, rc = 0, found = 0;
    if (set.nruns == 0) {
        fprintf(stderr, "posbench: error: no finished runs under %s (no readable *.h5 files)\n", dir);
        rc = EXIT_BAD_INPUT;
    } else { // DIR's own: DIR/experiment.yaml (DIR is an experiment's folder), else an old DIR/figures.tsv
        char copy[PATH_MAX + 20];
        snprintf(copy, sizeof copy, "%s/experiment.yaml", dir);
        if (load_yaml_requests(copy, &reqs, &nreq, &found, err, sizeof err) != 0 ||
            (!found && load_tsv_requests(dir, &reqs, &nreq, &found, err, sizeof err) != 0)) {
            fprintf(stderr, "posbench: error: %s\n", err);
            rc = EXIT_BAD_INPUT;
        }
    }
    char fig[PATH_MAX], data[PATH_MAX + 8];
    snprintf(fig, sizeof fig, "%s/figures", dir);
    snprintf(data, sizeof data, "%s/data", fig);
    if (rc == 0 && (gp_make_dir(fig) || gp_make_dir(data))) rc = EXIT_RUN_FAILED;
    figure_spec defaults[FIGURE_KIND_COUNT];
    memset(defaults, 0, sizeof defaults);
    for (int k = 0; k < FIGURE_KIND_COUNT; k++) defaults[k].kind = (figure_kind_id)k;
    for (int s = 0; s < set.nstages && rc == 0; s++) {
        // A stage's figures: the `figures:` of DIR/<experiment>/experiment.yaml (the copy
        // `posbench run` keeps), else an old DIR/<experiment>/figures.tsv, else DIR/figures.tsv,
        // else every kind.
        figure_spec *own = NULL;
        int nown = 0, has_own = 0;
        if (set.stages[s].experiment[0]) {
            char edir[PATH_MAX], copy[PATH_MAX + 20];
            snprintf(edir, sizeof edir, "%s/%s", dir, set.stages[s].experiment);
            snprintf(copy, sizeof copy, "%s/experiment.yaml", edir);
            if (load_yaml_requests(copy, &own, &nown, &has_own, err, sizeof err) != 0 ||
                (!has_own && load_tsv_requests(edir, &own, &nown, &has_own, err, sizeof err) != 0)) {
                fprintf(stderr, "posbench: error: %s\n", err);
                rc = EXIT_BAD_INPUT;
                break;
            }
        }
        const figure_spec *list = has_own ? own : found ? reqs : defaults;
        int count = has_own ? nown : found ? nreq : FIGURE_KIND_COUNT;
        for (int r = 0; r < count && rc == 0; r++) {
            if (only >= 0 && (int)list[r].kind != only) continue;
            if (list[r].stage[0] && strcmp(list[r].stage, set.stages[s].name)) continue;
            rc = draws[list[r].kind](&p, &set.stages[s], &list[r]);
        }
        free(own);
    }
    if (rc == 0) {
        if (p.figures) printf("%d figure%s in %s (PNG and SVG; data in %s)\n", p.figures, p.figures == 1 ? "" : "s", fig, data);
        else printf("no figures to make%s%s under %s\n", only_name ? " of kind " : "", only_name ? only_name : "", dir);
    }
    free(reqs);
    rr_set_free(&set);
    return rc;
}
