// bench/report/plot_curves.c — the curve figure kinds of posbench plot (plot.h): a stage's
// /train or /eval series per configuration (mean over seeds, a 95% CI band), and the per-run
// result curves (/position: MP3 Fig. 3, /knn: Fig. 9, /resolution: CAPE Figs. 2-4).
#include "plot_internal.h"
#include "gnuplot.h"
#include "stats.h"
#include "../results/results_read.h"
#include "../../core/common.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CURVE_POINTS = 1000 }; // the most points of a curve drawn (report_curve thins longer series)

// ---- curves -------------------------------------------------------------------------

// The curves' ranges: one x value as a range around it (gnuplot would warn of an empty range on
// a one-point plot), whole-number tics when every x is whole (x_integer), y by y_range_vars.
// subtitle: what is drawn (curve_note), and a zoomed y range stated (y_range_vars).
static void curve_ranges(gp_vars *v, double xlo, double xhi, int x_integer, const char *unit, double ylo, double yhi,
                         const char *what) {
    if (xlo == xhi) xlo -= fmax(1, fabs(xlo) * 0.5), xhi += fmax(1, fabs(xhi) * 0.5);
    if (xlo == xhi || x_integer) gp_var(v, "xmin", "%.17g", xlo), gp_var(v, "xmax", "%.17g", xhi);
    if (x_integer) plot_integer_xtics(v, xlo, xhi);
    char note[128], subtitle[300];
    plot_y_range_vars(v, unit, ylo, yhi, note, sizeof note);
    snprintf(subtitle, sizeof subtitle, "%s%s%s", what, note[0] ? "; " : "", note);
    gp_var_str(v, "subtitle", subtitle);
}

// The title's note on what is drawn: a mean in a band, or, when every configuration has one
// point (a run of one epoch), points with error bars: no curve.
static const char *curve_note(long most, int band) {
    if (most == 1) return band ? "one point per setting: mean and 95% CI over seeds, no curve" : "one point per setting, no curve";
    return band ? "mean over seeds, band: its 95% CI" : "mean over seeds";
}

