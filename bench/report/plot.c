// bench/report/plot.c — `posbench plot DIR`: data files from the run files and gnuplot runs of
// plots/<kind>.gp giving PNG and SVG figures in DIR/figures/ (what is drawn: plot.h).
#include "plot.h"
#include "plot_internal.h"
#include "run_select.h"
#include "../../core/visible_text.h"
#include "gnuplot.h"
#include "stats.h"
#include "../results/results_read.h"
#include "../experiment/figure_kinds.h"
#include "../experiment/yaml_tree.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Which axes only follow axis ax (one value of ax always comes with one value of them: a parent
// stage's copy of the key, e.g. pretrain.model.patch beside model.patch): 1 in follows[a]. They
// split nothing off the x axis (no series of one point each) and are not named in legends.
static void follower_axes(const rr_stage *s, int ax, int *follows) {
    for (int a = 0; a < s->naxes; a++) {
        follows[a] = a != ax;
        for (int c = 0; c < s->nconfigs && follows[a]; c++)
            for (int d = 0; d < c && follows[a]; d++)
                if (!strcmp(s->configs[c].values[ax], s->configs[d].values[ax]))
                    follows[a] = !strcmp(s->configs[c].values[a], s->configs[d].values[a]);
    }
}

// ---- metric vs axis -----------------------------------------------------------------

static int has_metric(const rr_set *set, const rr_stage *s, const char *metric) {
    for (int c = 0; c < s->nconfigs; c++) {
        double m, sd;
        if (report_stats(set, &s->configs[c], metric, &m, &sd) > 0) return 1;
    }
    return 0;
}

// The series' horizontal offsets, so their error bars do not overlap: series i of nlines is moved
// by (i - (nlines - 1) / 2) * step (categorical: step in category widths; numeric: a share of
// the smallest gap between x values, or a factor on a log axis).
static double offset_x(double x, int i, int nlines, int categorical, int logx, double gap) {
    double k = i - (nlines - 1) / 2.0;
    if (nlines < 2) return x;
    if (categorical) return x + k * fmin(0.12, 0.6 / nlines);
    if (logx) return x * pow(1.0 + fmin(0.04, 0.25 / nlines), k);
    return x + k * gap * fmin(0.05, 0.3 / nlines);
}

// Writes the x tics ("('abs' 0, 'sin2d' 1)": a category's index, a number's value) and the y
// range (y_range_vars).
static void axis_vars(gp_vars *v, const char *const *vals, int nv, int categorical, const char *unit, double ylo, double yhi) {
    size_t len = 16;
    for (int k = 0; k < nv; k++) len += 2 * strlen(vals[k]) + 48;
    char *tics = xcalloc(len, 1, "tics");
    strcat(tics, "(");
    for (int k = 0; k < nv; k++) {
        char *t = tics + strlen(tics);
        *t++ = k ? ',' : ' ', *t++ = '"';
        for (const char *c = vals[k]; *c; c++) { // a gnuplot double-quoted string
            if (*c == '"' || *c == '\\') *t++ = '\\';
            *t++ = *c;
        }
        if (categorical) sprintf(t, "\" %d", k);
        else sprintf(t, "\" %.17g", atof(vals[k]));
    }
    strcat(tics, ")");
    gp_var_str(v, "xtics", tics);
    free(tics);
    if (categorical) gp_var(v, "xmin", "%.3f", -0.5), gp_var(v, "xmax", "%.3f", nv - 0.5);
    else if (nv == 1) gp_var(v, "xmin", "%.17g", atof(vals[0]) - fmax(1, fabs(atof(vals[0])) * 0.5)),
        gp_var(v, "xmax", "%.17g", atof(vals[0]) + fmax(1, fabs(atof(vals[0])) * 0.5));
    plot_y_range_vars(v, unit, ylo, yhi, NULL, 0);
}

