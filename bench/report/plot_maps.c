// bench/report/plot_maps.c — the colour-map figures of `posbench plot` (kinds heatmap and
// spatial_weights; plot.h says what they draw): attention maps from /attention/<name> (one panel
// per block and head, a colour range shared across the stage; relmap by relative offset) and
// gMLP's learned spatial projection W from /spatial/W (Figs. 3-4), both drawn by plots/heatmap.gp.
#include "plot_internal.h"
#include "../../core/common.h"
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// ---- heatmaps -----------------------------------------------------------------------

// The lowest-seed run of configuration c with /attention/<name> (4-D), or -1.
static int run_with_attention(const rr_set *set, const rr_config *c, const char *name) {
    for (int i = 0; i < c->nruns; i++) {
        const rr_array *a = rr_array_get(&set->runs[c->runs[i]].attention, name);
        if (a && a->ndim == 4 && a->numel) return c->runs[i];
    }
    return -1;
}

int fig_heatmaps(plotter *p, const rr_stage *s, const char *name) {
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
        char base[700], path[PATH_MAX], slug[400];
        plot_config_slug(s, &s->configs[c], slug, sizeof slug);
        FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s%s%s_seed%ld", name, slug[0] ? "_" : "", slug, rr_run_seed(run));
        if (!f) return EXIT_RUN_FAILED;
        gp_comment(f, "/attention/%s of %s, (L=%d, H=%d) blocks of x y value", name, run->path, L, H);
        for (int k = 0; k < L * H; k++) {
            if (k) fprintf(f, "\n\n");
            for (int i = 0; i < ny; i++) {
                for (int j = 0; j < nx; j++) fprintf(f, "%d %d %.9g\n", j - ox, i - oy, a->data[((size_t)k * ny + i) * nx + j]);
                if (i < ny - 1) fprintf(f, "\n");
            }
        }
        if (plot_close_data(p, path)) return EXIT_RUN_FAILED;
        gp_vars v = {0};
        char title[600], subtitle[1400];
        snprintf(title, sizeof title, "%s: attention %s", plot_stage_title(p, s->name), relative ? "by relative offset (relmap)" : name);
        char legend[1000];
        plot_config_legend(p, s, &s->configs[c], -1, legend, sizeof legend);
        snprintf(subtitle, sizeof subtitle, "colour range shared across the stage; %s%sseed %ld", s->naxes ? legend : "", s->naxes ? ", " : "",
                 rr_run_seed(run));
        int w = 130 * H + 195, h = 130 * L + 120;
        w = w < 640 ? 640 : w;
        gp_var_path(&v, "datafile", path), gp_var_str(&v, "subtitle", subtitle);
        plot_figure_texts(p, &v, title, NULL, NULL);
        gp_var_str(&v, "xlabel", relative ? "Δcol (key − query)" : "col"), gp_var_str(&v, "ylabel", relative ? "Δrow (key − query)" : "row");
        gp_var_str(&v, "cblabel", relative ? "mean attention weight" : "attention weight");
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
int fig_spatial_weights(plotter *p, const rr_stage *s) {
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
            warn_msg("%s: /spatial/W is (%d, %d, %d) but its grid is %d x %d after %d tokens; left out",
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
        double m = fmax(fabs(lo), fabs(hi));
        lo = -(m > 0 ? m : 1), hi = m > 0 ? m : 1;
        char base[700], path[PATH_MAX], slug[400];
        plot_config_slug(s, &s->configs[c], slug, sizeof slug);
        FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "spatial-W%s%s_seed%ld", slug[0] ? "_" : "", slug, rr_run_seed(run));
        if (!f) return EXIT_RUN_FAILED;
        gp_comment(f, "/spatial/W of %s, (L=%d) x %d blocks of x y value", run->path, L, nq);
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
        if (plot_close_data(p, path)) return EXIT_RUN_FAILED;
        gp_vars v = {0};
        char title[600], subtitle[1400], names[256] = "";
        snprintf(title, sizeof title, "%s: learned spatial weights W, %s", plot_stage_title(p, s->name),
                 grid ? "the row of W of four query tokens, on the token grid" : "query token down, key token across");
        char legend[1000];
        plot_config_legend(p, s, &s->configs[c], -1, legend, sizeof legend);
        snprintf(subtitle, sizeof subtitle, "%s%sseed %ld", s->naxes ? legend : "", s->naxes ? ", " : "", rr_run_seed(run));
        if (grid)
            for (int q = 0; q < nq; q++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%sq(%d,%d)", q ? " " : "", query[q] / cols, query[q] % cols);
            }
        int panel = grid ? 130 : 300;
        int w = panel * nq + 195, h = panel * L + 120;
        w = w < 560 ? 560 : w;
        gp_var_path(&v, "datafile", path), gp_var_str(&v, "subtitle", subtitle);
        plot_figure_texts(p, &v, title, NULL, NULL);
        gp_var_str(&v, "xlabel", grid ? "col" : "key token"), gp_var_str(&v, "ylabel", grid ? "row" : "query token");
        gp_var_str(&v, "cblabel", "W (spatial projection weight)");
        gp_var(&v, "diverging", "1"); // W is signed: white at 0, blue below, red above, on a range symmetric about 0
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