// group "train" or "eval"; x and y column names. One line per configuration, the mean over its
// seeds, in a shaded band: the mean's 95% CI over the seeds (report_curve); n in the legend.
int plot_fig_curves(plotter *p, const rr_stage *s, const char *group, const char *xcol, const char *ycol) {
    char base[600], path[PATH_MAX], header[96], ylabel[128];
    double scale = report_metric_scale(ycol, header, sizeof header);
    const char *unit = report_metric_unit(ycol);
    snprintf(ylabel, sizeof ylabel, "%s %s", !strcmp(group, "eval") ? "evaluation" : "training", header);
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s-%s-vs-%s", group, ycol, xcol);
    if (!f) return EXIT_RUN_FAILED;
    gp_comment(f, "%s vs %s/%s of stage %s, one block per configuration: x mean ci95-lo ci95-hi n (over the seeds)", ylabel,
            group, xcol, s->name);
    gp_vars v = {0};
    int written = 0, band = 0, x_integer = 1;
    long most = 0;
    double xlo = DBL_MAX, xhi = -DBL_MAX, ylo = DBL_MAX, yhi = -DBL_MAX;
    for (int c = 0; c < s->nconfigs; c++) {
        report_band b;
        long n = report_curve(p->set, &s->configs[c], group, xcol, ycol, CURVE_POINTS, &b);
        most = n > most ? n : most;
        if (n > 0) {
            fprintf(f, written ? "\n\n" : "");
            int nmin = INT_MAX, nmax = 0;
            for (long j = 0; j < n; j++) {
                double lo = plot_clip_bound(unit, fmin(b.lo[j], b.hi[j]) * scale), hi = plot_clip_bound(unit, fmax(b.lo[j], b.hi[j]) * scale);
                fprintf(f, "%.17g %.17g %.17g %.17g %d\n", b.x[j], b.y[j] * scale, lo, hi, b.n[j]);
                x_integer &= b.x[j] == floor(b.x[j]);
                xlo = fmin(xlo, b.x[j]), xhi = fmax(xhi, b.x[j]), ylo = fmin(ylo, lo), yhi = fmax(yhi, hi);
                nmin = b.n[j] < nmin ? b.n[j] : nmin, nmax = b.n[j] > nmax ? b.n[j] : nmax;
            }
            band |= nmax > 1;
            char name[32], title[1200], ns[64];
            plot_n_text(nmin, nmax, ns, sizeof ns);
            snprintf(name, sizeof name, "title%d", ++written);
            char legend[1000];
            plot_config_legend(p, s, &s->configs[c], -1, legend, sizeof legend);
            snprintf(title, sizeof title, "%s (%s)", legend, ns);
            gp_var_str(&v, name, title);
        }
        report_band_free(&b);
    }
    int rc = plot_close_data(p, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0 && written) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s", plot_stage_title(p, s->name), ylabel);
        gp_var_path(&v, "datafile", path);
        plot_figure_texts(p, &v, title, xcol, ylabel);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "logy", "0"), gp_var(&v, "marks", "%d", most <= 60);
        gp_var(&v, "band", "%d", band), gp_var(&v, "points_only", "%d", most == 1);
        curve_ranges(&v, xlo, xhi, x_integer, unit, ylo, yhi, curve_note(most, band));
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
                            const char *ylabel, int logx) {
    const rr_set *set = p->set;
    int any_run = 0;
    for (int i = 0; i < s->nruns && !any_run; i++) any_run = rr_array_get(&set->runs[s->runs[i]].curves, yname) != NULL;
    if (!any_run) return 0;
    char base[600], path[PATH_MAX], header[96], tag[128];
    double scale = report_metric_scale(strrchr(yname, '/') + 1, header, sizeof header);
    const char *unit = report_metric_unit(strrchr(yname, '/') + 1);
    snprintf(tag, sizeof tag, "%s-vs-%s", yname, xname ? (strrchr(xname, '/') ? strrchr(xname, '/') + 1 : xname) : "layer");
    for (char *q = tag; *q; q++) *q = *q == '/' ? '-' : *q;
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s", tag);
    if (!f) return EXIT_RUN_FAILED;
    gp_comment(f, "%s vs %s of stage %s, one block per configuration: x mean ci95-lo ci95-hi n (over its runs)", yname,
            xname ? xname : "layer", s->name);
    double xlo = DBL_MAX, xhi = -DBL_MAX, ylo = DBL_MAX, yhi = -DBL_MAX;
    gp_vars v = {0};
    int written = 0, band = 0, x_integer = 1, most = 0;
    for (int c = 0; c < s->nconfigs; c++) {
        const rr_config *cf = &s->configs[c];
        double xsum[256] = {0};
        double *ys = xcalloc((size_t)256 * (size_t)(cf->nruns + 1), sizeof(double), "curve values"); // (256, runs)
        int n = 0, runs = 0;
        for (int i = 0; i < cf->nruns; i++) {
            const rr_run *r = &set->runs[cf->runs[i]];
            const rr_array *y = rr_array_get(&r->curves, yname), *x = xname ? rr_array_get(&r->curves, xname) : NULL;
            if (!y || y->numel == 0 || y->numel > 256 || (xname && (!x || x->numel != y->numel)) || (runs && (int)y->numel != n)) continue;
            n = (int)y->numel;
            for (int k = 0; k < n; k++) ys[(size_t)k * cf->nruns + runs] = y->data[k], xsum[k] += x ? x->data[k] : (double)(k + 1);
            runs++;
        }
        if (!runs) {
            free(ys);
            continue;
        }
        fprintf(f, written ? "\n\n" : "");
        for (int k = 0; k < n; k++) {
            const double *yk = ys + (size_t)k * cf->nruns;
            double mean = 0, ss = 0;
            for (int i = 0; i < runs; i++) mean += yk[i];
            mean /= runs;
            for (int i = 0; i < runs; i++) ss += (yk[i] - mean) * (yk[i] - mean);
            double half = runs > 1 ? report_ci95_half(sqrt(ss / (runs - 1)), runs) * fabs(scale) : 0;
            double x = xsum[k] / runs, y = mean * scale, lo = plot_clip_bound(unit, y - half), hi = plot_clip_bound(unit, y + half);
            fprintf(f, "%.9g %.17g %.17g %.17g %d\n", x, y, lo, hi, runs);
            xlo = fmin(xlo, x), xhi = fmax(xhi, x), ylo = fmin(ylo, lo), yhi = fmax(yhi, hi);
            x_integer &= x == floor(x);
        }
        most = n > most ? n : most;
        free(ys);
        band |= runs > 1;
        char name[32], title[1200];
        snprintf(name, sizeof name, "title%d", ++written);
        char legend[1000];
        plot_config_legend(p, s, cf, -1, legend, sizeof legend);
        snprintf(title, sizeof title, "%s (n = %d)", legend, runs);
        gp_var_str(&v, name, title);
    }
    int rc = plot_close_data(p, path) ? EXIT_RUN_FAILED : 0;
    if (rc == 0 && written) {
        char title[600];
        snprintf(title, sizeof title, "%s: %s", plot_stage_title(p, s->name), ylabel);
        gp_var_path(&v, "datafile", path);
        plot_figure_texts(p, &v, title, xlabel, ylabel);
        gp_var(&v, "nlines", "%d", written), gp_var(&v, "logy", "0"), gp_var(&v, "logx", "%d", logx), gp_var(&v, "marks", "1");
        gp_var(&v, "band", "%d", band), gp_var(&v, "points_only", "%d", most == 1);
        curve_ranges(&v, xlo, xhi, x_integer && !logx, unit, ylo, yhi, curve_note(most, band));
        rc = plot_run_gnuplot(p, "curves", base, &v);
    }
    gp_vars_free(&v);
    return rc;
}

int plot_fig_result_curves(plotter *p, const rr_stage *s) {
    int rc = fig_array_curves(p, s, "position/top1", "position/test_eta", "test masking ratio η", "position prediction top-1 (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "position/top1_nonblank", "position/test_eta", "test masking ratio η", "position top-1 on non-blank patches (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "knn/top1", NULL, "layer (block)", "kNN top-1 of the layer's features (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "knn/init_top1", NULL, "layer (block), the network at its random initialisation", "kNN top-1 at initialisation (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "resolution/top1", "resolution/size", "evaluation image size (px)", "test top-1 (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "resolution/tta_top1", "resolution/size", "evaluation image size (px)", "test top-1 with test-time augmentation (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "resolution/images_per_s", "resolution/size", "evaluation image size (px)", "throughput (images/s, forward only)", 0);
    // CAPE Fig. 4: accuracy against inference throughput, one point per evaluation size
    if (!rc) rc = fig_array_curves(p, s, "resolution/top1", "resolution/images_per_s", "throughput (images/s, forward only)", "test top-1 (%)", 1);
    // CAPE's speech claims: keyword accuracy vs clip duration and vs playback rate
    if (!rc) rc = fig_array_curves(p, s, "speech_duration/top1", "speech_duration/seconds",
                                   "test clip duration (s), the keyword at a random offset in background noise", "keyword top-1 (%)", 0);
    if (!rc) rc = fig_array_curves(p, s, "speech_rate/top1", "speech_rate/rate", "playback rate of the test clips (x)", "keyword top-1 (%)", 0);
    return rc;
}
