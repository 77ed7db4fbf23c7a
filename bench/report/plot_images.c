// bench/report/plot_images.c — `posbench plot`'s image figures: the image_grid kind (/samples
// images of a run, with `with:` rows from other stages' runs of the same seed) and the RGB canvas
// and `with:` helpers the views' figures (plot_views.c) share. Moved out of plot.c, which keeps
// the plotted series (metric vs axis, curves, heatmaps, spatial weights) and the command.
#include "plot.h"
#include "plot_internal.h"
#include "gnuplot.h"
#include "../results/results_read.h"
#include "../../core/visible_text.h"
#include "../../core/common.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GRID_COLS = 8 }; // images per row of a grid

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
        warn_msg("%s: %s of stage %s: no done run of stage %s has %s; drawn without it",
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
            warn_msg("%s: /samples/%s is not an image set (see posbench plot --help); left out", run->path, a->name);
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
int fig_image_grid(plotter *p, const rr_stage *s, const char *with, const char *where) {
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
        add_grid_rows(rows, &nrows, run, ncomp ? plot_stage_title(p, s->name) : NULL);
        for (int o = 0; o < ncomp; o++) add_grid_rows(rows, &nrows, companions[o], plot_stage_title(p, comp_names[o]));
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
        char base[900], path[PATH_MAX], suffix[600] = "", slug[400];
        for (int o = 0; o < ncomp; o++)
            snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "%s%s", o ? "_" : "_with_", comp_names[o]);
        plot_config_slug(s, &s->configs[c], slug, sizeof slug);
        FILE *f = plot_begin_figure(p, s, base, sizeof base, path, sizeof path, "samples%s%s_seed%ld%s", slug[0] ? "_" : "", slug,
                               rr_run_seed(run), suffix);
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
        fputs("# /samples of ", f), visible_text(f, run->path, NULL); // one line (gnuplot.h)
        for (int o = 0; o < ncomp; o++) fputs(" and ", f), visible_text(f, companions[o]->path, NULL);
        fprintf(f, ": x y r g b, %d rows of up to %d images, value range [%g, %g] -> 0..255\n", nrows, GRID_COLS, lo, hi);
        plot_write_rgb(f, rgb, W, Ht);
        free(rgb), free(rows);
        if (plot_close_data(p, path)) {
            gp_vars_free(&v);
            return EXIT_RUN_FAILED;
        }
        int zoom = 720 / (W > 0 ? W : 1), tall = 1400 / (Ht > 0 ? Ht : 1); // about 720 px wide, at most about 1400 px tall
        zoom = zoom > tall ? tall : zoom;
        zoom = zoom < 1 ? 1 : zoom > 12 ? 12 : zoom;
        char title[1400], stages[700] = "";
        for (int o = 0; o < ncomp; o++)
            snprintf(stages + strlen(stages), sizeof stages - strlen(stages), ", %s", plot_stage_title(p, comp_names[o]));
        char legend[1000];
        plot_config_legend(p, s, &s->configs[c], -1, legend, sizeof legend);
        snprintf(title, sizeof title, "%s%s: sample images, %s%sseed %ld", plot_stage_title(p, s->name), stages, s->naxes ? legend : "",
                 s->naxes ? ", " : "", rr_run_seed(run));
        gp_var_path(&v, "datafile", path);
        plot_figure_texts(p, &v, title, NULL, NULL);
        int width = W * zoom + 260, fits = (int)strlen(p->spec && p->spec->label[0] ? p->spec->label : title) * 8 + 60; // the title fits
        gp_var(&v, "nrows", "%d", nrows), gp_var(&v, "width", "%d", width > fits ? width : fits), gp_var(&v, "height", "%d", Ht * zoom + 90);
        int rc = plot_run_gnuplot(p, "image_grid", base, &v);
        gp_vars_free(&v);
        if (rc) return rc;
    }
    return 0;
}