// A metric's axis label: its column name (metric_column_name: "top1 (%)", for a per-size metric
// "top1 (%) at 56 px"), the same as the report's and export's.
static double metric_label(const char *metric, char *header, size_t len) {
    double scale = report_metric_scale(metric, header, len); // the per-size metric's own scale
    const char *at = strchr(metric, '@');
    if (!at) return scale;
    char base[128], head[96];
    snprintf(base, sizeof base, "%.*s", (int)(at - metric), metric);
    report_metric_scale(base, head, sizeof head);
    snprintf(header, len, "%.60s at %.20s px", head, at + 1); // fits the callers' 96 bytes
    return scale;
}

static int fig_metric_vs_axis(plotter *p, const rr_stage *s, const char *metric, int ax) {
    const rr_set *set = p->set;
    char base[600], path[PATH_MAX], header[96], axis_name[256];
    double scale = metric_label(metric, header, sizeof header);
    const char *unit = report_metric_unit(metric);
    plot_short_key(s, ax, axis_name, sizeof axis_name);
    // distinct values of the axis, sorted (configs are sorted by axes in order, not by ax)
    const char **vals = xcalloc((size_t)s->nconfigs, sizeof(char *), "axis values");
    int nv = 0, categorical = 0, integers = 1;
    for (int c = 0; c < s->nconfigs; c++) {
        const char *v = s->configs[c].values[ax];
        int dup = 0;
        for (int k = 0; k < nv && !dup; k++) dup = !strcmp(vals[k], v);
        if (dup) continue;
        int k = nv++;
        for (; k > 0 && rr_value_cmp(vals[k - 1], v) > 0; k--) vals[k] = vals[k - 1];
        vals[k] = v;
        char *end;
        double x = strtod(v, &end);
        if (!v[0] || *end) categorical = 1;
        else if (x != floor(x)) integers = 0;
    }
    // a few whole numbers (patch size, width, depth) are categories too: no line through 4.5
    if (!categorical && integers && nv <= 5) categorical = 1;
    double lo = DBL_MAX, hi = -DBL_MAX, gap = DBL_MAX;
    for (int k = 0; k < nv && !categorical; k++) {
        lo = fmin(lo, atof(vals[k])), hi = fmax(hi, atof(vals[k]));
        if (k) gap = fmin(gap, atof(vals[k]) - atof(vals[k - 1]));
    }
    if (gap == DBL_MAX || gap <= 0) gap = 1;
    int logx = !categorical && lo > 0 && hi / lo >= 100;
    // lines: assignments of the other axes (those that only follow the x axis aside), in configuration order
    int *line_of = xcalloc((size_t)s->nconfigs, sizeof(int), "lines"), *follows = xcalloc((size_t)s->naxes + 1, sizeof(int), "axes");
    follower_axes(s, ax, follows);
    int nlines = 0, others = 0;
    for (int a = 0; a < s->naxes; a++) others += a != ax && !follows[a];
    for (int c = 0; c < s->nconfigs; c++) {
        line_of[c] = -1;
        for (int d = 0; d < c && line_of[c] < 0; d++) {
            int same = 1;
            for (int a = 0; a < s->naxes && same; a++)
                same = a == ax || follows[a] || !strcmp(s->configs[c].values[a], s->configs[d].values[a]);
            if (same) line_of[c] = line_of[d];
        }
        if (line_of[c] < 0) line_of[c] = nlines++;
    }
    char mname[256];
    snprintf(mname, sizeof mname, "%s", metric);
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s-vs-%s", mname, axis_name);
    if (!f) {
        free(vals), free(line_of), free(follows);
        return EXIT_RUN_FAILED;
    }
    gp_vars v = {0};
    int written = 0, nmax_all = 0;
    double ylo = DBL_MAX, yhi = -DBL_MAX;
    gp_comment(f, "%s of stage %s against %s: plotted-x mean ci95-lo ci95-hi n label (mean over the done seeds, "
                  "95%% CI of the mean: Student t, n-1 df; lo = hi = mean when n = 1%s)", header, s->name, s->axes[ax],
               plot_is_percent(unit) ? "; the CI clipped to [0, 100]" : "");
    for (int l = 0; l < nlines; l++) {
        char title[1024] = "";
        int points = 0, nmin = INT_MAX, nmax = 0;
        for (int k = 0; k < nv; k++)
            for (int c = 0; c < s->nconfigs; c++) {
                const rr_config *cf = &s->configs[c];
                if (line_of[c] != l || strcmp(cf->values[ax], vals[k])) continue;
                if (!title[0]) {
                    if (others) plot_config_legend_hiding(p, s, cf, ax, follows, title, sizeof title);
                    else snprintf(title, sizeof title, "%s", header);
                }
                double mean, sd;
                int n = report_stats(set, cf, metric, &mean, &sd);
                if (n == 0) continue;
                if (points++ == 0 && written) fprintf(f, "\n\n");
                double half = report_ci95_half(sd, n) * fabs(scale), m = mean * scale;
                double x = offset_x(categorical ? (double)k : atof(vals[k]), written, nlines, categorical, logx, gap);
                double lo = plot_clip_bound(unit, m - half), hi = plot_clip_bound(unit, m + half);
                fprintf(f, "%.17g %.17g %.17g %.17g %d ", x, m, lo, hi, n);
                gp_data_string(f, vals[k]), fputc('\n', f); // no value adds a point (gnuplot.h)
                ylo = fmin(ylo, lo), yhi = fmax(yhi, hi);
                nmin = n < nmin ? n : nmin, nmax = n > nmax ? n : nmax;
                nmax_all = n > nmax_all ? n : nmax_all;
            }
        if (points == 0) continue;
        char name[32], ns[64];
        plot_n_text(nmin, nmax, ns, sizeof ns);
        snprintf(title + strlen(title), sizeof title - strlen(title), " (%s)", ns);
        snprintf(name, sizeof name, "title%d", ++written);
        gp_var_str(&v, name, title);
    }
    int rc = plot_close_data(p, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0 && written) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s vs %s", plot_stage_title(p, s->name), header, plot_key_name(p, s->axes[ax]));
        gp_var_str(&v, "subtitle", nmax_all > 1 ? "mean and 95% CI over seeds" : "one seed: no interval");
        gp_var_path(&v, "datafile", path);
        plot_figure_texts(p, &v, title, plot_key_name(p, s->axes[ax]), header);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "categorical", "%d", categorical), gp_var(&v, "logx", "%d", logx);
        axis_vars(&v, vals, nv, categorical, unit, ylo, yhi);
        rc = plot_run_gnuplot(p, "metric_vs_axis", base, &v);
    } else if (rc == 0) {
        unlink(path);
    }
    gp_vars_free(&v);
    free(vals), free(line_of), free(follows);
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
    const char *unit = report_metric_unit(metric);
    double ylo = DBL_MAX, yhi = -DBL_MAX;
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
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s-vs-%s", metric, xmetric);
    if (!f) {
        free(xs), free(order);
        return EXIT_RUN_FAILED;
    }
    gp_comment(f, "%s of stage %s against %s: x mean ci95-lo ci95-hi n label (means over done seeds; the 95%% CI of the y mean)\n",
            header, s->name, xheader);
    gp_vars v = {0};
    int written = 0;
    for (int first = 0; first < npoints; first++) { // a line per model.arch value, in order of first appearance
        const char *line = arch >= 0 ? s->configs[order[first]].values[arch] : NULL;
        int seen = 0;
        for (int q = 0; q < first && !seen; q++) seen = line && !strcmp(s->configs[order[q]].values[arch], line);
        if (seen || (first > 0 && !line)) continue;
        if (written) fprintf(f, "\n\n");
        int nmin = INT_MAX, nmax = 0;
        for (int q = first; q < npoints; q++) {
            const rr_config *cf = &s->configs[order[q]];
            if (line && strcmp(cf->values[arch], line)) continue;
            double m, sd;
            int n = report_stats(set, cf, metric, &m, &sd);
            double half = report_ci95_half(sd, n) * fabs(scale);
            double lo = plot_clip_bound(unit, m * scale - half), hi = plot_clip_bound(unit, m * scale + half);
            fprintf(f, "%.17g %.17g %.17g %.17g %d ", xs[order[q]], m * scale, lo, hi, n);
            gp_data_string(f, cf->label), fputc('\n', f);
            ylo = fmin(ylo, lo), yhi = fmax(yhi, hi);
            nmin = n < nmin ? n : nmin, nmax = n > nmax ? n : nmax;
        }
        char name[32], title[300], ns[64];
        plot_n_text(nmin, nmax, ns, sizeof ns);
        snprintf(name, sizeof name, "title%d", ++written);
        snprintf(title, sizeof title, "%s%s%s (%s)", line ? plot_key_name(p, "model.arch") : "", line ? (figure_labels_key(p->labels, "model.arch") ? ": " : "=") : "",
                 line ? line : header, ns);
        gp_var_str(&v, name, title);
    }
    int rc = plot_close_data(p, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s vs %s", plot_stage_title(p, s->name), header, xheader);
        gp_var_str(&v, "subtitle", "means; 95% CI of the y mean over seeds");
        gp_var_path(&v, "datafile", path);
        plot_figure_texts(p, &v, title, xheader, header);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "categorical", "0"), gp_var(&v, "logx", "%d", lo > 0 && hi / lo >= 100);
        if (npoints == 1) gp_var(&v, "xmin", "%.17g", lo - fmax(1, fabs(lo) * 0.5)), gp_var(&v, "xmax", "%.17g", hi + fmax(1, fabs(hi) * 0.5));
        plot_y_range_vars(&v, unit, ylo, yhi, NULL, 0);
        rc = plot_run_gnuplot(p, "metric_vs_axis", base, &v);
    }
    gp_vars_free(&v);
    free(xs), free(order);
    return rc;
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
// when the file or its list is absent) and, when labels is not NULL, its `labels:` (none when
// absent). -1 with err ("path:line:col: figures: ..." / "labels: ...").
static int load_yaml_requests(const char *path, figure_spec **out, int *n, int *found, figure_labels *labels, char *err,
                              size_t errlen) {
    *out = NULL, *n = 0, *found = 0;
    if (labels) memset(labels, 0, sizeof *labels);
    if (access(path, F_OK) != 0) return 0;
    ynode *root = NULL;
    if (ytree_load(path, &root, err, errlen) != 0) return -1;
    const ynode *list = ytree_get(root, "figures", NULL);
    int rc = labels ? figure_labels_read(path, ytree_get(root, "labels", NULL), labels, err, errlen) : 0;
    if (list && !ytree_is_null(list)) {
        *found = 1;
        if (list->kind != YT_SEQ) {
            snprintf(err, errlen, "%s:%d:%d: figures: expected a list of mappings, each with a kind", path, list->line, list->col);
            rc = -1;
        }
        for (int i = 0; rc == 0 && list->kind == YT_SEQ && i < list->n; i++) {
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
    FILE *f;
    int missing;
    if (safe_fopen_read(path, SAFE_TEXT_CAP, SAFE_NOFOLLOW, &f, &missing, err, errlen) != SAFE_OK) return missing ? 0 : -1;
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
        if (r->where[0]) warn_msg("%s: no done run of stage %s has /final %s", r->where, s->name, metric);
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
        warn_msg("%s: %s does not vary in stage %s", r->where, r->axis, s->name);
    return 0;
}

static int draw_curves(plotter *p, const rr_stage *s, const figure_spec *r) {
    if (!r->metric[0]) {
        int rc = plot_fig_curves(p, s, "train", "step", "loss");
        return rc ? rc : plot_fig_curves(p, s, "eval", "epoch", "top1");
    }
    char group[256];
    snprintf(group, sizeof group, "%s", r->metric);
    char *col = strpbrk(group, "/.");
    if (!col || (strncmp(group, "train", 5) && strncmp(group, "eval", 4))) {
        warn_msg("%s: curves want train/<column> or eval/<column>, not %s", r->where, r->metric);
        return 0;
    }
    *col++ = '\0';
    return plot_fig_curves(p, s, group, !strcmp(group, "train") ? "step" : "epoch", col);
}

static int draw_heatmap(plotter *p, const rr_stage *s, const figure_spec *r) {
    return fig_heatmaps(p, s, r->metric[0] ? r->metric : "relmap");
}
static int draw_image_grid(plotter *p, const rr_stage *s, const figure_spec *r) { return fig_image_grid(p, s, r->axis, r->where); }
static int draw_result_curves(plotter *p, const rr_stage *s, const figure_spec *r) { (void)r; return plot_fig_result_curves(p, s); }
static int draw_spatial_weights(plotter *p, const rr_stage *s, const figure_spec *r) { (void)r; return fig_spatial_weights(p, s); }
static int draw_cls_attention(plotter *p, const rr_stage *s, const figure_spec *r) { return fig_cls_attention(p, s, r->axis, r->where); }
static int draw_key_pca(plotter *p, const rr_stage *s, const figure_spec *r) { return fig_key_pca(p, s, r->axis, r->where); }

typedef int (*draw_fn)(plotter *p, const rr_stage *s, const figure_spec *r);
#define FIGURE_DRAW_(name, keys, help) draw_##name,
static const draw_fn draws[FIGURE_KIND_COUNT] = {FIGURE_KINDS(FIGURE_DRAW_)};
#undef FIGURE_DRAW_

// ---- the command --------------------------------------------------------------------

// Figures of an earlier `posbench plot` that this one did not draw again (a renamed figure, a
// configuration gone): DIR/figures/<base>.png, .svg, .pdf and data/<base>.dat are removed, so
// the folder (and REPORT.html, which embeds it) shows this run's figures only. Only names with a
// data file in figures/data/ are touched: the files posbench plot writes, never others.
static void remove_stale(const plotter *p, const char *fig, const char *data) {
    DIR *d = opendir(data);
    if (!d) return;
    struct dirent *e;
    int removed = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".dat")) continue;
        char base[NAME_MAX + 1];
        snprintf(base, sizeof base, "%.*s", (int)(len - 4), e->d_name);
        int current = 0;
        for (int i = 0; i < p->nnames && !current; i++) current = !strcmp(p->names[i], base);
        if (current) continue;
        static const char *const ext[] = {"png", "svg", "pdf"};
        char path[PATH_MAX + NAME_MAX + 16];
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s/%s.%s", fig, base, ext[k]);
            if (unlink(path) != 0 && errno != ENOENT) warn_msg("cannot remove %s: %s", path, strerror(errno));
        }
        snprintf(path, sizeof path, "%s/%s.gp", data, base);
        if (unlink(path) != 0 && errno != ENOENT) warn_msg("cannot remove %s: %s", path, strerror(errno));
        snprintf(path, sizeof path, "%s/%s", data, e->d_name);
        if (unlink(path) == 0) removed++;
    }
    closedir(d);
    if (removed) printf("removed %d figure%s of an earlier plot that this one does not draw\n", removed, removed == 1 ? "" : "s");
}

