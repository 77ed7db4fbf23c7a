// bench/report/plot_axes.c — axes a reader can trust, shared by the figure kinds of plot.c and
// plot_curves.c (plot_internal.h): accuracy axes and CI bands within [0, 100], other unit axes
// from 0, a narrow unit-less range said in the subtitle, whole-number tics on whole-number axes,
// and the "n = ..." of a series.
#include "plot_internal.h"
#include "gnuplot.h"
#include "stats.h"
#include "../results/results_read.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// "n = 3", or "n = 2-3" when the points of a series have different counts.
void plot_n_text(int lo, int hi, char *out, size_t len) {
    if (lo == hi) snprintf(out, len, "n = %d", lo);
    else snprintf(out, len, "n = %d-%d", lo, hi);
}

// ---- axes a reader can trust ---------------------------------------------------------
// An accuracy (unit %) axis runs from 0 to at most 100 and its CI bars and bands are clipped to
// [0, 100] (a Student-t interval of a few seeds can leave the possible range; the data files say
// so); any other metric with a unit (a time, a size, a rate: never negative) starts at 0, so a
// small difference is drawn as small, not zoomed into a slope. Unit-less quantities (loss) keep
// gnuplot's range. Whole-number x axes (epoch, step, layer) get whole-number tics.

int plot_is_percent(const char *unit) { return unit && !strcmp(unit, "%"); }

// A CI bound as drawn: within [0, 100] for an accuracy.
double plot_clip_bound(const char *unit, double v) { return plot_is_percent(unit) ? fmin(100.0, fmax(0.0, v)) : v; }

// ymin, ymax for a metric of `unit` whose drawn values span [ylo, yhi] (see above). A unit-less
// metric (loss) keeps a range around its values; when that range is narrow against the values
// (under a quarter of the largest) and leaves 0 out, note says so ("y from 2.47 to 2.51, not from
// 0"), for the figure's subtitle; else note is "".
void plot_y_range_vars(gp_vars *v, const char *unit, double ylo, double yhi, char *note, size_t notelen) {
    if (note) note[0] = '\0';
    if (!isfinite(ylo) || !isfinite(yhi)) return;
    if (plot_is_percent(unit)) {
        double top = fmax(5.0, ceil(yhi * 1.08 / 5.0) * 5.0);
        gp_var(v, "ymin", "0"), gp_var(v, "ymax", "%.17g", fmin(100.0, top));
    } else if (unit && unit[0] && ylo >= 0) {
        gp_var(v, "ymin", "0"), gp_var(v, "ymax", "%.17g", yhi > 0 ? yhi * 1.08 : 1.0);
    } else if (ylo == yhi) {
        double pad = fmax(fabs(ylo) * 0.05, 1e-3);
        gp_var(v, "ymin", "%.17g", ylo - pad), gp_var(v, "ymax", "%.17g", yhi + pad);
    } else if ((ylo > 0 || yhi < 0) && yhi - ylo < 0.25 * fmax(fabs(ylo), fabs(yhi))) {
        double pad = (yhi - ylo) * 0.05;
        gp_var(v, "ymin", "%.17g", ylo - pad), gp_var(v, "ymax", "%.17g", yhi + pad);
        if (note) snprintf(note, notelen, "y from %.4g to %.4g, not from 0", ylo - pad, yhi + pad);
    }
}

// xtic_step for an x axis of whole numbers over [lo, hi]: 1, 2 or 5 x 10^k, at least 1, at most
// about 10 tics (gnuplot's own choice would put tics at 1.2, 1.4, ... on an epoch axis).
void plot_integer_xtics(gp_vars *v, double lo, double hi) {
    double span = hi - lo, step = 1;
    for (double base = 1; span / step > 10; base *= 10)
        for (int k = 0; k < 3 && span / step > 10; k++) step = base * (k == 0 ? 2 : k == 1 ? 5 : 10);
    gp_var(v, "xtic_step", "%.0f", step);
}
