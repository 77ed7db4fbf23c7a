// bench/report/plot_views.c — the lecture's views of a ViT as figures (`posbench plot`, kinds
// cls_attention and key_pca; the data: /views, docs/views.md). Each figure is one RGB canvas
// drawn by plots/image_grid.gp, laid out to be read at page width: one row per method, and per
// view image a group of columns (the image, then one cell per head (cls_attention, with a colour
// scale: each map min-max scaled) or per block, shallow to deep (key_pca)). The methods are the
// stage's configurations (each its lowest-seed run with the data) and, with `with:`, the run of
// each named stage with the same seed (plot_companion_run), so methods sit side by side.
#include "plot_internal.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VIEW_IMAGES = 4 }; // view images drawn per method (the file may hold more)

typedef struct {
    const rr_run *run;
    const rr_array *images, *data, *index; // /views/images (N, C, S, S), the kind's array, image_index (N)
    char label[320];
} view_row_run;

// The dataset a kind draws, and its expected rank: cls_attention (N, H, gh, gw), key_pca (L, N, gh, gw, 3).
typedef struct {
    const char *kind, *dataset;
    int ndim;
} view_kind;

static const view_kind CLS_KIND = {"cls_attention", "cls_attention", 4}, PCA_KIND = {"key_pca", "key_pca", 5};
static const view_kind *has_kind; // the kind plot_companion_run's predicate asks about

// A run's arrays for kind k when their shapes agree (images (N, C, S, S) with C 1 or 3, the
// kind's array over the same N images on a grid that divides S), else 0.
static int view_arrays(const rr_run *r, const view_kind *k, view_row_run *out) {
    const rr_array *im = rr_array_get(&r->views, "images"), *a = rr_array_get(&r->views, k->dataset);
    if (!im || !a || im->ndim != 4 || a->ndim != k->ndim || (im->dims[1] != 1 && im->dims[1] != 3) || im->dims[2] != im->dims[3]) return 0;
    int n = k->ndim == 5 ? a->dims[1] : a->dims[0], gh = a->dims[2], gw = a->dims[3]; // both kinds: (.., .., gh, gw ..)
    if (n != im->dims[0] || n < 1 || gh < 1 || gw < 1 || im->dims[2] % gh || im->dims[3] % gw) return 0;
    if (k->ndim == 5 && a->dims[4] != 3) return 0;
    if (out) out->run = r, out->images = im, out->data = a, out->index = rr_array_get(&r->views, "image_index");
    return 1;
}

static int has_view(const rr_run *r) { return view_arrays(r, has_kind, NULL); }

// The methods of a figure: the stage's configurations, then each `with:` stage's run.
static int view_methods(const plotter *p, const rr_set *set, const rr_stage *s, const view_kind *k, const char *with,
                        const char *where, view_row_run *out) {
    char others[PLOT_MAX_WITH][256];
    int nothers = plot_split_with(with, others), n = 0;
    for (int c = 0; c < s->nconfigs; c++)
        for (int i = 0; i < s->configs[c].nruns; i++) {
            const rr_run *r = &set->runs[s->configs[c].runs[i]];
            if (!view_arrays(r, k, &out[n])) continue;
            char legend[256];
            plot_config_legend(p, s, &s->configs[c], -1, legend, sizeof legend);
            const char *title = plot_stage_title(p, s->name);
            if (nothers && s->nconfigs > 1) snprintf(out[n].label, sizeof out[n].label, "%.100s %.200s", title, legend);
            else snprintf(out[n].label, sizeof out[n].label, "%.300s", nothers ? title : s->nconfigs > 1 ? legend : "");
            n++;
            break;
        }
    if (n == 0) return 0;
    has_kind = k;
    for (int o = 0; o < nothers; o++) {
        char what[64];
        snprintf(what, sizeof what, "/views/%s", k->dataset);
        const rr_run *r = plot_companion_run(set, s, others[o], out[0].run, where, has_view, k->kind, what);
        if (r && view_arrays(r, k, &out[n])) {
            snprintf(out[n].label, sizeof out[n].label, "%.255s", plot_stage_title(p, others[o]));
            n++;
        }
    }
    return n;
}

// Viridis at t in [0, 1] (heatmap.gp's five stops, linear between them).
static void viridis(double t, unsigned char *rgb) {
    static const unsigned char stops[5][3] = {{0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25}};
    t = !isfinite(t) || t < 0 ? 0 : t > 1 ? 1 : t;
    int i = t >= 1 ? 3 : (int)(t * 4);
    double f = t * 4 - i;
    for (int q = 0; q < 3; q++) rgb[q] = (unsigned char)lround(stops[i][q] + f * (stops[i + 1][q] - stops[i][q]));
}