void plot_help(void) {
    printf("usage: posbench plot DIR [--only KIND]\n"
           "Writes figures of the run files (*.h5) below DIR to DIR/figures/ as PNG, SVG and PDF, named\n"
           "<experiment>_<stage>_<what> (e.g. mp3-main_finetune_top1-vs-eta), and the data behind each to\n"
           "DIR/figures/data/*.dat, running gnuplot on plots/<KIND>.gp. Error bars and bands: the mean's\n"
           "95%% CI over seeds (n in the legend). A figures: entry's label:, xlabel:, ylabel: set the title\n"
           "and axis labels (docs/report.md).\n"
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
                error_msg("--only '%s' is not a figure kind (valid: %s)", only_name, figure_kind_names());
                return EXIT_BAD_INPUT;
            }
        } else if (argv[i][0] == '-' || dir) {
            error_msg("unexpected argument '%s' for posbench plot (usage: posbench plot DIR [--only KIND])", argv[i]);
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
        error_msg("%s", err);
        return EXIT_BAD_INPUT;
    }
    rr_set set;
    if (run_select(dir, RR_SERIES | RR_ARRAYS, &set, err, sizeof err) != 0) { // the runs report counts (run_select.h)
        error_msg("%s", err);
        return EXIT_BAD_INPUT;
    }
    p.set = &set;
    report_metrics_from(&set); // units, scales and natures from the files
    figure_spec *reqs = NULL;
    int nreq = 0, rc = 0, found = 0;
    if (set.nruns == 0) {
        error_msg("no finished runs under %s (no readable *.h5 files)", dir);
        rc = EXIT_BAD_INPUT;
    } else { // DIR's own: DIR/experiment.yaml (DIR is an experiment's folder), else an old DIR/figures.tsv
        char copy[PATH_MAX + 20];
        snprintf(copy, sizeof copy, "%s/experiment.yaml", dir);
        if (load_yaml_requests(copy, &reqs, &nreq, &found, NULL, err, sizeof err) != 0 ||
            (!found && load_tsv_requests(dir, &reqs, &nreq, &found, err, sizeof err) != 0)) {
            error_msg("%s", err);
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
        figure_labels *labels = xcalloc(1, sizeof *labels, "labels");
        if (set.stages[s].experiment[0]) {
            char edir[PATH_MAX], copy[PATH_MAX + 20];
            snprintf(edir, sizeof edir, "%s/%s", dir, set.stages[s].experiment);
            snprintf(copy, sizeof copy, "%s/experiment.yaml", edir);
            if (load_yaml_requests(copy, &own, &nown, &has_own, labels, err, sizeof err) != 0 ||
                (!has_own && load_tsv_requests(edir, &own, &nown, &has_own, err, sizeof err) != 0)) {
                error_msg("%s", err);
                rc = EXIT_BAD_INPUT;
                free(labels);
                break;
            }
        }
        p.labels = labels;
        const figure_spec *list = has_own ? own : found ? reqs : defaults;
        int count = has_own ? nown : found ? nreq : FIGURE_KIND_COUNT;
        for (int r = 0; r < count && rc == 0; r++) {
            if (only >= 0 && (int)list[r].kind != only) continue;
            if (list[r].stage[0] && strcmp(list[r].stage, set.stages[s].name)) continue;
            p.spec = &list[r];
            int before = p.figures;
            rc = draws[list[r].kind](&p, &set.stages[s], &list[r]);
            p.spec = NULL;
            if (rc == 0 && p.figures == before && list[r].where[0]) { // a listed figure is never skipped silently
                fputs("posbench: warning: ", stderr), visible_text(stderr, list[r].where, NULL);
                fprintf(stderr, ": figure %s of stage ", figure_kind_at((int)list[r].kind)->name), visible_text(stderr, set.stages[s].name, NULL);
                fputs(" was not drawn: its runs hold no data it can draw", stderr);
                if (list[r].metric[0]) fputs(" (metric ", stderr), visible_text(stderr, list[r].metric, NULL), fputc(')', stderr);
                if (list[r].axis[0]) fputs(" (axis ", stderr), visible_text(stderr, list[r].axis, NULL), fputc(')', stderr);
                fputc('\n', stderr);
            }
        }
        p.labels = NULL;
        free(own), free(labels);
    }
    if (rc == 0 && only < 0) remove_stale(&p, fig, data);
    if (rc == 0) {
        if (p.figures) printf("%d figure%s in %s (PNG, SVG and PDF; data in %s)\n", p.figures, p.figures == 1 ? "" : "s", vis(fig), vis(data));
        else printf("no figures to make%s%s under %s\n", only_name ? " of kind " : "", only_name ? only_name : "", vis(dir));
    }
    free(reqs);
    for (int i = 0; i < p.nnames; i++) free(p.names[i]);
    free(p.names);
    rr_set_free(&set);
    return rc && p.data_refused ? EXIT_BAD_INPUT : rc;
}