static unsigned char byte_of(double v) {
    v = isfinite(v) ? v : 0.5;
    long b = lround(255.0 * v);
    return (unsigned char)(b < 0 ? 0 : b > 255 ? 255 : b);
}

// The x of column col in a canvas of groups of `per` columns (cells of side cs, GAP between
// cells, a wider gap of cs / 2 between groups): its left pixel.
static int column_x(int cs, int per, int col) { return col * (cs + GAP) + (col / per) * (cs / 2); }

// Cell (row, col) of a canvas of width W: its top-left byte.
static unsigned char *cell(unsigned char *rgb, int W, int cs, int per, int row, int col) {
    return rgb + ((size_t)row * (cs + GAP) * W + (size_t)column_x(cs, per, col)) * 3;
}

// View image n in pixel units (0 black, 1 white), grey or RGB.
static void paint_input(unsigned char *at, int W, const rr_array *im, int n) {
    int C = im->dims[1], S = im->dims[2];
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++)
            for (int q = 0; q < 3; q++)
                at[((size_t)y * W + x) * 3 + q] = byte_of(im->data[(((size_t)n * C + (C == 3 ? q : 0)) * S + y) * S + x]);
}

// Head h's [CLS] map of image n, each patch a p x p block (nearest, as the lecture's
// F.interpolate(..., mode="nearest")), min-max scaled over the map's patches (a constant map
// is drawn at the bottom colour).
static void paint_cls(unsigned char *at, int W, const view_row_run *v, int n, int h) {
    const rr_array *a = v->data;
    int H = a->dims[1], gh = a->dims[2], gw = a->dims[3], S = v->images->dims[2];
    const float *map = a->data + ((size_t)n * H + h) * gh * gw;
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < gh * gw; j++)
        if (isfinite(map[j])) lo = fmin(lo, map[j]), hi = fmax(hi, map[j]);
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++)
            viridis(hi > lo ? (map[(y * gh / S) * gw + x * gw / S] - lo) / (hi - lo) : 0.0, at + ((size_t)y * W + x) * 3);
}

// Block l's key PCA colours of image n, each patch a p x p block.
static void paint_pca(unsigned char *at, int W, const view_row_run *v, int n, int l) {
    const rr_array *a = v->data;
    int N = a->dims[1], gh = a->dims[2], gw = a->dims[3], S = v->images->dims[2];
    const float *px = a->data + ((size_t)l * N + n) * gh * gw * 3;
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++)
            for (int q = 0; q < 3; q++) at[((size_t)y * W + x) * 3 + q] = byte_of(px[((y * gh / S) * gw + x * gw / S) * 3 + q]);
}

static const char *vr_label_or(const view_row_run *v, const char *fallback) { return v->label[0] ? v->label : fallback; }

static int view_images_of(const view_row_run *v, const view_kind *k) {
    int n = k->ndim == 5 ? v->data->dims[1] : v->data->dims[0];
    return n < VIEW_IMAGES ? n : VIEW_IMAGES;
}
static int view_cells_of(const view_row_run *v, const view_kind *k) { return k->ndim == 5 ? v->data->dims[0] : v->data->dims[1]; }

static int fig_views(plotter *p, const rr_stage *s, const view_kind *k, const char *with, const char *where) {
    view_row_run *runs = xcalloc((size_t)s->nconfigs + PLOT_MAX_WITH, sizeof *runs, "view figure methods");
    int nm = view_methods(p, p->set, s, k, with, where, runs);
    if (nm == 0) {
        free(runs);
        return 0;
    }
    int images = 0, cols = 0, cs = 0;
    for (int m = 0; m < nm; m++) {
        int n = view_images_of(&runs[m], k), c = view_cells_of(&runs[m], k), S = runs[m].images->dims[2];
        images = n > images ? n : images, cols = c > cols ? c : cols, cs = S > cs ? S : cs;
    }
    int per = cols + 1, ncols = images * per; // per view image: the image, then its cells
    int W = column_x(cs, per, ncols - 1) + cs, Ht = nm * (cs + GAP) - GAP;
    unsigned char *rgb = xmalloc((size_t)W * Ht * 3, "view canvas");
    memset(rgb, 255, (size_t)W * Ht * 3);
    gp_vars v = {0};
    for (int m = 0; m < nm; m++) {
        const view_row_run *vr = &runs[m];
        for (int i = 0; i < view_images_of(vr, k); i++) {
            paint_input(cell(rgb, W, cs, per, m, i * per), W, vr->images, i);
            for (int c = 0; c < view_cells_of(vr, k); c++) {
                unsigned char *at = cell(rgb, W, cs, per, m, i * per + c + 1);
                if (k == &CLS_KIND) paint_cls(at, W, vr, i, c);
                else paint_pca(at, W, vr, i, c);
            }
        }
        char name[32];
        snprintf(name, sizeof name, "label%d", m + 1);
        gp_var_str(&v, name, vr_label_or(vr, plot_stage_title(p, s->name)));
        snprintf(name, sizeof name, "ypos%d", m + 1);
        gp_var(&v, name, "%.1f", Ht - 1 - (m * (cs + GAP) + (cs - 1) / 2.0));
    }
    for (int c = 0; c < ncols; c++) {
        char name[32], text[64];
        int i = c / per, within = c % per;
        int index = runs[0].index && runs[0].index->numel > (size_t)i ? (int)runs[0].index->data[i] : i;
        if (within == 0) snprintf(text, sizeof text, "image %d", index);
        else snprintf(text, sizeof text, k == &CLS_KIND ? "head %d" : "block %d", within);
        snprintf(name, sizeof name, "colname%d", c + 1);
        gp_var_str(&v, name, text);
        snprintf(name, sizeof name, "xpos%d", c + 1);
        gp_var(&v, name, "%.1f", column_x(cs, per, c) + (cs - 1) / 2.0);
    }
    char base[900], path[PATH_MAX], suffix[600] = "";
    char others[PLOT_MAX_WITH][256];
    int nothers = plot_split_with(with, others);
    for (int o = 0; o < nothers; o++) snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "%s%s", o ? "_" : "_with_", others[o]);
    FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "%s%s", k->kind, suffix);
    int rc = f ? 0 : EXIT_RUN_FAILED;
    if (f) {
        fprintf(f, "# /views/%s of %d method%s (", k->dataset, nm, nm == 1 ? "" : "s");
        visible_text(f, runs[0].run->path, NULL); // one line (gnuplot.h)
        for (int m = 1; m < nm; m++) fputs(", ", f), visible_text(f, runs[m].run->path, NULL);
        fprintf(f, "): x y r g b, one row per method, per test image a group of columns: the image then %d %s\n", cols,
                k == &CLS_KIND ? "heads" : "blocks");
        plot_write_rgb(f, rgb, W, Ht);
        rc = plot_close_data(p, path) ? EXIT_RUN_FAILED : 0;
    }
    if (rc == 0) {
        char title[1400], stages[700] = "";
        for (int o = 0; o < nothers; o++)
            snprintf(stages + strlen(stages), sizeof stages - strlen(stages), ", %.80s", plot_stage_title(p, others[o]));
        if (k == &CLS_KIND)
            snprintf(title, sizeof title, "%.200s%s: the last block's [CLS] attention per head (each map min-max scaled), seed %ld",
                     plot_stage_title(p, s->name), stages, rr_run_seed(runs[0].run));
        else
            snprintf(title, sizeof title, "%.200s%s: PCA of the keys per block, shallow to deep (components 1-3 as red, green, blue), seed %ld",
                     plot_stage_title(p, s->name), stages, rr_run_seed(runs[0].run));
        int zoom = 1200 / (W > 0 ? W : 1); // about 1200 px of cells: a page's width at print resolution
        zoom = zoom < 1 ? 1 : zoom > 8 ? 8 : zoom;
        gp_var_path(&v, "datafile", path);
        plot_figure_texts(p, &v, title, NULL, NULL); // a figures: entry's label: is the title
        gp_var(&v, "nrows", "%d", nm), gp_var(&v, "ncols", "%d", ncols);
        if (k == &CLS_KIND) // the colour scale of every map: its own minimum to its own maximum
            gp_var(&v, "colorbox", "1"), gp_var_str(&v, "cblabel", "attention (each map: its min to its max)");
        gp_var(&v, "width", "%d", W * zoom + 420), gp_var(&v, "height", "%d", Ht * zoom + 140);
        rc = plot_run_gnuplot(p, "image_grid", base, &v);
    }
    gp_vars_free(&v);
    free(rgb), free(runs);
    return rc;
}

int fig_cls_attention(plotter *p, const rr_stage *s, const char *with, const char *where) { return fig_views(p, s, &CLS_KIND, with, where); }
int fig_key_pca(plotter *p, const rr_stage *s, const char *with, const char *where) { return fig_views(p, s, &PCA_KIND, with, where); }
